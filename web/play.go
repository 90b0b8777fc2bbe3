package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"dama/checkpoints"
	"dama/engine"
	"dama/mcts"
	"dama/model"
	"dama/model/infer"
	"dama/player"
	"dama/rules"
	"dama/runfolder"
)

// Networks the play board offers besides the run's checkpoints.
const (
	ShippedModel = "shipped" // the model built into the binary
	RandomModel  = "random"  // a uniform evaluator, no network
	BestModel    = "best"    // the run's best model now
)

// enginePool keeps the networks the boards use open, a few at a time.
type enginePool struct {
	run *runfolder.Run

	mu   sync.Mutex
	nets map[string]*openNet
	used int // counter for least recently used
}

type openNet struct {
	ev    mcts.Evaluator
	close func()
	name  string
	users int
	last  int
}

// maxOpenNets is how many networks stay open while no search uses them.
const maxOpenNets = 3

func newEnginePool(run *runfolder.Run) *enginePool {
	return &enginePool{run: run, nets: map[string]*openNet{}}
}

// models lists the ids the play board may name: the shipped model, the
// uniform evaluator, the run's best, then every checkpoint of the run.
func (p *enginePool) models() []string {
	out := []string{ShippedModel, RandomModel}
	if _, err := p.run.BestPath(); err == nil {
		out = append(out, BestModel)
	}
	for _, sub := range []string{runfolder.AcceptedDir, runfolder.RejectedDir, runfolder.CandidatesDir} {
		gens, err := p.run.Generations(sub)
		if err != nil {
			continue
		}
		sort.Sort(sort.Reverse(sort.IntSlice(gens)))
		for _, g := range gens {
			out = append(out, sub+"/"+runfolder.CandidateName(g))
		}
	}
	return out
}

// path returns the checkpoint file of a listed id, built from the listing,
// not from the request.
func (p *enginePool) path(id string) (string, error) {
	if id == BestModel {
		return p.run.BestPath()
	}
	for _, m := range p.models() {
		if m == id {
			sub, name, _ := strings.Cut(m, "/")
			return p.run.Path(sub, name), nil
		}
	}
	return "", fmt.Errorf("model %q: not one of the run's checkpoints (see /api/models)", id)
}

// get opens (or finds open) the network id; release gives it back.
func (p *enginePool) get(id string) (*openNet, func(), error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	n, ok := p.nets[id]
	if !ok {
		var err error
		if n, err = p.open(id); err != nil {
			return nil, nil, err
		}
		p.nets[id] = n
		p.evict()
	}
	n.users++
	p.used++
	n.last = p.used
	return n, func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		n.users--
		p.evict()
	}, nil
}

// evict closes the least recently used idle networks past maxOpenNets.
func (p *enginePool) evict() {
	for len(p.nets) > maxOpenNets {
		victim := ""
		for id, n := range p.nets {
			if n.users == 0 && (victim == "" || n.last < p.nets[victim].last) {
				victim = id
			}
		}
		if victim == "" {
			return
		}
		p.nets[victim].close()
		delete(p.nets, victim)
	}
}

func (p *enginePool) open(id string) (*openNet, error) {
	var ck *model.Checkpoint
	var err error
	switch id {
	case RandomModel:
		return &openNet{ev: engine.Uniform{}, close: func() {}, name: "uniform evaluator (no network)"}, nil
	case ShippedModel:
		ck, err = checkpoints.Shipped()
	default:
		var path string
		if path, err = p.path(id); err == nil {
			ck, err = model.Load(path)
		}
	}
	if err != nil {
		return nil, err
	}
	ev, err := infer.OpenEvaluator(ck.Net, infer.EvaluatorOptions{MaxBatch: 8, CacheSize: 1 << 16})
	if err != nil {
		return nil, err
	}
	return &openNet{ev: ev, close: ev.Close, name: fmt.Sprintf("%s (%s, step %d)", id, ck.Net.Config, ck.Step)}, nil
}

func (p *enginePool) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for id, n := range p.nets {
		n.close()
		delete(p.nets, id)
	}
}

func (s *Server) handleModels(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, map[string]any{"models": s.eng.models(), "max_visits": s.opt.MaxVisits, "max_ms": s.opt.MaxSearch.Milliseconds()})
}

