package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"dama/engine"
	"dama/mcts"
	"dama/rules"
	"dama/tb"
)

// The analysis board's continuous analysis: GET /api/analysis streams the
// search of one position as it grows (server-sent events, one every
// analysisEvery), until the client goes away (the page closes the stream
// when the position changes or on Stop), the same client starts another
// analysis, the server closes, or the search reaches its cap
// (Options.AnalysisTime, Options.AnalysisVisits). The last event says
// why it ended and carries the id "done": a browser that reconnects on
// its own sends that id back and gets 204, which ends its retries, so a
// tab left open costs nothing once its analysis is done.

// analysisEvery is the least time between two events of an analysis.
const analysisEvery = 400 * time.Millisecond

// maxLines bounds the lines (multi-PV) one analysis sends.
const maxLines = 10

// Why an analysis ended.
const (
	endVisits  = "visits cap"
	endTime    = "time cap"
	endStopped = "stopped"
	endFull    = "tree full"
	endOver    = "game over"
	endForced  = "one legal move"
)

// lineView is one line of an analysis: the root move's squares (for its
// arrow), its statistics for the side to move and its principal
// variation.
type lineView struct {
	Moves  []string   `json:"moves"`
	Path   []int      `json:"path"`
	Visits int        `json:"visits"`
	WDL    [3]float32 `json:"wdl"`
	Proof  string     `json:"proof,omitempty"`
}

// analysisView is one event of an analysis; WDL and the lines' W/D/L are
// for the side to move.
type analysisView struct {
	FEN      string     `json:"fen"`
	Side     string     `json:"side"`
	Model    string     `json:"model"`
	Visits   int        `json:"visits"`
	Playouts int        `json:"playouts"`
	MS       int64      `json:"ms"`
	NPS      float64    `json:"nps"`
	WDL      [3]float32 `json:"wdl"`
	Lines    []lineView `json:"lines"`
	TB       *tbView    `json:"tb,omitempty"`
	Done     bool       `json:"done"`
	Why      string     `json:"why,omitempty"`
	Result   string     `json:"result,omitempty"` // a game over: its result and reason
	Reason   string     `json:"reason,omitempty"`
}

// tbView is the endgame tables' verdict on a position: its value for the
// side to move at the game's 40-move counter, and each move's.
type tbView struct {
	Value  string       `json:"value"`
	Entry  string       `json:"entry"`
	Moves  []tbMoveView `json:"moves"`
	Repeat bool         `json:"repeat,omitempty"` // the position occurred before: a repetition the tables do not see may draw it
}

type tbMoveView struct {
	Move  string `json:"move"`
	Value string `json:"value"` // for the side that plays it
	Dist  int    `json:"dist"`
}

// tablesVerdict probes the tables for the game's position; nil without
// tables, or for a position they do not hold.
func tablesVerdict(t *tb.Tables, g *rules.Game) *tbView {
	if t == nil || g.Outcome().Over() {
		return nil
	}
	p := g.Position()
	if !t.Has(p) {
		return nil
	}
	e, err := t.Probe(p)
	if err != nil {
		return nil
	}
	v, moves, err := t.Moves(p, g.QuietPlies())
	if err != nil {
		return nil
	}
	out := &tbView{Value: v.String(), Entry: e.String(), Moves: []tbMoveView{}, Repeat: g.Repetitions() > 0}
	for _, m := range moves {
		out.Moves = append(out.Moves, tbMoveView{Move: m.Move.String(), Value: m.Value.String(), Dist: m.Dist})
	}
	return out
}

// queryGame reads a game from a GET request's query: start (a FEN), moves
// (FID moves separated by spaces or commas) and model.
func queryGame(r *http.Request) (*gameRequest, *rules.Game, error) {
	q := r.URL.Query()
	req := &gameRequest{Start: q.Get("start"), Model: q.Get("model")}
	req.Moves = strings.FieldsFunc(q.Get("moves"), func(c rune) bool { return c == ' ' || c == ',' })
	g, err := gameOf(req)
	return req, g, err
}

// intQuery reads an integer parameter in lo..hi, def where absent.
func intQuery(r *http.Request, name string, def, lo, hi int) (int, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("%s %q: want a whole number in %d..%d", name, v, lo, hi)
	}
	return n, nil
}

// sseStream writes server-sent events; a write that fails (the client
// went away) cancels the stream's context.
type sseStream struct {
	w      http.ResponseWriter
	fl     http.Flusher
	cancel context.CancelFunc
}

func startStream(w http.ResponseWriter, cancel context.CancelFunc) (*sseStream, bool) {
	fl, ok := w.(http.Flusher)
	if !ok {
		httpError(w, http.StatusInternalServerError, "streaming not supported")
		return nil, false
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fl.Flush()
	return &sseStream{w: w, fl: fl, cancel: cancel}, true
}

// send writes one event (with an id when id is not empty).
func (s *sseStream) send(event, id string, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(map[string]string{"error": oneLine(err)})
	}
	if id != "" {
		_, err = fmt.Fprintf(s.w, "id: %s\n", id)
	}
	if err == nil {
		_, err = fmt.Fprintf(s.w, "event: %s\ndata: %s\n\n", event, b)
	}
	if err != nil {
		s.cancel()
		return
	}
	s.fl.Flush()
}

// doneID is the id of an analysis's last event.
const doneID = "done"

