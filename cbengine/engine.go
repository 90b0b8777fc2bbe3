package cbengine

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"dama/checkerboard"
	"dama/engine"
	"dama/mcts"
	"dama/model"
	"dama/player"
	"dama/rules"
)

// Engine is dama's engine as CheckerBoard drives it: one GetMove at a
// time (a second waits for the first), Command at any time. Its settings
// (Command's set) apply from the next GetMove on.
type Engine struct {
	// Version is the engine's version in its name ("dev" if empty).
	Version string
	// InfoEvery is the least time between two search lines written to
	// GetMove's status while it searches (default 250ms).
	InfoEvery time.Duration

	smu      sync.Mutex // guards the settings, changed and netName
	settings settings
	changed  bool   // the settings changed since the network was opened
	netName  string // the network open, for people; "" before the first
	preload  atomic.Bool

	mu       sync.Mutex // one GetMove at a time; guards what follows
	net      *player.Network
	key      netKey // what net was opened with
	searcher *engine.Searcher
	game     *rules.Game // the game so far; its position is the last one seen or played
}

// settings are what Command sets.
type settings struct {
	spec   player.Spec // the network and its search (player.Engine)
	visits int         // visits a move beside the time; 0: the time alone
	ck     *model.Checkpoint
}

// New returns an engine with the shipped model and the engine's search
// (player.Engine), as dama hub plays; the network is opened by the first
// GetMove.
func New() *Engine {
	return &Engine{settings: settings{spec: player.Spec{Model: player.Shipped, Search: player.Engine()}}, changed: true}
}

// Close releases the network.
func (e *Engine) Close() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.net != nil {
		e.net.Close()
		e.net, e.searcher = nil, nil
	}
}

// netKey is what the network depends on: a change of it opens the
// network again, one of the search's settings alone only makes a new
// searcher.
type netKey struct {
	model, backend, tables string
	ck                     *model.Checkpoint
}

func (st settings) netKey() netKey {
	return netKey{st.spec.Model, st.spec.Backend, st.spec.Search.Tables, st.ck}
}

// open (re)opens the network and the searcher where the settings changed.
// It holds e.mu.
func (e *Engine) open() (settings, error) {
	e.smu.Lock()
	st, changed := e.settings, e.changed
	e.changed = false
	e.smu.Unlock()
	if !changed && e.searcher != nil {
		return st, nil
	}
	fail := func(err error) (settings, error) {
		e.smu.Lock()
		e.changed = true // try again at the next move
		e.smu.Unlock()
		return st, err
	}
	if st.ck == nil && st.spec.Model != player.Random {
		ck, err := player.LoadModel(st.spec.Model)
		if err != nil {
			return fail(err)
		}
		st.ck = ck
		e.smu.Lock()
		if e.settings.spec.Model == st.spec.Model && e.settings.ck == nil {
			e.settings.ck = ck // loaded once
		}
		e.smu.Unlock()
	}
	spec := st.spec
	spec.Checkpoint = st.ck
	if e.net == nil || e.key != st.netKey() {
		n, err := spec.Open(player.Env{Cache: player.DefaultCache})
		if err != nil {
			return fail(err)
		}
		if e.net != nil {
			e.net.Close()
		}
		e.net, e.key = n, st.netKey()
		e.smu.Lock()
		e.netName = n.Name
		e.smu.Unlock()
	} else if err := spec.Search.Check(); err != nil {
		return fail(err)
	}
	opt := e.net.Options
	opt.Threads = spec.Search.Threads
	opt.MaxNodes = spec.Search.Options().MaxNodes
	e.searcher = engine.NewSearcher(e.net.Evaluator, opt)
	return st, nil
}

// Preload opens the network in the background, so that the first move
// does not wait for it (CheckerBoard loads the engine well before it asks
// for a move), and again after each set of Command; an error is left for
// GetMove to report.
func (e *Engine) Preload() {
	e.preload.Store(true)
	go func() {
		e.mu.Lock()
		defer e.mu.Unlock()
		e.open()
	}()
}

