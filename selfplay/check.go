package selfplay

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"dama/configs"
	"dama/internal/atomicfile"
	"dama/internal/envelope"
	"dama/model"
	"dama/rules"
	"dama/tb"
)

// Checker is the one validation of a chunk of games on every path into
// training (the trainer's games folder, the broker's bridge, dama games
// check). Decoding checks the frame, the checksum and that every move is
// legal; Check adds that each game is what its moves say:
//
//   - no ply follows a position in which the game was over, and each ply's
//     repetition count and 40-move counter are those of its position;
//   - the recorded result is that of the final position (the side to move
//     without a move loses, threefold repetition and the 40-move rule
//     draw), or an adjudication: the ply cap (a draw at exactly
//     selfplay.max_plies plies), or a resignation of the side to move,
//     whose search values, and those of its previous resign_moves-1
//     searches, were below selfplay.resign_threshold (files before
//     version 4 do not record the last search's values; the earlier ones
//     are checked), or a table adjudication (Tables) of a final position
//     that is not over and did not occur before;
//   - the search targets are well formed: W/D/L each in [0,1] summing to
//     1 (or all zero, a ply without search), a policy target summing to 1,
//     a full search with a visit distribution;
//   - with Settings (or Past), the header's config digest is that of one
//     of them (with the base seed its games' seeds derive from), every game
//     starts from the initial position, and the adjudications follow that
//     setting's rules; with Models, the header's model digest names one of
//     the run's models: by the SHA-256 of its checkpoint file (ModelDigest),
//     or, in a file of a format version before 5 only, by the form
//     run-folder workers recorded then, the network's config digest "/"
//     the training step (so the chunks of older run folders still pass;
//     that form names any checkpoint of the same shape and step);
//   - with Settings, a table adjudication only where the setting names
//     tables (selfplay.tables, opened with tb.Shared) and its result is
//     the one they give the final position at its 40-move counter
//     (TableResult); from format version 6 on, also no game plays on
//     from a position the tables answer for.
//
// The zero Checker, and a nil *Checker, check format, legality and results
// only. A Checker is safe for concurrent use.
type Checker struct {
	// Settings are the self-play sections the run plays by; empty (and no
	// Past): the header is not checked and adjudications only for their
	// form.
	Settings []configs.SelfPlay
	// Past, if set, returns the self-play sections the run has had
	// (runfolder's SelfPlayHistory: a resume with --allow-change records
	// one at any time). It is called, each time, for a chunk whose config
	// digest is none of Settings': chunks waiting from before a change, or
	// from a worker still on the old configuration, are checked by the
	// rules of the section they were played by. It must be safe for
	// concurrent use.
	Past func() ([]configs.SelfPlay, error)
	// Models, if set, are the models the run played with.
	Models *ModelSet
	// Held, if set, holds the games the run has taken (see GameID): a
	// chunk with a game whose seed or moves a game of another chunk has
	// there, or another game of the chunk has, is refused as a replay.
	// Check only reads it; whoever takes the chunk adds its games.
	Held *GameIndex
}

// RunChecker returns the trainer's validation of a run's chunks: against
// the run's self-play settings, those it had before (past, e.g. a
// runfolder.Run's SelfPlayHistory; nil: none) and the models in its
// accepted folder.
func RunChecker(settings configs.SelfPlay, past func() ([]configs.SelfPlay, error), acceptedDir string) *Checker {
	return &Checker{Settings: []configs.SelfPlay{settings}, Past: past, Models: NewModelSet(acceptedDir)}
}

// maxGameIndex bounds the index of a chunk's first game (the games of a
// worker's run are numbered from 0; a chunk holds a stretch of them) that
// Check tries when it looks for the base seed of a chunk's games.
const maxGameIndex = 1 << 17

// CheckError is a problem Check found: the chunk, the game (-1: the
// header or the chunk as a whole) and the ply (-1: the game as a whole).
type CheckError struct {
	Chunk string
	Game  int
	Ply   int
	Msg   string
}