// gameRequest is a game the browser holds: a start position and the moves
// played since, in FID notation. The server replays them with rules.
type gameRequest struct {
	Start  string   `json:"start"` // FEN; "" is the start position
	Moves  []string `json:"moves"`
	Model  string   `json:"model"`
	Visits int      `json:"visits"`
	MS     int      `json:"ms"` // time per search in milliseconds; 0: MaxSearch
	Top    int      `json:"top"`
	// LeftMS and IncMS are the engine's clock (api/engine): it plans its
	// time by them (engine.Limits.Left, Inc) instead of MS, within
	// MaxSearch. DrawOffer asks it whether it takes a draw.
	LeftMS    int  `json:"left_ms"`
	IncMS     int  `json:"inc_ms"`
	DrawOffer bool `json:"draw_offer"`
	// Variations, Result and Reason are api/pdn's: the board's move tree
	// and a result the rules did not give (boardResults).
	Variations []variationRequest `json:"variations"`
	Result     string             `json:"result"`
	Reason     string             `json:"reason"`
}

// maxRequest bounds the bytes of a request body, maxMoves its moves.
const (
	maxRequest = 64 << 10
	maxMoves   = 1000
)

// readGame decodes a request and replays its game, each move checked by
// rules.ParseMove.
func readGame(w http.ResponseWriter, r *http.Request) (*gameRequest, *rules.Game, bool) {
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct != "application/json" {
		httpError(w, http.StatusUnsupportedMediaType, "want a JSON body (Content-Type: application/json)")
		return nil, nil, false
	}
	tooLarge := func() {
		httpError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("request body: more than %d bytes (%d KiB), the most a request may send", maxRequest, maxRequest>>10))
	}
	if r.ContentLength > maxRequest {
		tooLarge() // refused before reading any of it
		return nil, nil, false
	}
	var req gameRequest
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxRequest))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			tooLarge()
			return nil, nil, false
		}
		httpError(w, http.StatusBadRequest, "request body: "+oneLine(err))
		return nil, nil, false
	}
	g, err := gameOf(&req)
	if err != nil {
		httpError(w, http.StatusBadRequest, oneLine(err))
		return nil, nil, false
	}
	return &req, g, true
}

// gameOf replays a request's game, each move checked by rules.ParseMove;
// an error names the field or the move.
func gameOf(req *gameRequest) (*rules.Game, error) {
	if len(req.Moves) > maxMoves {
		return nil, fmt.Errorf("%d moves: at most %d", len(req.Moves), maxMoves)
	}
	start := rules.Start()
	if req.Start != "" {
		var err error
		if start, err = rules.ParseFEN(req.Start); err != nil {
			return nil, fmt.Errorf("start: %s", oneLine(err))
		}
	}
	g := rules.NewGame(start)
	for i, text := range req.Moves {
		if o := g.Outcome(); o.Over() {
			return nil, fmt.Errorf("move %d %q: the game is over (%s, %s)", i+1, text, o.Result, o.Reason)
		}
		m, err := rules.ParseMove(g.Position(), text)
		if err != nil {
			return nil, fmt.Errorf("move %d %q: %s", i+1, text, oneLine(err))
		}
		g.PlayUnchecked(m)
	}
	return g, nil
}

// positionView is a game's current position and its legal moves.
type positionView struct {
	FEN    string     `json:"fen"`
	Board  string     `json:"board"`
	Side   string     `json:"side"`
	Moves  []string   `json:"moves"` // the game's moves in full notation
	Legal  []moveView `json:"legal"`
	Last   *moveView  `json:"last,omitempty"` // the last move played
	Over   bool       `json:"over"`
	Result string     `json:"result,omitempty"`
	Reason string     `json:"reason,omitempty"`
	TB     *tbView    `json:"tb,omitempty"` // the endgame tables' verdict, where they are loaded and hold the position
}

type moveView struct {
	Move     string `json:"move"`
	Path     []int  `json:"path"`
	Captured []int  `json:"captured"`
}

func viewMove(m rules.Move) moveView {
	return moveView{Move: m.String(), Path: squares(m.Path()), Captured: squares(m.Captured().Squares())}
}

func viewGame(g *rules.Game) positionView {
	p := g.Position()
	v := positionView{FEN: p.FEN(), Board: boardString(p), Side: p.Side().String(), Moves: []string{}, Legal: []moveView{}}
	for _, m := range g.Moves() {
		v.Moves = append(v.Moves, m.String())
	}
	if ms := g.Moves(); len(ms) > 0 {
		last := viewMove(ms[len(ms)-1])
		v.Last = &last
	}
	if o := g.Outcome(); o.Over() {
		v.Over, v.Result, v.Reason = true, o.Result.String(), o.Reason.String()
		return v
	}
	for _, m := range g.Legal(nil) {
		v.Legal = append(v.Legal, viewMove(m))
	}
	return v
}

// handlePosition checks a game and returns its position and legal moves.
func (s *Server) handlePosition(w http.ResponseWriter, r *http.Request) {
	_, g, ok := readGame(w, r)
	if !ok {
		return
	}
	v := viewGame(g)
	v.TB = tablesVerdict(s.opt.Tables, g)
	writeJSON(w, v)
}

