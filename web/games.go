package web

import (
	"bytes"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"dama/rules"
	"dama/runfolder"
	"dama/selfplay"
)

// gameIndex knows the run's game chunks by number: a chunk gets the next
// number the first time a listing sees it, so ids stay the same while the
// server runs whatever files come. A game's id is "C-G": chunk number C,
// game G of that chunk. Chunk files are whole once renamed into games/ and
// never change, so their summaries are read once.
type gameIndex struct {
	run *runfolder.Run

	mu     sync.Mutex
	chunks []*chunkEntry
	byName map[string]int
	recent []*decoded // the last chunks decoded whole, newest last
}

type chunkEntry struct {
	name  string // file name in games/
	read  bool
	err   string
	games []gameSummary
}

type decoded struct {
	chunk int
	h     selfplay.Header
	games []*selfplay.Game
}

// maxDecoded is how many decoded chunks the index keeps for replays.
const maxDecoded = 4

type gameSummary struct {
	ID    string `json:"id"`
	Kind  string `json:"kind"`  // selfplay, arena or ladder
	Chunk string `json:"chunk"` // the file in games/ or generations/
	// Gen is, for a self-play game, the generation that trained on it (0:
	// waiting), for a match game the generation it gated or rated after.
	Gen    int    `json:"gen"`
	Model  string `json:"model,omitempty"` // self-play: the model that played
	White  string `json:"white,omitempty"` // a match game's players
	Black  string `json:"black,omitempty"`
	Plies  int    `json:"plies"`
	Result string `json:"result"` // PDN result
	Winner string `json:"winner"` // white, black or draw
	End    string `json:"end"`
}

// selfPlayKind is the kind of a self-play game in the listing; a match
// game's kind is its runfolder.MatchKind (arena, ladder).
const selfPlayKind = "selfplay"

func newGameIndex(run *runfolder.Run) *gameIndex {
	return &gameIndex{run: run, byName: map[string]int{}}
}

// scan numbers the chunk files not seen before, oldest first (by
// modification time, then name), so that numbers follow the run.
func (x *gameIndex) scan() error {
	files, err := selfplay.Chunks(x.run.Path(runfolder.GamesDir))
	if err != nil {
		return err
	}
	type found struct {
		name string
		mod  time.Time
	}
	var fresh []found
	x.mu.Lock()
	for _, f := range files {
		if _, ok := x.byName[filepath.Base(f)]; !ok {
			fresh = append(fresh, found{name: filepath.Base(f)})
		}
	}
	x.mu.Unlock()
	for i := range fresh {
		if st, err := os.Stat(x.run.Path(runfolder.GamesDir, fresh[i].name)); err == nil {
			fresh[i].mod = st.ModTime()
		}
	}
	sort.SliceStable(fresh, func(i, j int) bool { return fresh[i].mod.Before(fresh[j].mod) })
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, f := range fresh {
		if _, ok := x.byName[f.name]; !ok {
			x.byName[f.name] = len(x.chunks)
			x.chunks = append(x.chunks, &chunkEntry{name: f.name})
		}
	}
	return nil
}

// decode reads chunk c whole, from the recent ones when it is there.
func (x *gameIndex) decode(c int) (*decoded, error) {
	x.mu.Lock()
	if c < 0 || c >= len(x.chunks) {
		x.mu.Unlock()
		return nil, fmt.Errorf("no chunk %d (the run has %d)", c, len(x.chunks))
	}
	name := x.chunks[c].name
	for _, d := range x.recent {
		if d.chunk == c {
			x.mu.Unlock()
			return d, nil
		}
	}
	x.mu.Unlock()
	// The name came from the listing of games/, never from the request.
	h, games, err := selfplay.ReadFile(x.run.Path(runfolder.GamesDir, name))
	if err != nil {
		return nil, err
	}
	d := &decoded{chunk: c, h: h, games: games}
	x.mu.Lock()
	x.recent = append(x.recent, d)
	if len(x.recent) > maxDecoded {
		x.recent = x.recent[1:]
	}
	x.mu.Unlock()
	return d, nil
}

