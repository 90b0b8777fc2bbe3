package arena

import (
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"dama/rules"
)

// ladderVersion is the format version of ladder files.
const ladderVersion = 1

// Ladder is a fixed list of reference players with measured ratings: the
// absolute scale a model is rated on. Its ratings are measured once by
// Calibrate (`dama ladder calibrate`), stored in a versioned file and only
// re-measured on purpose, so ratings taken months apart are comparable.
type Ladder struct {
	Version int       `json:"version"`
	Created time.Time `json:"created"`
	// Revision is the project revision that measured the ratings.
	Revision string `json:"revision,omitempty"`
	// Anchor is the player rated 0.
	Anchor string `json:"anchor"`
	// Seed and OpeningPlies draw the openings of every ladder match.
	Seed         int64 `json:"seed"`
	OpeningPlies int   `json:"opening_plies"`
	MaxPlies     int   `json:"max_plies"`
	// Rungs, weakest first.
	Rungs []Rung `json:"rungs"`
	// Matches are the calibration games the ratings come from.
	Matches []LadderMatch `json:"matches"`
	// Checksum is the SHA-256 of the JSON encoding of Rungs and Matches:
	// an edited or damaged file is refused.
	Checksum string `json:"checksum"`
}

// Rung is one reference player and its rating.
type Rung struct {
	Player string  `json:"player"` // a player spec, e.g. "classic:6"
	Elo    float64 `json:"elo"`
	StdErr float64 `json:"stderr"` // of the calibration, relative to the anchor
	// MoveMillis is the mean time it took per move during calibration (one
	// core), for the reader; not used in ratings.
	MoveMillis float64 `json:"move_ms,omitempty"`
}

// LadderMatch is one calibration match, from A's point of view.
type LadderMatch struct {
	A     string      `json:"a"`
	B     string      `json:"b"`
	Pairs Pentanomial `json:"pairs"`
}

//go:embed ladder.json
var defaultLadder []byte

// DefaultLadder returns the ladder stored in the repository
// (arena/ladder.json, embedded in the binary).
func DefaultLadder() (*Ladder, error) {
	l, err := decodeLadder(defaultLadder)
	if err != nil {
		return nil, fmt.Errorf("embedded ladder: %w", err)
	}
	return l, nil
}