// follow makes p, with its side to move, the current position of the
// game: the same position; a position after one legal move of the
// current one (the opponent's reply to the engine's move); an earlier
// position of the game (moves taken back); otherwise, or with reset, a
// new game from p.
func (e *Engine) follow(p rules.Position, reset bool) {
	g := e.game
	if reset || g == nil {
		e.newGame(p)
		return
	}
	cur := g.Position()
	if cur == p {
		return
	}
	for _, m := range cur.Legal(nil) {
		if cur.Play(m) == p {
			g.PlayUnchecked(m)
			return
		}
	}
	for i := g.Ply() - 1; i >= 0; i-- {
		if g.PositionAt(i) == p {
			for g.Ply() > i {
				g.Undo()
			}
			return
		}
	}
	e.newGame(p)
}

// newGame starts a game from p.
func (e *Engine) newGame(p rules.Position) {
	e.game = rules.NewGame(p)
	if e.searcher != nil {
		e.searcher.Reset()
	}
}

// Limits returns the limits of a search that CheckerBoard gives maxtime
// seconds with info and moreinfo: with incremental time on ((info>>2)&3
// the unit: 1 ms, 10 ms or 100 ms), a clock of moreinfo's upper 16 bits
// left and its lower 16 bits of increment, planned by the engine's time
// management; else maxtime for the move, all of it with InfoExactTime,
// else kept with the engine's safety margin. visits (0: none) caps the
// search too. Without a time (maxtime <= 0 or not a number) and without
// visits the search takes engine.DefaultVisits.
func Limits(maxtime float64, info, moreinfo int, visits int) engine.Limits {
	l := engine.Limits{Visits: max(visits, 0)}
	if unit := (info >> 2) & 3; unit != 0 {
		u := [...]time.Duration{1: time.Millisecond, 2: 10 * time.Millisecond, 3: 100 * time.Millisecond}[unit]
		mi := uint32(moreinfo)
		l.Left = max(time.Duration(mi>>16)*u, time.Millisecond) // a flag fallen: a move at once
		l.Inc = time.Duration(mi&0xffff) * u
		return l
	}
	if maxtime > 0 && !math.IsInf(maxtime, 0) {
		l.Time = time.Duration(min(maxtime, player.MaxFlagTime) * float64(time.Second))
		l.WholeTime = info&checkerboard.InfoExactTime != 0
	}
	return l
}

// playNowPoll is how often GetMove polls playnow while it searches.
const playNowPoll = time.Millisecond