// maxReadPerList bounds the chunks one listing reads for the first time,
// so that the first listing of a long run is spread over requests instead
// of taking a core for minutes.
const maxReadPerList = 40

// list returns the summaries of the games, newest chunk first (the games
// of a chunk in order), from the chunks read before and at most
// maxReadPerList more; complete says that every chunk is in. gens maps
// chunk names to the generation that trains on them.
func (x *gameIndex) list(gens map[string]int) (out []gameSummary, problems []string, complete bool, err error) {
	if err := x.scan(); err != nil {
		return nil, nil, false, err
	}
	x.mu.Lock()
	n := len(x.chunks)
	x.mu.Unlock()
	problems = []string{}
	complete = true
	reads := 0
	for c := n - 1; c >= 0; c-- {
		x.mu.Lock()
		e := x.chunks[c]
		read := e.read
		x.mu.Unlock()
		if !read {
			if reads == maxReadPerList {
				complete = false
				continue
			}
			reads++
		}
		x.read(c)
		x.mu.Lock()
		msg, games := e.err, e.games
		x.mu.Unlock()
		if msg != "" {
			problems = append(problems, e.name+": "+msg)
			continue
		}
		for _, s := range games {
			s.Gen = gens[e.name]
			out = append(out, s)
		}
	}
	return out, problems, complete, nil
}

// read summarises chunk c's games the first time it is asked.
func (x *gameIndex) read(c int) *chunkEntry {
	x.mu.Lock()
	e := x.chunks[c]
	done := e.read
	x.mu.Unlock()
	if done {
		return e
	}
	d, err := x.decode(c)
	x.mu.Lock()
	defer x.mu.Unlock()
	if !e.read {
		e.read = true
		if err != nil {
			e.err = oneLine(err)
		} else {
			for i, g := range d.games {
				e.games = append(e.games, summarize(c, i, e.name, d.h.Model, g))
			}
		}
	}
	return e
}

func summarize(c, i int, name, model string, g *selfplay.Game) gameSummary {
	return gameSummary{
		ID: fmt.Sprintf("%d-%d", c, i), Kind: selfPlayKind, Chunk: name, Model: model, Plies: len(g.Plies),
		Result: g.Result.String(), Winner: winnerName(g.Result), End: g.End.String(),
	}
}

func winnerName(r rules.Result) string {
	if c, ok := r.Winner(); ok {
		return c.String()
	}
	if r == rules.Ongoing {
		return "unfinished"
	}
	return "draw"
}

// parseGameID reads "C-G".
func parseGameID(id string) (chunk, game int, err error) {
	a, b, ok := strings.Cut(id, "-")
	c, err1 := strconv.Atoi(a)
	g, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || c < 0 || g < 0 || len(id) > 24 {
		return 0, 0, fmt.Errorf("game id %q: want CHUNK-GAME, two numbers from the games list", id)
	}
	return c, g, nil
}

// game finds a game by id.
func (x *gameIndex) game(id string) (*selfplay.Game, *decoded, error) {
	c, i, err := parseGameID(id)
	if err != nil {
		return nil, nil, err
	}
	if err := x.scan(); err != nil {
		return nil, nil, err
	}
	d, err := x.decode(c)
	if err != nil {
		return nil, nil, err
	}
	if i >= len(d.games) {
		return nil, nil, fmt.Errorf("game id %q: chunk %d has %d games", id, c, len(d.games))
	}
	return d.games[i], d, nil
}

// chunkGens maps each chunk a plan takes to the generation that trains on
// it (the generation running now included).
func chunkGens(run *runfolder.Run) (map[string]int, error) {
	plans, err := run.Plans(run.NextGeneration())
	if err != nil {
		return nil, err
	}
	m := map[string]int{}
	for _, p := range plans {
		for _, c := range p.Chunks {
			m[c.Name] = p.Gen
		}
	}
	return m, nil
}

// maxListed bounds the games one listing returns.
const maxListed = 500