// analysisSlot takes the search slot of a stream of the client (key):
// a stream of the same key running already is stopped first, and past
// Options.Analyses streams over all clients the request is refused. done
// gives the slot back.
func (s *Server) analysisSlot(key string) (ctx context.Context, done func(), err error) {
	s.mu.Lock()
	if old, ok := s.streams[key]; ok {
		old.cancel()
		s.mu.Unlock()
		select {
		case <-old.done:
		case <-time.After(5 * time.Second):
			return nil, nil, fmt.Errorf("an analysis of yours is still stopping: try again shortly")
		}
		s.mu.Lock()
	}
	select {
	case s.asem <- struct{}{}:
	default:
		s.mu.Unlock()
		return nil, nil, fmt.Errorf("%d analyses are running for others: try again shortly", cap(s.asem))
	}
	ctx, cancel := context.WithCancel(s.ctx)
	st := &stream{cancel: cancel, done: make(chan struct{})}
	s.streams[key] = st
	s.mu.Unlock()
	return ctx, func() {
		cancel()
		s.mu.Lock()
		if s.streams[key] == st {
			delete(s.streams, key)
		}
		<-s.asem
		s.mu.Unlock()
		close(st.done)
	}, nil
}

// stream is a running analysis or evaluation of a client.
type stream struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// handleAnalysis streams the analysis of a position: ?start=FEN&moves=...
// &model=ID&lines=N (1..maxLines, default 3)&client=ID.
func (s *Server) handleAnalysis(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Last-Event-ID") == doneID {
		w.WriteHeader(http.StatusNoContent) // a browser's retry after the end: no more
		return
	}
	req, g, err := queryGame(r)
	if err != nil {
		httpError(w, http.StatusBadRequest, oneLine(err))
		return
	}
	nlines, err := intQuery(r, "lines", 3, 1, maxLines)
	if err != nil {
		httpError(w, http.StatusBadRequest, err.Error())
		return
	}
	p := g.Position()
	view := analysisView{FEN: p.FEN(), Side: p.Side().String(), Lines: []lineView{}, TB: tablesVerdict(s.opt.Tables, g)}
	if o := g.Outcome(); o.Over() {
		st, ok := startStream(w, func() {})
		if ok {
			view.Done, view.Why, view.Result, view.Reason = true, endOver, o.Result.String(), o.Reason.String()
			st.send("analysis", doneID, view)
		}
		return
	}
	ctx, n, ev, opt, done, ok := s.slotSearch(w, clientID(r), req.Model)
	if !ok {
		return
	}
	defer done()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(r.Context(), cancel) // the client went away
	defer stop()
	st, ok := startStream(w, cancel)
	if !ok {
		return
	}
	view.Model = n.name
	opt.MaxNodes = engine.TreeNodes(s.opt.AnalysisTreeMB)
	full := false
	sr := engine.NewSearcher(ev, opt)
	sr.InfoEvery = analysisEvery
	lim := engine.Limits{Visits: s.opt.AnalysisVisits, Time: s.opt.AnalysisTime}
	fill := func(i engine.Info) {
		res := i.Result
		view.Visits, view.Playouts, view.MS, view.NPS = res.RootVisits, res.Playouts, i.Elapsed.Milliseconds(), i.NodesPerSecond()
		view.WDL = res.WDL
		view.Lines = linesView(res, sr.Lines(nlines))
	}
	res, err := sr.Think(ctx, g, lim, func(i engine.Info) {
		if i.Final {
			fill(i) // sent below, with why it ended
			return
		}
		fill(i)
		st.send("analysis", "", view)
		if i.Result.TreeFull {
			full = true
			cancel()
		}
	})
	view.Done = true
	switch {
	case err != nil:
		view.Why = "error: " + oneLine(err)
	case res.Forced:
		view.Why = endForced
	case full:
		view.Why = endFull
	case ctx.Err() != nil:
		view.Why = endStopped
	case res.RootVisits >= lim.Visits:
		view.Why = endVisits
	default:
		view.Why = endTime
	}
	st.send("analysis", doneID, view)
}

// linesView shows the lines of a search; without lines (a forced move,
// returned without search) the search's own move.
func linesView(res mcts.Result, lines []mcts.Line) []lineView {
	if len(lines) == 0 && len(res.PV) > 0 {
		lines = []mcts.Line{{Moves: res.PV, Visits: res.RootVisits, WDL: res.WDL, Proof: res.Proof}}
	}
	out := make([]lineView, 0, len(lines))
	for _, l := range lines {
		v := lineView{Visits: l.Visits, WDL: l.WDL, Path: squares(l.Moves[0].Path())}
		if l.Proof != mcts.ProofNone {
			v.Proof = l.Proof.String()
		}
		for _, m := range l.Moves {
			v.Moves = append(v.Moves, m.String())
		}
		out = append(out, v)
	}
	return out
}

// slotSearch takes a slot of the boards' searches for key (analysisSlot)
// and the network model names (the shipped model for ""), searched as the
// boards search (playSearch). On an error it answers the request and ok
// is false; done releases the network and the slot.
func (s *Server) slotSearch(w http.ResponseWriter, key, model string) (ctx context.Context, n *openNet, ev mcts.Evaluator, opt mcts.Options, done func(), ok bool) {
	ctx, free, err := s.analysisSlot(key)
	if err != nil {
		httpError(w, http.StatusServiceUnavailable, err.Error())
		return nil, nil, nil, opt, nil, false
	}
	if model == "" {
		model = ShippedModel
	}
	n, release, err := s.eng.get(model)
	if err != nil {
		free()
		httpError(w, http.StatusBadRequest, oneLine(err))
		return nil, nil, nil, opt, nil, false
	}
	if ev, opt, err = playSearch(n.ev); err != nil {
		release()
		free()
		httpError(w, http.StatusInternalServerError, "search: "+oneLine(err))
		return nil, nil, nil, opt, nil, false
	}
	return ctx, n, ev, opt, func() { release(); free() }, true
}