// GetMove is getmove: it searches b with color to move and the time that
// maxtime, info and moreinfo give (Limits), writes the position after its
// move to b and the move to mv, and returns its verdict on the game for
// color (ResultWin, ResultDraw or ResultLoss where it is proven: by the
// move, which ends the game, by the rules, by the endgame tables or a
// proof of the search; else ResultUnknown). playnow (nil: never) is polled
// while it searches: once it reports true the search stops and the best
// move so far is played. status (nil: none) receives a search line while
// it searches and the last one before GetMove returns: depth (the
// principal variation's length), visits, value, W/D/L, time, speed and
// the principal variation; or what is wrong.
//
// A move's time counts from when the network is open (Preload opens it
// ahead), a clock's from the call.
//
// With InfoResetMoves in info, or a position that does not follow the
// game so far (follow), a new game starts from b, so that repetitions and
// the 40-move rule count from there. A board that is no position, or a
// position without a legal move for color, leaves b as it was and mv
// zero, and returns ResultUnknown (ResultLoss without a legal move).
func (e *Engine) GetMove(b *checkerboard.Board, color int, maxtime float64, info, moreinfo int, playnow func() bool, status func(string), mv *checkerboard.Move) int {
	start := time.Now()
	if status == nil {
		status = func(string) {}
	}
	*mv = checkerboard.Move{}
	e.mu.Lock()
	defer e.mu.Unlock()
	p, err := b.Position(color)
	if err != nil {
		status("dama: " + err.Error())
		return checkerboard.ResultUnknown
	}
	if !p.HasMoves() {
		status("dama: no legal move for " + p.Side().String())
		return checkerboard.ResultLoss
	}
	st, err := e.open()
	if err != nil {
		status("dama: " + err.Error())
		return checkerboard.ResultUnknown
	}
	e.follow(p, info&checkerboard.InfoResetMoves != 0)
	g, drawn := e.game, false
	if e.game.Outcome().Over() {
		// Drawn already (repetition, 40 moves) though CheckerBoard plays
		// on: search the position afresh and say so.
		g, drawn = rules.NewGame(p), true
	}
	lim := Limits(maxtime, info, moreinfo, st.visits)
	if lim.Left > 0 {
		lim.Start = start // the clock ran while the network opened
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if playnow != nil {
		done := make(chan struct{})
		defer close(done)
		go watch(playnow, cancel, done)
	}
	e.searcher.InfoEvery = e.InfoEvery
	if e.searcher.InfoEvery <= 0 {
		e.searcher.InfoEvery = 250 * time.Millisecond
	}
	res, err := e.searcher.Think(ctx, g, lim, func(i engine.Info) { status(Line(i)) })
	if err != nil {
		status("dama: " + err.Error())
		return checkerboard.ResultUnknown
	}
	m := res.Move
	*mv = checkerboard.MoveOf(p, m)
	if drawn {
		e.newGame(p.Play(m))
	} else {
		e.game.PlayUnchecked(m)
	}
	*b = checkerboard.BoardOf(p.Play(m))
	switch o := e.game.Outcome(); {
	case drawn:
		return checkerboard.ResultDraw
	case o.Result == rules.Draw:
		return checkerboard.ResultDraw
	case o.Over():
		if w, ok := o.Result.Winner(); ok && w == p.Side() {
			return checkerboard.ResultWin
		}
		return checkerboard.ResultLoss
	}
	switch res.Proof {
	case mcts.ProofWin:
		return checkerboard.ResultWin
	case mcts.ProofDraw:
		return checkerboard.ResultDraw
	case mcts.ProofLoss:
		return checkerboard.ResultLoss
	}
	return checkerboard.ResultUnknown
}

// watch calls cancel once playnow reports true, polling it every
// playNowPoll until done is closed.
func watch(playnow func() bool, cancel context.CancelFunc, done <-chan struct{}) {
	t := time.NewTicker(playNowPoll)
	defer t.Stop()
	for {
		if playnow() {
			cancel()
			return
		}
		select {
		case <-done:
			return
		case <-t.C:
		}
	}
}

// Line is the search line of a progress report of a search:
// "depth 9 visits 1234 value +0.21 W 38% D 45% L 17% time 1.20s 1028 v/s
// pv 22-18 10-14 ...", the value W-L for the side to move.
func Line(i engine.Info) string {
	r := i.Result
	var b strings.Builder
	fmt.Fprintf(&b, "depth %d visits %d value %+.2f W %.0f%% D %.0f%% L %.0f%% time %.2fs %.0f v/s",
		i.Depth(), r.RootVisits, r.Value, 100*r.WDL[0], 100*r.WDL[1], 100*r.WDL[2], i.Elapsed.Seconds(), i.NodesPerSecond())
	if r.Proof != mcts.ProofNone {
		fmt.Fprintf(&b, " proven %s", r.Proof)
	}
	pv := r.PV
	if len(pv) == 0 && r.Move != (rules.Move{}) {
		pv = []rules.Move{r.Move}
	}
	if len(pv) > 0 {
		b.WriteString(" pv")
		for _, m := range pv {
			b.WriteString(" " + m.String())
		}
	}
	return b.String()
}

// IsLegal is islegal: whether from-to (FID squares 1..32) is a legal move
// of color on b; a capture names its start and end, and where several
// captures join them, the first in the rules' order is the one described
// in mv. b is left as it is.
func (e *Engine) IsLegal(b *checkerboard.Board, color, from, to int, mv *checkerboard.Move) bool {
	*mv = checkerboard.Move{}
	p, err := b.Position(color)
	if err != nil {
		return false
	}
	for _, m := range p.Legal(nil) {
		if int(m.From()) == from && int(m.To()) == to {
			*mv = checkerboard.MoveOf(p, m)
			return true
		}
	}
	return false
}