// searchSetup checks a search request, takes the client's search slot and
// opens the network; done releases both.
func (s *Server) searchSetup(w http.ResponseWriter, r *http.Request, req *gameRequest, g *rules.Game) (*openNet, engine.Limits, func(), bool) {
	if o := g.Outcome(); o.Over() {
		httpError(w, http.StatusBadRequest, fmt.Sprintf("the game is over (%s, %s)", o.Result, o.Reason))
		return nil, engine.Limits{}, nil, false
	}
	if req.Visits < 0 || req.Visits > s.opt.MaxVisits {
		httpError(w, http.StatusBadRequest, fmt.Sprintf("visits %d: want 0..%d (0: by time)", req.Visits, s.opt.MaxVisits))
		return nil, engine.Limits{}, nil, false
	}
	maxMS := int(s.opt.MaxSearch.Milliseconds())
	if req.MS < 0 || req.MS > maxMS {
		httpError(w, http.StatusBadRequest, fmt.Sprintf("ms %d: want 0..%d (0: the cap)", req.MS, maxMS))
		return nil, engine.Limits{}, nil, false
	}
	lim := engine.Limits{Visits: req.Visits, Time: s.opt.MaxSearch}
	if req.MS > 0 {
		lim.Time = time.Duration(req.MS) * time.Millisecond
	}
	if req.LeftMS < 0 || req.LeftMS > maxClockMS || req.IncMS < 0 || req.IncMS > maxClockMS {
		httpError(w, http.StatusBadRequest, fmt.Sprintf("left_ms %d, inc_ms %d: want 0..%d", req.LeftMS, req.IncMS, maxClockMS))
		return nil, engine.Limits{}, nil, false
	}
	if req.LeftMS > 0 { // the clock's plan, cut at MaxSearch by the search's context
		lim.Time, lim.Left, lim.Inc = 0, time.Duration(req.LeftMS)*time.Millisecond, time.Duration(req.IncMS)*time.Millisecond
	}
	client := clientID(r)
	s.mu.Lock()
	if s.busy[client] {
		s.mu.Unlock()
		httpError(w, http.StatusTooManyRequests, "a search of yours is running: one at a time")
		return nil, engine.Limits{}, nil, false
	}
	select {
	case s.sem <- struct{}{}:
	default:
		s.mu.Unlock()
		httpError(w, http.StatusServiceUnavailable, "the server is searching for others: try again shortly")
		return nil, engine.Limits{}, nil, false
	}
	s.busy[client] = true
	s.mu.Unlock()
	free := func() {
		s.mu.Lock()
		delete(s.busy, client)
		<-s.sem
		s.mu.Unlock()
	}
	if req.Model == "" {
		req.Model = ShippedModel
	}
	n, release, err := s.eng.get(req.Model)
	if err != nil {
		free()
		httpError(w, http.StatusBadRequest, oneLine(err))
		return nil, engine.Limits{}, nil, false
	}
	return n, lim, func() { release(); free() }, true
}

// playSearch returns the play board's search over ev: the engine's
// (player.Engine, as dama play searches, its hybrids included) in a 64 MB
// tree.
func playSearch(ev mcts.Evaluator) (mcts.Evaluator, mcts.Options, error) {
	s := player.Engine()
	s.TreeMB = 64
	opt := s.Options()
	ev, _, err := s.Hybrids.Apply(&opt, ev)
	return ev, opt, err
}

// boardSearch is a search request of the play board, read and admitted:
// its game, network, limits and search; done releases it.
type boardSearch struct {
	req  *gameRequest
	g    *rules.Game
	net  *openNet
	lim  engine.Limits
	ev   mcts.Evaluator
	opt  mcts.Options
	ctx  context.Context
	done func()
}

// boardSearch reads and admits a search request of the play board; on
// false it has answered the request with the error.
func (s *Server) boardSearch(w http.ResponseWriter, r *http.Request) (*boardSearch, bool) {
	req, g, ok := readGame(w, r)
	if !ok {
		return nil, false
	}
	n, lim, release, ok := s.searchSetup(w, r, req, g)
	if !ok {
		return nil, false
	}
	ev, opt, err := playSearch(n.ev)
	if err != nil {
		release()
		httpError(w, http.StatusInternalServerError, "search: "+oneLine(err))
		return nil, false
	}
	cut := s.opt.MaxSearch + 5*time.Second
	if lim.Left > 0 {
		cut = s.opt.MaxSearch
	}
	ctx, cancel := context.WithTimeout(r.Context(), cut)
	return &boardSearch{req: req, g: g, net: n, lim: lim, ev: ev, opt: opt, ctx: ctx, done: func() { cancel(); release() }}, true
}