func (e *CheckError) Error() string {
	var b strings.Builder
	b.WriteString("selfplay: chunk ")
	b.WriteString(e.Chunk)
	switch {
	case e.Game < 0:
		b.WriteString(": ")
	case e.Ply < 0:
		fmt.Fprintf(&b, ": game %d: ", e.Game)
	default:
		fmt.Fprintf(&b, ": game %d, ply %d: ", e.Game, e.Ply)
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Refused reports whether err, from CheckFile, CheckData or Check, refuses
// the chunk itself (its content, *CheckError, or its file,
// *envelope.Error), rather than failing to read it or the run's models.
func Refused(err error) bool {
	var ce *CheckError
	var fe *envelope.Error
	return errors.As(err, &ce) || errors.As(err, &fe)
}

// CheckData decodes the chunk file held in data and checks it; name names
// it in errors.
func (c *Checker) CheckData(name string, data []byte) (Header, []*Game, error) {
	h, games, err := Decode(data)
	if err != nil {
		return Header{}, nil, fmt.Errorf("selfplay: chunk %s: %w", name, err)
	}
	return h, games, c.Check(name, h, games)
}

// CheckFile reads and checks the chunk file at path.
func (c *Checker) CheckFile(path string) (Header, []*Game, error) {
	h, games, err := ReadFile(path)
	if err != nil {
		return Header{}, nil, err
	}
	return h, games, c.Check(filepath.Base(path), h, games)
}

// Check checks the decoded chunk name (see Checker); its error is a
// *CheckError naming the game, the ply and what is wrong.
func (c *Checker) Check(name string, h Header, games []*Game) error {
	fail := func(game, ply int, format string, args ...any) error {
		return &CheckError{Chunk: name, Game: game, Ply: ply, Msg: fmt.Sprintf(format, args...)}
	}
	if len(games) == 0 {
		return fail(-1, -1, "no games")
	}
	if c == nil {
		c = &Checker{}
	}
	var set *configs.SelfPlay
	if len(c.Settings) > 0 || c.Past != nil {
		var err error
		if set, err = c.settingsOf(h, games); err != nil {
			var pe pastError
			if errors.As(err, &pe) {
				return fmt.Errorf("selfplay: chunk %s: reading the run's past settings: %w", name, pe.err)
			}
			return fail(-1, -1, "%v", err)
		}
	}
	if c.Models != nil {
		if !strings.HasPrefix(h.ModelDigest, modelDigestPrefix) && (h.Version < minVersion || h.Version >= modelFileVersion) {
			return fail(-1, -1, "model digest %q (model %q): a chunk of format version %d names its model by the SHA-256 of the checkpoint file (%s<hex>)", h.ModelDigest, h.Model, h.Version, modelDigestPrefix)
		}
		ok, err := c.Models.Known(h.ModelDigest)
		if err != nil {
			return fmt.Errorf("selfplay: chunk %s: reading the run's models: %w", name, err)
		}
		if !ok {
			return fail(-1, -1, "model digest %q (model %q) is not one of the run's models", h.ModelDigest, h.Model)
		}
	}
	var tables *tb.Tables
	if set != nil {
		var err error
		if tables, err = OpenTables(*set, nil); err != nil {
			return fmt.Errorf("selfplay: chunk %s: opening the run's tables (selfplay.tables): %w", name, err)
		}
	}
	for i, g := range games {
		if ply, err := validateGame(g, set, tables, h.Version); err != nil {
			return fail(i, ply, "%v", err)
		}
	}
	if c.Held != nil {
		if i, why, ok := c.Held.Repeat(name, IDs(games)); ok {
			return fail(i, -1, "%s: a replay (a run takes each game once)", why)
		}
	}
	return nil
}

// validateGame checks one game against its moves and, when set is not nil,
// against the rules of those settings and their tables (nil: none); it
// returns the ply at fault (-1: the game as a whole, len(g.Plies): its
// end).
func validateGame(g *Game, set *configs.SelfPlay, tables *tb.Tables, version int) (int, error) {
	if set != nil && g.Start != rules.Start() {
		return -1, fmt.Errorf("starts from %s, self-play starts from the initial position", g.Start.FEN())
	}
	resign := set != nil && set.ResignThreshold > 0
	if set != nil && !resign && (g.NoResign || g.WouldResign >= 0 || g.End == Resigned) {
		return -1, fmt.Errorf("records resignation (%s, no-resign %v, would resign at ply %d), but resign_threshold is 0", g.End, g.NoResign, g.WouldResign)
	}
	if g.WouldResign >= 0 && !g.NoResign {
		return -1, fmt.Errorf("would resign at ply %d, but is not a no-resign game", g.WouldResign)
	}
	rg := rules.NewGame(g.Start)
	var low [2]int // consecutive searches below the threshold, per side
	below := func(wdl [3]float32) bool { return float64(wdl[0]+wdl[1]/2) < set.ResignThreshold }
	would := -1
	// The visits the search tree kept for the position after the ply
	// before (mcts reuses the subtree of the move played): 0 at the start,
	// where the tree is new.
	var reused uint64
	for k := range g.Plies {
		p := &g.Plies[k]
		if o := rg.Outcome(); o.Over() {
			return k, fmt.Errorf("the game was over before this ply (%s by %s)", o.Result, o.Reason)
		}
		if r, ok := TableResult(tables, rg); ok && version >= tablesVersion {
			return k, fmt.Errorf("the position %s is in the tables (%s), but the game goes on", rg.Position().FEN(), r)
		}
		if set != nil && set.MaxPlies > 0 && k >= set.MaxPlies {
			return k, fmt.Errorf("past the ply cap (selfplay.max_plies %d)", set.MaxPlies)
		}
		// The decoder guarantees these; games built in memory may not.
		if p.Pos != rg.Position() || p.Move < 0 || p.Move >= len(p.Legal) || !slices.Contains(p.Pos.Legal(nil), p.Played()) {
			return k, fmt.Errorf("position %s, move index %d of %d listed moves: not the position the moves lead to, or not a legal move", p.Pos.FEN(), p.Move, len(p.Legal))
		}
		if p.Repetitions != rg.Repetitions() || p.QuietPlies != rg.QuietPlies() {
			return k, fmt.Errorf("records repetitions %d, 40-move counter %d; the moves give %d, %d", p.Repetitions, p.QuietPlies, rg.Repetitions(), rg.QuietPlies())
		}
		if err := checkTargets(p); err != nil {
			return k, err
		}
		if set != nil {
			if err := checkSearch(p, set, reused); err != nil {
				return k, err
			}
		}
		reused = uint64(p.Visits[p.Move])
		if resign && len(p.Legal) > 1 { // a forced move is not searched
			side := p.Pos.Side()
			if below(p.WDL) {
				low[side]++
			} else {
				low[side] = 0
			}
			if low[side] >= set.ResignMoves {
				if !g.NoResign {
					return k, fmt.Errorf("%s would have resigned here (W/D/L %v, %d searches below resign_threshold %g), but the game goes on", side, p.WDL, low[side], set.ResignThreshold)
				}
				if would < 0 {
					would = k
				}
			}
		}
		rg.PlayUnchecked(p.Played())
	}
	end := len(g.Plies)
	o := rg.Outcome()
	switch g.End {
	case NoMoves, Repetition, FortyMoves:
		reason := map[Termination]rules.Reason{NoMoves: rules.NoMoves, Repetition: rules.Repetition, FortyMoves: rules.FortyMoves}[g.End]
		if !o.Over() {
			return end, fmt.Errorf("records %s by %s, but the final position %s is not over", g.Result, g.End, rg.Position().FEN())
		}
		if o.Reason != reason || o.Result != g.Result {
			return end, fmt.Errorf("records %s by %s, but the final position gives %s by %s", g.Result, g.End, o.Result, o.Reason)
		}
	case LengthCap, Resigned, Tables:
		if o.Over() {
			return end, fmt.Errorf("records %s by %s, but the final position gives %s by %s", g.Result, g.End, o.Result, o.Reason)
		}
		if r, ok := TableResult(tables, rg); ok && g.End != Tables && version >= tablesVersion {
			return end, fmt.Errorf("records %s by %s, but the final position %s is in the tables (%s)", g.Result, g.End, rg.Position().FEN(), r)
		}
	}
	if g.End == Tables {
		if err := checkTableEnd(g, set, tables, rg); err != nil {
			return end, err
		}
	}
	if g.End == LengthCap {
		if g.Result != rules.Draw {
			return end, fmt.Errorf("records %s by %s, which is a draw", g.Result, g.End)
		}
		if set != nil && (set.MaxPlies == 0 || end != set.MaxPlies) {
			return end, fmt.Errorf("ends by %s after %d plies, selfplay.max_plies is %d", g.End, end, set.MaxPlies)
		}
	}
	if g.End == Resigned {
		side := rg.Position().Side()
		if g.NoResign {
			return end, errors.New("a no-resign game ends by resignation")
		}
		if g.Result != rules.WinFor(side.Opponent()) {
			return end, fmt.Errorf("records %s by resignation of %s, the side to move", g.Result, side)
		}
		if set != nil {
			if len(rg.Position().Legal(nil)) == 1 {
				return end, fmt.Errorf("%s resigned with one legal move, which is played without search", side)
			}
			if version >= resignValuesVersion && !below(g.ResignWDL) {
				return end, fmt.Errorf("%s resigned with W/D/L %v, not below resign_threshold %g", side, g.ResignWDL, set.ResignThreshold)
			}
			if low[side]+1 < set.ResignMoves {
				return end, fmt.Errorf("%s resigned after %d searches below resign_threshold %g, resign_moves is %d", side, low[side]+1, set.ResignThreshold, set.ResignMoves)
			}
		}
	}
	if resign && g.WouldResign != would {
		return -1, fmt.Errorf("records would-resign ply %d, its searches give %d", g.WouldResign, would)
	}
	return -1, nil
}

// checkTableEnd checks a table adjudication at the final position of rg.
func checkTableEnd(g *Game, set *configs.SelfPlay, tables *tb.Tables, rg *rules.Game) error {
	p := rg.Position()
	if rg.Repetitions() > 0 {
		return fmt.Errorf("records %s by %s, but the final position %s occurred before, which the tables do not answer for", g.Result, g.End, p.FEN())
	}
	if set == nil {
		return nil
	}
	if tables == nil {
		return fmt.Errorf("records %s by %s, but the run has no tables (selfplay.tables is not set)", g.Result, g.End)
	}
	r, ok := TableResult(tables, rg)
	if !ok {
		_, err := tables.Probe(p)
		return fmt.Errorf("records %s by %s, but the tables do not answer for the final position %s: %v", g.Result, g.End, p.FEN(), err)
	}
	if r != g.Result {
		return fmt.Errorf("records %s by %s, but the tables give %s for the final position %s at 40-move counter %d", g.Result, g.End, r, p.FEN(), rg.QuietPlies())
	}
	return nil
}

// targetTolerance is how far a sum of probabilities may be from 1.
const targetTolerance = 1e-3

// checkTargets checks a ply's search targets.
func checkTargets(p *Ply) error {
	var sum float64
	for _, x := range p.WDL {
		if !(x >= 0 && x <= 1) {
			return fmt.Errorf("W/D/L %v: each must be in [0,1]", p.WDL)
		}
		sum += float64(x)
	}
	if sum != 0 && math.Abs(sum-1) > targetTolerance {
		return fmt.Errorf("W/D/L %v sums to %.4f, not 1", p.WDL, sum)
	}
	if len(p.Visits) != len(p.Legal) {
		return fmt.Errorf("%d visit counts for %d legal moves", len(p.Visits), len(p.Legal))
	}
	if p.Policy != nil {
		if len(p.Policy) != len(p.Legal) {
			return fmt.Errorf("%d policy values for %d legal moves", len(p.Policy), len(p.Legal))
		}
		sum = 0
		for _, x := range p.Policy {
			if !(x >= 0 && x <= 1) {
				return fmt.Errorf("policy value %v outside [0,1]", x)
			}
			sum += float64(x)
		}
		// Each stored value is rounded to a multiple of 1/65535.
		if math.Abs(sum-1) > targetTolerance+float64(len(p.Policy))/65535 {
			return fmt.Errorf("policy target sums to %.4f, not 1", sum)
		}
		return nil
	}
	if p.Full {
		var n uint64
		for _, v := range p.Visits {
			n += uint64(v)
		}
		if n == 0 {
			return errors.New("a full search without visits: no policy target")
		}
	}
	return nil
}

// checkSearch checks a ply's search against the self-play settings it
// was played by. The search of a ply stops once its root has the visits
// of its kind (selfplay.visits for a full search, selfplay.cheap_visits
// for a cheap one of playout cap randomisation; a position with one legal
// move is not searched), counting the visits the tree kept from the ply
// before, reused, which may be more (a cheap search after a full one);
// the root's first visit is its own evaluation, and a position passed
// as forced (pass_forced) hands all its visits on unevaluated, so the
// moves' visits add up to at most the larger of the two. No stored policy
// target: only the removed Gumbel root search wrote one, and settings
// with it have no digest that a chunk can match.
func checkSearch(p *Ply, set *configs.SelfPlay, reused uint64) error {
	cheap := set.CheapVisits > 0 && set.FullSearchProb < 1
	var limit uint64
	var kind string
	switch {
	case p.Policy != nil:
		return errors.New("records a stored policy target, which no self-play of these settings writes")
	case len(p.Legal) == 1:
		kind = "a forced move (played without a search)"
	case p.Full:
		limit, kind = uint64(set.Visits), fmt.Sprintf("a full search (selfplay.visits %d)", set.Visits)
	case !cheap:
		return fmt.Errorf("a search of %d legal moves that is not full, but the settings have no cheap searches (selfplay.cheap_visits %d, full_search_prob %g)", len(p.Legal), set.CheapVisits, set.FullSearchProb)
	default:
		limit, kind = uint64(set.CheapVisits), fmt.Sprintf("a cheap search (selfplay.cheap_visits %d)", set.CheapVisits)
	}
	if sum := visitSum(p); sum > max(limit, reused) {
		return fmt.Errorf("%d visits in all for %s, with %d kept from the ply before: at most %d", sum, kind, reused, max(limit, reused))
	}
	return nil
}

// settingsOf returns the one of c.Settings, or else of c.Past's, whose
// digest, with the base seed the games' seeds derive from, is the header's
// config digest. An error from c.Past is a pastError.
func (c *Checker) settingsOf(h Header, games []*Game) (*configs.SelfPlay, error) {
	sets := c.Settings
	set, base, ok := findSettings(sets, nil, h.ConfigDigest, games[0].Seed)
	if !ok && c.Past != nil {
		past, err := c.Past()
		if err != nil {
			return nil, pastError{err}
		}
		sets = append(slices.Clip(sets), past...)
		set, base, ok = findSettings(past, c.Settings, h.ConfigDigest, games[0].Seed)
	}
	if !ok {
		return nil, fmt.Errorf("config digest %q is not the digest of the run's self-play settings (%d known) with the base seed of its games", h.ConfigDigest, len(distinctSettings(sets, nil)))
	}
	if k := seedsFrom(base, games); k >= 0 {
		return nil, fmt.Errorf("game %d's seed %d is not of the chunk's run (base seed %d) or repeats another's", k, games[k].Seed, base)
	}
	return set, nil
}

// pastError is an error of Checker.Past: the chunk is not at fault.
type pastError struct{ err error }

func (e pastError) Error() string { return e.err.Error() }

// findSettings looks, among the sets whose digest form is none of the
// tried ones', for the one whose digest with some base seed is digest,
// where the first game's seed is seed and its index below maxGameIndex;
// it returns that set and base seed.
func findSettings(sets, tried []configs.SelfPlay, digest string, seed uint64) (*configs.SelfPlay, uint64, bool) {
	idx := distinctSettings(sets, tried)
	if len(idx) == 0 {
		return nil, 0, false
	}
	forms := make([]digestSplice, len(idx))
	for j, i := range idx {
		forms[j] = newDigestSplice(sets[i])
	}
	u0 := unmixSeed(seed)
	for i := uint64(0); i < maxGameIndex; i++ {
		base := u0 - (i+1)*golden
		for j := range forms {
			if forms[j].digest(base) == digest {
				return &sets[idx[j]], base, true
			}
		}
	}
	return nil, 0, false
}

// distinctSettings returns the indices of the sets of distinct digest
// forms (the first of each) that are none of the tried ones': sets with
// the same digest play by the same rules.
func distinctSettings(sets, tried []configs.SelfPlay) []int {
	var seen []digestSplice
	for _, s := range tried {
		seen = append(seen, newDigestSplice(s))
	}
	var idx []int
	for i, s := range sets {
		d := newDigestSplice(s)
		if !slices.ContainsFunc(seen, d.equal) {
			seen = append(seen, d)
			idx = append(idx, i)
		}
	}
	return idx
}

// seedsFrom returns the first game whose seed is not GameSeed(base, i)
// for an index i of its own below the bound, or -1. (Chunks written before
// the games were ordered hold them in the order they finished.)
func seedsFrom(base uint64, games []*Game) int {
	seen := make(map[uint64]bool, len(games))
	for k, g := range games {
		i := (unmixSeed(g.Seed)-base)*goldenInverse - 1
		if i >= maxGameIndex+uint64(len(games)) || seen[i] {
			return k
		}
		seen[i] = true
	}
	return -1
}

// golden is GameSeed's increment per game index; goldenInverse its
// inverse modulo 2^64.
const golden = 0x9E3779B97F4A7C15

var goldenInverse = inverse64(golden)

// inverse64 returns the inverse of the odd x modulo 2^64 (Newton's
// iteration doubles the correct low bits each step).
func inverse64(x uint64) uint64 {
	y := x // correct to 3 bits for odd x
	for range 5 {
		y *= 2 - x*y
	}
	return y
}

// unmixSeed undoes GameSeed's mixing: GameSeed(base, i) ==
// mixSeed(base + (i+1)*golden), and unmixSeed(GameSeed(base, i)) is that sum.
func unmixSeed(z uint64) uint64 {
	z ^= z>>31 ^ z>>62
	z *= inverse64(0x94D049BB133111EB)
	z ^= z>>27 ^ z>>54
	z *= inverse64(0xBF58476D1CE4E5B9)
	z ^= z>>30 ^ z>>60
	return z
}

// digestSplice computes Config.Digest for one setting and many seeds: the
// JSON that Digest hashes, cut around the seed's value.
type digestSplice struct{ before, after []byte }

func newDigestSplice(s configs.SelfPlay) digestSplice {
	b, err := json.Marshal(Config{SelfPlay: s}.digestForm())
	if err != nil {
		panic(err) // a struct of numbers always marshals
	}
	const key = `"seed":0`
	i := bytes.Index(b, []byte(key)) + len(key) - 1
	return digestSplice{before: b[:i], after: b[i+1:]}
}

func (d digestSplice) equal(e digestSplice) bool {
	return bytes.Equal(d.before, e.before) && bytes.Equal(d.after, e.after)
}

func (d digestSplice) digest(seed uint64) string {
	h := sha256.New()
	h.Write(d.before)
	h.Write(strconv.AppendUint(nil, seed, 10))
	h.Write(d.after)
	return hex.EncodeToString(h.Sum(nil))
}

// ModelSet is the set of a run's models, known by the digests chunks
// record of them: ModelDigest of the checkpoint file, and the network's
// config digest "/" the training step (the run folder's workers' before
// format version 5; Check accepts it only in such files). It reads the
// folder again when asked about a digest it does not know; files once
// read are not read again.
type ModelSet struct {
	dir   string
	mu    sync.Mutex
	read  map[string]bool // file names read
	known map[string]bool
}

// NewModelSet returns the set of the checkpoints in dir (a run's accepted
// models).
func NewModelSet(dir string) *ModelSet {
	return &ModelSet{dir: dir, read: map[string]bool{}, known: map[string]bool{}}
}

// Known reports whether digest names one of the set's models.
func (m *ModelSet) Known(digest string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.known[digest] {
		return true, nil
	}
	if _, err := m.readNew(); err != nil {
		return false, err
	}
	return m.known[digest], nil
}

// Check reads the folder's files not read yet and returns an error naming
// the first checkpoint file (named *.ckpt) that does not load: a model
// of the run that is damaged, whose chunks the set cannot recognise.
func (m *ModelSet) Check() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	damaged, err := m.readNew()
	if err != nil {
		return err
	}
	return damaged
}

// readNew reads the folder's regular files not read yet and adds the
// digests of those that are checkpoints; damaged is the error of the
// first file named as a checkpoint that does not load.
func (m *ModelSet) readNew() (damaged, err error) {
	ents, err := os.ReadDir(m.dir)
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		name := e.Name()
		if m.read[name] || !e.Type().IsRegular() || strings.HasPrefix(name, ".") {
			continue
		}
		path := filepath.Join(m.dir, name)
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		ck, err := model.Unmarshal(data)
		if err != nil {
			// Not a checkpoint: it names no model.
			if damaged == nil && strings.HasSuffix(name, ".ckpt") {
				damaged = envelope.WithPath(err, path)
			}
			continue
		}
		m.known[ModelDigest(data)] = true
		m.known[ck.Net.Config.Digest()+"/"+strconv.FormatInt(ck.Step, 10)] = true
		m.read[name] = true
	}
	return damaged, nil
}

// Quarantine moves the refused chunk file at path into dir (created if
// needed), with a text file of the same name plus ".why" beside it saying
// why, and returns the new path. The reason is written first: a kill
// between the two leaves the chunk where it was, to be refused again.
func Quarantine(path, dir string, why error) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	dst := filepath.Join(dir, filepath.Base(path))
	if err := atomicfile.WriteFile(dst+".why", []byte(why.Error()+"\n")); err != nil {
		return "", err
	}
	if err := os.Rename(path, dst); err != nil {
		return "", err
	}
	return dst, nil
}

// QuarantineData writes a refused chunk held in data into dir as name,
// with its ".why" file beside it, and returns its path.
func QuarantineData(dir, name string, data []byte, why error) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	dst := filepath.Join(dir, name)
	if err := atomicfile.WriteFile(dst+".why", []byte(why.Error()+"\n")); err != nil {
		return "", err
	}
	return dst, atomicfile.WriteFile(dst, data)
}