// handleGames lists games, newest first (see mergeGames): ?kind=selfplay|arena|ladder,
// ?gen=N (self-play: the generation that trains on it, 0: waiting; a
// match: the generation it gated or rated after), ?result=white|black|draw,
// ?min=PLIES, ?max=PLIES, ?offset=N, ?limit=N (at most maxListed). The
// counts are of the files read so far (complete: all of them; see
// maxReadPerList and maxMatchReadsPerList).
func (s *Server) handleGames(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	intParam := func(name string, def, lo, hi int) (int, bool) {
		v := q.Get(name)
		if v == "" {
			return def, true
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < lo || n > hi {
			httpError(w, http.StatusBadRequest, fmt.Sprintf("%s=%q: want an integer in %d..%d", name, v, lo, hi))
			return 0, false
		}
		return n, true
	}
	gen, ok := intParam("gen", -1, -1, 1<<30)
	if !ok {
		return
	}
	minP, ok := intParam("min", 0, 0, 1<<20)
	if !ok {
		return
	}
	maxP, ok := intParam("max", 1<<20, 0, 1<<20)
	if !ok {
		return
	}
	offset, ok := intParam("offset", 0, 0, 1<<30)
	if !ok {
		return
	}
	limit, ok := intParam("limit", 100, 1, maxListed)
	if !ok {
		return
	}
	result := q.Get("result")
	switch result {
	case "", "white", "black", "draw":
	default:
		httpError(w, http.StatusBadRequest, fmt.Sprintf("result=%q: want white, black or draw", result))
		return
	}
	kind := q.Get("kind")
	switch kind {
	case "", selfPlayKind, string(runfolder.ArenaGames), string(runfolder.LadderGames):
	default:
		httpError(w, http.StatusBadRequest, fmt.Sprintf("kind=%q: want selfplay, arena or ladder", kind))
		return
	}
	gens, err := chunkGens(s.opt.Run)
	if err != nil {
		httpError(w, http.StatusInternalServerError, oneLine(err))
		return
	}
	self, problems, complete, err := s.games.list(gens)
	if err != nil {
		httpError(w, http.StatusInternalServerError, oneLine(err))
		return
	}
	matches, mproblems, mgens, mcomplete, err := s.matches.list()
	if err != nil {
		httpError(w, http.StatusInternalServerError, oneLine(err))
		return
	}
	all := mergeGames(self, matches)
	var match []gameSummary
	genSet := map[int]bool{0: true}
	for _, g := range gens {
		genSet[g] = true
	}
	for _, g := range mgens {
		genSet[g] = true
	}
	for _, g := range all {
		if (kind != "" && g.Kind != kind) || (gen >= 0 && g.Gen != gen) || (result != "" && g.Winner != result) || g.Plies < minP || g.Plies > maxP {
			continue
		}
		match = append(match, g)
	}
	gensSeen := []int{}
	for g := range genSet {
		gensSeen = append(gensSeen, g)
	}
	sort.Ints(gensSeen)
	page := []gameSummary{}
	if offset < len(match) {
		page = match[offset:min(len(match), offset+limit)]
	}
	writeJSON(w, map[string]any{
		"total": len(all), "matched": len(match), "complete": complete && mcomplete, "games": page,
		"gens": gensSeen, "problems": append(problems, mproblems...),
	})
}

// mergeGames puts the self-play games (newest chunk first) and the match
// games (newest generation first) in one list, newest first by the order
// of the run: the waiting self-play games, then for each generation from
// the last its ladder rating, its gating match and the self-play games it
// trained on. Each part keeps its own order.
func mergeGames(self, matches []gameSummary) []gameSummary {
	out := make([]gameSummary, 0, len(self)+len(matches))
	out = append(append(out, self...), matches...)
	gen := func(g gameSummary) int {
		if g.Kind == selfPlayKind && g.Gen == 0 {
			return math.MaxInt // waiting: played after every generation done
		}
		return g.Gen
	}
	rank := map[string]int{string(runfolder.LadderGames): 0, string(runfolder.ArenaGames): 1, selfPlayKind: 2}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if ga, gb := gen(a), gen(b); ga != gb {
			return ga > gb
		}
		return rank[a.Kind] < rank[b.Kind]
	})
	return out
}