// ReadLadder reads and checks a ladder file; "" is the DefaultLadder.
func ReadLadder(path string) (*Ladder, error) {
	if path == "" {
		return DefaultLadder()
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("arena: ladder: %w", err)
	}
	l, err := decodeLadder(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return l, nil
}

// decodeLadder parses and checks a ladder file's contents: its version, its
// checksum, and that its rungs are named, distinct, finite, sorted weakest
// first and include the anchor at 0.
func decodeLadder(b []byte) (*Ladder, error) {
	var probe struct {
		Version *int `json:"version"`
	}
	if err := json.Unmarshal(b, &probe); err != nil {
		return nil, fmt.Errorf("arena: ladder file is damaged: %w", err)
	}
	if probe.Version == nil {
		return nil, errors.New("arena: ladder file has no version")
	}
	if *probe.Version != ladderVersion {
		return nil, fmt.Errorf("arena: ladder file version %d, this program reads version %d", *probe.Version, ladderVersion)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var l Ladder
	if err := dec.Decode(&l); err != nil {
		return nil, fmt.Errorf("arena: ladder file is damaged: %w", err)
	}
	if sum := l.checksum(); sum != l.Checksum {
		return nil, fmt.Errorf("arena: ladder file is damaged or was edited: checksum %q, contents give %q (re-measure with dama ladder calibrate)", l.Checksum, sum)
	}
	if err := l.check(); err != nil {
		return nil, err
	}
	return &l, nil
}

func (l *Ladder) checksum() string {
	b, _ := json.Marshal(struct {
		R []Rung        `json:"r"`
		M []LadderMatch `json:"m"`
	}{l.Rungs, l.Matches})
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func (l *Ladder) check() error {
	if len(l.Rungs) == 0 {
		return errors.New("arena: ladder has no rungs")
	}
	if l.OpeningPlies < 1 || l.OpeningPlies > 100 {
		return fmt.Errorf("arena: ladder opening_plies %d: want 1..100", l.OpeningPlies)
	}
	if l.MaxPlies < 1 {
		return fmt.Errorf("arena: ladder max_plies %d: want >= 1", l.MaxPlies)
	}
	seen := map[string]bool{}
	anchor := false
	for i, r := range l.Rungs {
		switch {
		case strings.TrimSpace(r.Player) == "":
			return fmt.Errorf("arena: ladder rung %d has no player", i+1)
		case seen[r.Player]:
			return fmt.Errorf("arena: ladder rung %d: player %q listed twice", i+1, r.Player)
		case math.IsNaN(r.Elo) || math.IsInf(r.Elo, 0) || math.IsNaN(r.StdErr) || r.StdErr < 0:
			return fmt.Errorf("arena: ladder rung %d (%s): rating %v ± %v is not a number", i+1, r.Player, r.Elo, r.StdErr)
		case i > 0 && r.Elo < l.Rungs[i-1].Elo:
			return fmt.Errorf("arena: ladder rung %d (%s) rated %.0f below the rung before it (%.0f): rungs go weakest first", i+1, r.Player, r.Elo, l.Rungs[i-1].Elo)
		}
		seen[r.Player] = true
		if r.Player == l.Anchor {
			anchor = true
			if r.Elo != 0 {
				return fmt.Errorf("arena: ladder anchor %s rated %v, want 0", r.Player, r.Elo)
			}
		}
	}
	if !anchor {
		return fmt.Errorf("arena: ladder anchor %q is not one of its rungs", l.Anchor)
	}
	return nil
}

// Encode returns the file contents, with the checksum filled in.
func (l *Ladder) Encode() ([]byte, error) {
	l.Version = ladderVersion
	l.Checksum = l.checksum()
	if err := l.check(); err != nil {
		return nil, err
	}
	b, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// Players returns the rungs' player specs.
func (l *Ladder) Players() []string {
	out := make([]string, len(l.Rungs))
	for i, r := range l.Rungs {
		out[i] = r.Player
	}
	return out
}

// LadderOptions configures Climb.
type LadderOptions struct {
	// Games is the number of games to play in all, even (default 200).
	Games int
	// ProbePairs is the pairs played against every rung first (default 2).
	ProbePairs int
	// Parallel is the number of games played at once (default 1).
	Parallel int
	// OnGame, when set, is called after each game, from the calling
	// goroutine, with the rung played. The game's Index is its number in
	// the whole climb: pair i (games 2i and 2i+1) plays the ladder's
	// opening i, so the indices of a climb are distinct.
	OnGame func(rung int, r GameResult)
}

// RungResult is a player's result against one rung.
type RungResult struct {
	Rung     Rung        `json:"rung"`
	Pairs    Pentanomial `json:"pairs"`
	Expected float64     `json:"expected"` // expected score at the fitted rating
}

// LadderResult is a player's rating on a ladder.
type LadderResult struct {
	Player string       `json:"player"`
	Elo    float64      `json:"elo"`
	Low    float64      `json:"low"`
	High   float64      `json:"high"`
	StdErr float64      `json:"stderr"`
	Games  int          `json:"games"`
	Rungs  []RungResult `json:"rungs"`
	// AboveTop and BelowBottom say the player is out of the ladder's range
	// (it took at least 95% of the points against the top rung, or at most
	// 5% against the bottom one): the rating is then only a bound.
	AboveTop    bool `json:"above_top,omitempty"`
	BelowBottom bool `json:"below_bottom,omitempty"`
	// Forfeits counts the games the player lost by a Fault (an external
	// engine's crash, hang, illegal or garbled move), by kind.
	Forfeits FaultCount `json:"forfeits,omitzero"`
}

// String is a one-line summary: "classic:4 on the ladder: +812 [+780, +845] from 200 games".
func (r LadderResult) String() string {
	s := fmt.Sprintf("%s on the ladder: %+.0f [%+.0f, %+.0f] from %d games", r.Player, r.Elo, r.Low, r.High, r.Games)
	if r.AboveTop {
		s += " (above the top rung: a lower bound)"
	}
	if r.BelowBottom {
		s += " (below the bottom rung: an upper bound)"
	}
	if n := r.Forfeits.Total(); n > 0 {
		s += fmt.Sprintf("; %d games lost by forfeit (%s)", n, r.Forfeits)
	}
	return s
}

// Climb rates player p on the ladder l, with rung players made by newRung.
//
// The games are spent in two phases, the same for every player so that
// ratings stay comparable: first ProbePairs pairs against every rung, then
// the rest of the budget, in whole pairs, shared equally by the rungs whose
// expected score against the probe's estimate lies in [0.1, 0.9] (at least
// the two rungs nearest to it), where a game tells the most about the
// rating. The openings are drawn from the ladder's seed, so every player
// meets the same openings. The rating is rateAgainst over all games, with a
// 95% interval of 1.96 standard errors (the rungs' own calibration error is
// not included: it shifts every player alike).
func Climb(ctx context.Context, p Player, l *Ladder, newRung PlayerFactory, opt LadderOptions) (LadderResult, error) {
	if opt.Games == 0 {
		opt.Games = 200
	}
	if opt.ProbePairs == 0 {
		opt.ProbePairs = 2
	}
	n := len(l.Rungs)
	switch {
	case opt.Games < 0 || opt.Games%2 != 0:
		return LadderResult{}, fmt.Errorf("arena: ladder games = %d: want an even number > 0", opt.Games)
	case opt.ProbePairs < 0:
		return LadderResult{}, fmt.Errorf("arena: ladder probe pairs = %d: want >= 1", opt.ProbePairs)
	case opt.Games < 2*opt.ProbePairs*n:
		return LadderResult{}, fmt.Errorf("arena: ladder games = %d: want at least %d (%d probe pairs against each of %d rungs)", opt.Games, 2*opt.ProbePairs*n, opt.ProbePairs, n)
	}
	totalPairs := opt.Games / 2
	openings, err := randomOpenings(totalPairs, l.OpeningPlies, seededRNG(l.Seed, 0x6c6164646572))
	if err != nil {
		return LadderResult{}, err
	}
	res := LadderResult{Player: p.Name(), Rungs: make([]RungResult, n)}
	ratings := make([]float64, n)
	for i, r := range l.Rungs {
		res.Rungs[i].Rung = r
		ratings[i] = r.Elo
	}
	next := 0 // next unused opening
	play := func(i, pairs int, phase uint64) error {
		rp, err := newRung(l.Rungs[i].Player)
		if err != nil {
			return fmt.Errorf("arena: ladder rung %d: %w", i+1, err)
		}
		defer Close(rp)
		mo := MatchOptions{
			Games: 2 * pairs, Parallel: opt.Parallel, Openings: openings[next : next+pairs],
			Seed: l.Seed ^ int64(splitmix(phase<<32|uint64(i))), MaxPlies: l.MaxPlies,
		}
		first := next
		next += pairs
		if opt.OnGame != nil {
			mo.OnGame = func(g GameResult) {
				g.Index += 2 * first
				opt.OnGame(i, g)
			}
		}
		m, err := Match(ctx, p, rp, mo)
		if err != nil {
			return err
		}
		res.Rungs[i].Pairs.Add(m.Pairs)
		res.Forfeits = res.Forfeits.plus(m.ForfeitsA)
		return nil
	}
	for i := range n {
		if err := play(i, opt.ProbePairs, 1); err != nil {
			return res, err
		}
	}
	results := func() []Pentanomial {
		out := make([]Pentanomial, n)
		for i := range n {
			out[i] = res.Rungs[i].Pairs
		}
		return out
	}
	probe, _, err := rateAgainst(ratings, results())
	if err != nil {
		return res, err
	}
	left := totalPairs - opt.ProbePairs*n
	if left > 0 {
		focus := focusRungs(ratings, probe)
		share := left / len(focus)
		extra := left - share*len(focus) // to the nearest rungs first
		for k, i := range focus {
			pairs := share
			if k < extra {
				pairs++
			}
			if pairs > 0 {
				if err := play(i, pairs, 2); err != nil {
					return res, err
				}
			}
		}
	}
	elo, se, err := rateAgainst(ratings, results())
	if err != nil {
		return res, err
	}
	res.Elo, res.StdErr = elo, se
	res.Low, res.High = elo-1.96*se, elo+1.96*se
	for i := range res.Rungs {
		res.Rungs[i].Expected = ExpectedScore(elo - ratings[i])
		res.Games += 2 * res.Rungs[i].Pairs.Pairs()
	}
	res.AboveTop = res.Rungs[n-1].Pairs.Score() >= 0.95
	res.BelowBottom = res.Rungs[0].Pairs.Score() <= 0.05
	return res, nil
}

// focusRungs returns the rungs whose expected score against a player rated
// elo is within [0.1, 0.9], or at least the two nearest, nearest first.
func focusRungs(ratings []float64, elo float64) []int {
	order := make([]int, len(ratings))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		return math.Abs(ratings[order[a]]-elo) < math.Abs(ratings[order[b]]-elo)
	})
	var out []int
	for _, i := range order {
		if e := ExpectedScore(elo - ratings[i]); e >= 0.1 && e <= 0.9 {
			out = append(out, i)
		}
	}
	for _, i := range order {
		if len(out) >= min(2, len(ratings)) {
			break
		}
		if !slices.Contains(out, i) {
			out = append(out, i)
		}
	}
	return out
}

// CalibrateOptions configures Calibrate.
type CalibrateOptions struct {
	Games        int   // games of each calibration match, even (default 100)
	Parallel     int   // games played at once (default 1)
	Seed         int64 // draws the openings (default 1)
	OpeningPlies int   // default DefaultOpeningPlies
	MaxPlies     int   // default DefaultMaxPlies
	// Span is how many rungs up each rung plays (default 2: its two
	// neighbours above), which links the ladder more than once.
	Span int
	// Anchor is the player rated 0 (default the first).
	Anchor string
	// OnMatch, when set, is called after each match.
	OnMatch func(MatchResult)
	// OnGame, when set, is called after each game.
	OnGame func(GameResult)
}

// Calibrate measures the ratings of the players (weakest first): every
// player plays the Span players above it, and fitRatings turns the results
// into ratings anchored at opt.Anchor. Rungs are then sorted by rating.
func Calibrate(ctx context.Context, players []string, factory PlayerFactory, opt CalibrateOptions) (*Ladder, error) {
	if opt.Games == 0 {
		opt.Games = 100
	}
	if opt.Seed == 0 {
		opt.Seed = 1
	}
	if opt.OpeningPlies == 0 {
		opt.OpeningPlies = DefaultOpeningPlies
	}
	if opt.MaxPlies == 0 {
		opt.MaxPlies = DefaultMaxPlies
	}
	if opt.Span == 0 {
		opt.Span = 2
	}
	if len(players) < 2 {
		return nil, errors.New("arena: calibrate: want at least two players")
	}
	if opt.Anchor == "" {
		opt.Anchor = players[0]
	}
	if !slices.Contains(players, opt.Anchor) {
		return nil, fmt.Errorf("arena: calibrate: anchor %q is not one of the players", opt.Anchor)
	}
	// Every player is made once before any game: a bad one, or one listed
	// twice (under any spelling of its spec), fails now, not hours in.
	seen := map[string]int{}
	for i, spec := range players {
		name, err := playerName(factory, spec)
		if err != nil {
			return nil, fmt.Errorf("arena: calibrate: %w", err)
		}
		if j, ok := seen[name]; ok {
			return nil, fmt.Errorf("arena: calibrate: players %d (%s) and %d (%s) are both %s: list each player once", j+1, players[j], i+1, spec, name)
		}
		seen[name] = i
	}
	l := &Ladder{Version: ladderVersion, Created: time.Now().UTC(), Anchor: opt.Anchor, Seed: opt.Seed, OpeningPlies: opt.OpeningPlies, MaxPlies: opt.MaxPlies}
	return calibrate(ctx, l, players, 0, factory, opt)
}

// calibrate plays the calibration matches of players that involve a
// player at index from or above (each plays the opt.Span players below
// it), adds them to l.Matches (the earlier players' matches, kept), fits
// every rating from all of l.Matches and sets l.Rungs, sorted by rating.
// The rungs of players below from keep their MoveMillis from l.Rungs.
func calibrate(ctx context.Context, l *Ladder, players []string, from int, factory PlayerFactory, opt CalibrateOptions) (*Ladder, error) {
	anchor := slices.Index(players, l.Anchor)
	if anchor < 0 {
		return nil, fmt.Errorf("arena: calibrate: anchor %q is not one of the players", l.Anchor)
	}
	index := make(map[string]int, len(players))
	for i, p := range players {
		index[p] = i
	}
	var pairings []pairing
	for _, m := range l.Matches {
		i, iok := index[m.A]
		j, jok := index[m.B]
		if !iok || !jok {
			return nil, fmt.Errorf("arena: calibrate: the ladder's match %s vs %s names a player that is not a rung", m.A, m.B)
		}
		pairings = append(pairings, pairing{I: i, J: j, Pairs: m.Pairs})
	}
	openings, err := randomOpenings(opt.Games/2, l.OpeningPlies, seededRNG(l.Seed, 0x63616c6962))
	if err != nil {
		return nil, err
	}
	timing := make([]struct {
		moves int
		dur   time.Duration
	}, len(players))
	for i := range players {
		for j := max(i+1, from); j <= i+opt.Span && j < len(players); j++ {
			a, err := factory(players[i])
			if err != nil {
				return nil, fmt.Errorf("arena: calibrate: %w", err)
			}
			b, err := factory(players[j])
			if err != nil {
				return nil, fmt.Errorf("arena: calibrate: %w", err)
			}
			ta, tb := &timedPlayer{Player: a}, &timedPlayer{Player: b}
			m, err := Match(ctx, ta, tb, MatchOptions{
				Games: opt.Games, Parallel: opt.Parallel, Openings: openings,
				Seed: l.Seed ^ int64(splitmix(uint64(i)<<32|uint64(j))), MaxPlies: l.MaxPlies, OnGame: opt.OnGame,
			})
			Close(a)
			Close(b)
			if err != nil {
				return nil, err
			}
			timing[i].moves += ta.moves
			timing[i].dur += ta.dur
			timing[j].moves += tb.moves
			timing[j].dur += tb.dur
			if opt.OnMatch != nil {
				opt.OnMatch(m)
			}
			pairings = append(pairings, pairing{I: i, J: j, Pairs: m.Pairs})
			l.Matches = append(l.Matches, LadderMatch{A: players[i], B: players[j], Pairs: m.Pairs})
		}
	}
	elo, se, err := fitRatings(len(players), anchor, pairings)
	if err != nil {
		return nil, err
	}
	old := make(map[string]float64, len(l.Rungs))
	for _, r := range l.Rungs {
		old[r.Player] = r.MoveMillis
	}
	l.Rungs = l.Rungs[:0:0]
	for i, p := range players {
		r := Rung{Player: p, Elo: math.Round(elo[i]*10) / 10, StdErr: math.Round(se[i]*10) / 10}
		switch {
		case i < from:
			r.MoveMillis = old[p]
		case timing[i].moves > 0:
			r.MoveMillis = math.Round(float64(timing[i].dur.Microseconds())/float64(timing[i].moves)) / 1000
		}
		l.Rungs = append(l.Rungs, r)
	}
	l.Rungs[anchor].Elo, l.Rungs[anchor].StdErr = 0, 0
	sort.SliceStable(l.Rungs, func(a, b int) bool { return l.Rungs[a].Elo < l.Rungs[b].Elo })
	return l, nil
}

// Extend returns a copy of l with the players add (weakest first) as new
// rungs above its own: each new player plays the opt.Span players below it
// (the strongest rungs of l and the new players before it), and every
// rating is fitted again from l's calibration matches and the new ones,
// so the old rungs move only as far as the new games tell about them.
// The openings, plies and anchor are l's; opt.Games may differ from the
// games of l's matches (the openings are then the first of the same
// draw). l itself is not changed.
func Extend(ctx context.Context, l *Ladder, add []string, factory PlayerFactory, opt CalibrateOptions) (*Ladder, error) {
	if opt.Games == 0 {
		opt.Games = 100
	}
	if opt.Span == 0 {
		opt.Span = 2
	}
	if len(add) == 0 {
		return nil, errors.New("arena: extend: no players to add")
	}
	players := l.Players()
	seen := map[string]string{}
	for _, spec := range players {
		name, err := playerName(factory, spec)
		if err != nil {
			return nil, fmt.Errorf("arena: extend: the ladder's rung: %w", err)
		}
		seen[name] = spec
	}
	for _, spec := range add {
		name, err := playerName(factory, spec)
		if err != nil {
			return nil, fmt.Errorf("arena: extend: %w", err)
		}
		if was, ok := seen[name]; ok {
			return nil, fmt.Errorf("arena: extend: %s is %s, already a rung (%s): add each player once", spec, name, was)
		}
		seen[name] = spec
		players = append(players, spec)
	}
	n := *l
	n.Created = time.Now().UTC()
	n.Revision = ""
	n.Checksum = ""
	n.Rungs = slices.Clone(l.Rungs)
	n.Matches = slices.Clone(l.Matches)
	return calibrate(ctx, &n, players, len(l.Rungs), factory, opt)
}

// playerName makes the player of spec, to check it before any game, and
// returns its name (one per player, whatever the spelling of its spec).
func playerName(factory PlayerFactory, spec string) (string, error) {
	p, err := factory(spec)
	if err != nil {
		return "", err
	}
	defer Close(p)
	return p.Name(), nil
}

// Close releases p where it holds resources (an io.Closer, see Player)
// and returns the error of its Close.
func Close(p Player) error {
	if c, ok := p.(interface{ Close() error }); ok {
		return c.Close()
	}
	return nil
}

// timedPlayer measures the time its games spend in Move, summed over
// games played from several goroutines.
type timedPlayer struct {
	Player
	mu    sync.Mutex
	moves int
	dur   time.Duration
}

func (t *timedPlayer) Start(ctx context.Context, g *rules.Game, rng *rand.Rand) (GamePlayer, error) {
	gp, err := t.Player.Start(ctx, g, rng)
	if err != nil {
		return nil, err
	}
	return &timedGame{GamePlayer: gp, t: t}, nil
}

type timedGame struct {
	GamePlayer
	t *timedPlayer
}

func (g *timedGame) Move(ctx context.Context, game *rules.Game) (rules.Move, error) {
	start := time.Now()
	m, err := g.GamePlayer.Move(ctx, game)
	d := time.Since(start)
	g.t.mu.Lock()
	g.t.moves++
	g.t.dur += d
	g.t.mu.Unlock()
	return m, err
}