// handleEngine plays the engine's move in the game.
func (s *Server) handleEngine(w http.ResponseWriter, r *http.Request) {
	b, ok := s.boardSearch(w, r)
	if !ok {
		return
	}
	defer b.done()
	n, g := b.net, b.g
	start := time.Now()
	res, err := engine.NewSearcher(b.ev, b.opt).Think(b.ctx, g, b.lim, nil)
	if err != nil {
		httpError(w, http.StatusInternalServerError, "search: "+oneLine(err))
		return
	}
	el := time.Since(start)
	if b.req.DrawOffer && acceptsDraw(res.WDL) {
		writeJSON(w, map[string]any{"draw": "accepted", "visits": res.RootVisits, "wdl": res.WDL, "ms": el.Milliseconds(), "model": n.name, "position": viewGame(g)})
		return
	}
	if err := g.Play(res.Move); err != nil { // rules checks the engine too
		httpError(w, http.StatusInternalServerError, "engine move: "+oneLine(err))
		return
	}
	out := map[string]any{
		"move": res.Move.String(), "visits": res.RootVisits, "wdl": res.WDL, "ms": el.Milliseconds(),
		"model": n.name, "position": viewGame(g),
	}
	if b.req.DrawOffer {
		out["draw"] = "declined"
	}
	writeJSON(w, out)
}

// maxClockMS bounds a clock's time left and increment: a day.
const maxClockMS = 24 * 3600 * 1000

// acceptsDraw is the engine's answer to a draw offer, from its search's
// W/D/L (for the engine, to move): it takes the draw unless it expects
// more than drawRefuseScore (win + draw/2).
func acceptsDraw(wdl [3]float32) bool {
	return float64(wdl[0])+float64(wdl[1])/2 <= drawRefuseScore
}

// drawRefuseScore is the expected score above which the engine plays on.
const drawRefuseScore = 0.55

// handleAnalyze analyses the game's position: the network's value and
// priors, the search's moves and principal variation.
func (s *Server) handleAnalyze(w http.ResponseWriter, r *http.Request) {
	b, ok := s.boardSearch(w, r)
	if !ok {
		return
	}
	defer b.done()
	req, n, g := b.req, b.net, b.g
	a, err := engine.Analyze(b.ctx, b.ev, g, b.lim, b.opt)
	if err != nil {
		httpError(w, http.StatusInternalServerError, "analysis: "+oneLine(err))
		return
	}
	top := req.Top
	if top <= 0 || top > len(a.Priors) {
		top = min(10, len(a.Priors))
	}
	type prior struct {
		Move  string  `json:"move"`
		Prior float32 `json:"prior"`
	}
	type searched struct {
		Move   string  `json:"move"`
		Visits int     `json:"visits"`
		Q      float32 `json:"q"`
		Prior  float32 `json:"prior"`
	}
	type pvStep struct {
		Move   string  `json:"move"`
		Visits int     `json:"visits"`
		Q      float32 `json:"q"`
	}
	priors := []prior{}
	for _, mp := range a.Priors[:top] {
		priors = append(priors, prior{mp.Move.String(), mp.Prior})
	}
	res := a.Search
	order := make([]int, len(res.Moves))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return res.Visits[order[i]] > res.Visits[order[j]] })
	moves := []searched{}
	for _, i := range order[:min(top, len(order))] {
		moves = append(moves, searched{res.Moves[i].String(), res.Visits[i], res.Q[i], res.Priors[i]})
	}
	pv := []pvStep{}
	for _, st := range a.PV {
		pv = append(pv, pvStep{st.Move.String(), st.Visits, st.Q})
	}
	writeJSON(w, map[string]any{
		"fen": a.Position.FEN(), "side": a.Position.Side().String(), "model": n.name,
		"net_wdl": a.WDL, "priors": priors, "search_wdl": res.WDL, "visits": res.RootVisits,
		"moves": moves, "pv": pv, "best": res.Move.String(), "ms": a.Elapsed.Milliseconds(),
	})
}

// clientHeader names the page's client id: a random id each page makes,
// so that one page runs one search at a time.
const clientHeader = "X-Dama-Client"

var clientIDPattern = regexp.MustCompile(`^[A-Za-z0-9]{8,64}$`)

// clientID is the page's id (the header, or for an event stream, which
// sends no headers, ?client=), or without a valid one the remote host.
func clientID(r *http.Request) string {
	if id := r.Header.Get(clientHeader); clientIDPattern.MatchString(id) {
		return "id:" + id
	}
	if id := r.URL.Query().Get("client"); clientIDPattern.MatchString(id) {
		return "id:" + id
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	return "host:" + host
}

func writeJSON(w http.ResponseWriter, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		httpError(w, http.StatusInternalServerError, oneLine(err))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(append(b, '\n'))
}