// plyView is one ply of a replay: the move played, the position after it,
// and the search's values and top moves where the file has them (a
// self-play chunk; the PDN of a match keeps the moves only).
type plyView struct {
	Move     string      `json:"move"`
	Path     []int       `json:"path"`
	Captured []int       `json:"captured"`
	Side     string      `json:"side"` // who played it
	Board    string      `json:"board"`
	WDL      *[3]float32 `json:"wdl,omitempty"` // for the side to move before the move
	Full     bool        `json:"full,omitempty"`
	Top      []topMove   `json:"top,omitempty"`
}

// movePly is the ply of move m from position p, without search values.
func movePly(p rules.Position, m rules.Move) plyView {
	return plyView{Move: m.String(), Path: squares(m.Path()), Captured: squares(m.Captured().Squares()),
		Side: p.Side().String(), Board: boardString(p.Play(m))}
}

type topMove struct {
	Move   string  `json:"move"`
	Visits uint32  `json:"visits"`
	Share  float64 `json:"share"`
	Policy float32 `json:"policy,omitempty"`
}

// topShown is how many moves of each ply the replay lists.
const topShown = 5

func (s *Server) handleGame(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("id")
	if isMatchID(id) {
		s.handleMatchGame(w, id)
		return
	}
	g, d, err := s.games.game(id)
	if err != nil {
		httpError(w, http.StatusNotFound, oneLine(err))
		return
	}
	plies := make([]plyView, len(g.Plies))
	for i, p := range g.Plies {
		v := movePly(p.Pos, p.Played())
		v.WDL, v.Full = &p.WDL, p.Full
		var total uint32
		for _, n := range p.Visits {
			total += n
		}
		order := make([]int, len(p.Legal))
		for k := range order {
			order[k] = k
		}
		sort.SliceStable(order, func(a, b int) bool { return p.Visits[order[a]] > p.Visits[order[b]] })
		for _, k := range order[:min(topShown, len(order))] {
			t := topMove{Move: p.Legal[k].String(), Visits: p.Visits[k]}
			if total > 0 {
				t.Share = float64(p.Visits[k]) / float64(total)
			}
			if p.Policy != nil {
				t.Policy = p.Policy[k]
			}
			v.Top = append(v.Top, t)
		}
		plies[i] = v
	}
	writeJSON(w, map[string]any{
		"id": id, "kind": selfPlayKind, "stats": true,
		"chunk": s.games.chunkName(d.chunk), "model": d.h.Model, "seed": strconv.FormatUint(g.Seed, 10),
		"start": boardString(g.Start), "start_fen": g.Start.FEN(), "start_side": g.Start.Side().String(),
		"result": g.Result.String(), "winner": winnerName(g.Result), "end": g.End.String(), "plies": plies,
	})
}

func (x *gameIndex) chunkName(c int) string {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.chunks[c].name
}

func (s *Server) handleGamePDN(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("id")
	if isMatchID(id) {
		s.handleMatchGamePDN(w, id)
		return
	}
	g, d, err := s.games.game(id)
	if err != nil {
		httpError(w, http.StatusNotFound, oneLine(err))
		return
	}
	rec := g.Record(rules.Tag{Name: "Chunk", Value: s.games.chunkName(d.chunk)}, rules.Tag{Name: "Model", Value: d.h.Model})
	var buf bytes.Buffer
	if err := rules.WritePDN(&buf, rec); err != nil {
		httpError(w, http.StatusInternalServerError, oneLine(err))
		return
	}
	servePDN(w, "dama-game-"+id+".pdn", buf.Bytes())
}

// boardString writes a position as 32 characters, square 1 first: w and b
// for men, W and B for kings, '.' for an empty square.
func boardString(p rules.Position) string {
	b := make([]byte, rules.NumSquares)
	for s := rules.Square(1); s <= rules.NumSquares; s++ {
		c := byte('.')
		switch p.At(s) {
		case rules.WhiteMan:
			c = 'w'
		case rules.WhiteKing:
			c = 'W'
		case rules.BlackMan:
			c = 'b'
		case rules.BlackKing:
			c = 'B'
		}
		b[s-1] = c
	}
	return string(b)
}

func squares(ss []rules.Square) []int {
	out := make([]int, len(ss))
	for i, s := range ss {
		out[i] = int(s)
	}
	return out
}
