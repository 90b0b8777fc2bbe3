package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"time"

	"dama/mcts"
	"dama/rules"
	"dama/tb"
)

// DefaultVisits is the search size when Limits sets no limit at all.
const DefaultVisits = 800

// Limits bounds one search. Any combination may be given; the search stops
// at the first limit reached, or when its context is cancelled. With no
// limit set (and Infinite false) it searches DefaultVisits visits.
type Limits struct {
	Visits int           // visits of the root (tree reuse included)
	Time   time.Duration // fixed time for the move, kept with a safety margin (timeMargin)
	// Left, Inc and MovesToGo are a game clock (used when Time is 0): the
	// time left to the side to move, its increment per move and the moves
	// to the next time control (0: sudden death). The search plans its
	// time (planMove) and spends more on critical moves (timeman.go).
	Left      time.Duration
	Inc       time.Duration
	MovesToGo int
	// Depth asks for the search effort of an alpha-beta search of that
	// depth: 25·2^(Depth/2) root visits (depthVisits).
	Depth    int
	Infinite bool // no limit: search until the context is cancelled
	// WholeTime spends all of Time, keeping no margin: for matches at
	// equal time (arena), where a late answer loses nothing.
	WholeTime bool
	// Start is when the clock started (default: when Think starts); the
	// Hub engine sets it when the go command arrives.
	Start time.Time
}

// PlayPolicyTemperature is the temperature of the network's priors in the
// engine's search (docs/rating.md#tuning-the-search-for-play): flatter
// priors won +95 Elo head to head at 1600 visits and +96 at 200.
const PlayPolicyTemperature = 1.8

// SearchDefaults returns the search the engine plays with unless told
// otherwise (hub, play, analyze and the web's play board): the standard
// first-play urgency, four leaves a step, forced moves passed and the
// priors flattened by PlayPolicyTemperature; one thread, the default
// tree.
func SearchDefaults() mcts.Options {
	return mcts.Options{
		FPUReduction:      mcts.StandardFPUReduction,
		Parallel:          4,
		PassForced:        true,
		PolicyTemperature: PlayPolicyTemperature,
	}
}

// Bounds of the tree memory setting (tree-mb, --tree-mb) in MB.
const (
	MinTreeMB = 1
	MaxTreeMB = 1 << 20
)

// MaxThreads bounds the search threads (mcts.Options.Threads) of the
// engine commands and the Hub's threads param.
const MaxThreads = 256

// CheckThreads checks a number of search threads: outside 1..MaxThreads
// is an error; above the machine's cores is allowed, with a warning for
// people (empty when there is none).
func CheckThreads(n int) (warning string, err error) {
	if n < 1 || n > MaxThreads {
		return "", fmt.Errorf("%d threads: want 1..%d", n, MaxThreads)
	}
	if c := runtime.NumCPU(); n > c {
		return fmt.Sprintf("%d search threads on %d cores: the threads share cores, so each searches slower and the search is no stronger", n, c), nil
	}
	return "", nil
}

// TreeNodes is the node cap (mcts.Options.MaxNodes) of a tree of mb MB:
// the tree and the copy made when its root moves, mcts.NodeBytes each per node.
func TreeNodes(mb int) int {
	return max(mb*(1<<20)/(2*mcts.NodeBytes), 1<<10)
}

// TreeMB is the memory in MB of a tree capped at maxNodes nodes (0: the
// default cap), the inverse of TreeNodes.
func TreeMB(maxNodes int) int {
	if maxNodes <= 0 {
		maxNodes = mcts.DefaultMaxNodes
	}
	return max((maxNodes*2*mcts.NodeBytes+(1<<20)-1)>>20, MinTreeMB)
}

// depthVisits is the visit count that level depth=d stands for: 25·2^(d/2)
// root visits (d=10: 800, d=16: 6 400, d=20: 25 600). Each two plies of
// depth double the search, like an alpha-beta search with an effective
// branching factor of √2, and d=10 is the default search of DefaultVisits.
// It is at least 1 and at most 2^30.
func depthVisits(d int) int {
	v := 25 * math.Pow(2, float64(d)/2)
	return int(math.Round(min(max(v, 1), 1<<30)))
}

// timeMargin is what a search given t keeps back for the last evaluation,
// the answer and a loaded machine: a tenth of t plus 10ms, at most a
// second and at most a quarter of t.
func timeMargin(t time.Duration) time.Duration {
	return min(t/10+10*time.Millisecond, time.Second, t/4)
}

// scoreMen maps an expected result q = W-L in [-1, 1] for the side to move
// to the score Hub clients read, in men: tan(1.5·q). An edge of 0.3 reads
// as about half a man, 0.6 as 1.3 men, 0.9 as 4.4 men and a certain win
// (q=1) as 14.1 men.
func scoreMen(q float32) float64 {
	return math.Tan(1.5 * min(max(float64(q), -1), 1))
}

func (l Limits) unlimited() bool {
	return l.Visits <= 0 && l.Time <= 0 && l.Left <= 0 && l.Depth <= 0
}

// String describes the limits, e.g. "visits 800, time 1.5s".
func (l Limits) String() string {
	var s string
	add := func(x string) {
		if s != "" {
			s += ", "
		}
		s += x
	}
	if l.Visits > 0 {
		add(fmt.Sprintf("visits %d", l.Visits))
	}
	if l.Time > 0 {
		add("time " + l.Time.String())
	}
	if l.Left > 0 {
		c := "clock " + l.Left.String()
		if l.Inc > 0 {
			c += " + " + l.Inc.String()
		}
		if l.MovesToGo > 0 {
			c += fmt.Sprintf(" for %d moves", l.MovesToGo)
		}
		add(c)
	}
	if l.Depth > 0 {
		add(fmt.Sprintf("depth %d", l.Depth))
	}
	if l.Infinite {
		add("infinite")
	}
	if s == "" {
		s = fmt.Sprintf("visits %d (default)", DefaultVisits)
	}
	return s
}

// Info is a progress report of a search.
type Info struct {
	Result  mcts.Result   // the root statistics so far
	Elapsed time.Duration // since the search started
	Final   bool          // the last report, sent just before Think returns
}

// Depth returns the length of the principal variation.
func (i Info) Depth() int { return len(i.Result.PV) }

// NodesPerSecond returns the playouts of this search per second.
func (i Info) NodesPerSecond() float64 {
	if i.Elapsed <= 0 {
		return 0
	}
	return float64(i.Result.Playouts) / i.Elapsed.Seconds()
}

// Searcher runs MCTS searches with one evaluator, keeping the tree between
// searches of the same game. It is not safe for concurrent use; the Hub
// engine runs one search at a time.
type Searcher struct {
	search *mcts.Search
	ev     mcts.Evaluator
	tables *tb.Tables // the oracle's endgame tables, whose moves it plays
	// InfoEvery is the least time between two progress reports (default 500ms).
	InfoEvery time.Duration
	// Clock tells the time of the deadlines (nil: the wall clock). With
	// another clock, time limits are kept between batches only: no
	// context deadline cuts a batch in flight.
	Clock Clock
}

// NewSearcher returns a Searcher over ev (with opt.Threads > 1, over its
// batch view: forThreads). opt.Temperature is ignored: the
// engine always plays the most visited move. A tree that reaches
// opt.MaxNodes stops growing and the search goes on
// (mcts.Options.KeepSearchingWhenFull), so that an infinite analysis runs
// until it is stopped. With endgame tables as its oracle (opt.Oracle a
// tb.Oracle, alone or in an mcts.Oracles), a position in the tables is played by them: Think returns a
// move that keeps the table value (tb.Tables.Choose), the search's own
// choice when it is one.
func NewSearcher(ev mcts.Evaluator, opt mcts.Options) *Searcher {
	opt.Temperature = nil
	opt.KeepSearchingWhenFull = true
	s := &Searcher{search: mcts.New(forThreads(ev, opt.Threads), opt), ev: ev}
	s.tables = tb.TablesOf(opt.Oracle)
	return s
}

// forThreads returns the evaluator of a search with threads threads: with
// more than one, the batch view of an evaluator that offers one
// (infer.Evaluator.BatchEvaluator), so that each thread runs its own
// forward passes; else ev. One thread keeps ev as it is (a batcher
// goroutine, whose wait a deadline cuts short).
func forThreads(ev mcts.Evaluator, threads int) mcts.Evaluator {
	if b, ok := ev.(interface{ BatchEvaluator() mcts.BatchEvaluator }); ok && threads > 1 {
		return b.BatchEvaluator()
	}
	return ev
}

// Lines returns the top n lines of the tree (mcts.Search.Lines) as the
// last search left it; an info callback of Think may call it between the
// steps of a search.
func (s *Searcher) Lines(n int) []mcts.Line { return s.search.Lines(n) }

// Reset drops the search tree (a new game).
func (s *Searcher) Reset() { s.search.Reset() }

// Think searches the current position of g within lim and returns the root
// statistics; Result.Move is the move to play. Cancelling ctx stops the
// search early and returns what it found so far (not an error). info, if
// not nil, receives progress reports from the calling goroutine, the last
// one with Final set. The game must not be over.
func (s *Searcher) Think(ctx context.Context, g *rules.Game, lim Limits, info func(Info)) (mcts.Result, error) {
	if o := g.Outcome(); o.Over() {
		return mcts.Result{}, fmt.Errorf("engine: the game is over (%s, %s)", o.Result, o.Reason)
	}
	if lim.unlimited() && !lim.Infinite {
		lim.Visits = DefaultVisits
	}
	if lim.Depth > 0 {
		if v := depthVisits(lim.Depth); lim.Visits <= 0 || v < lim.Visits {
			lim.Visits = v
		}
	}
	clock := s.Clock
	if clock == nil {
		clock = realClock{}
	}
	start := clock.Now()
	if !lim.Start.IsZero() && lim.Start.Before(start) {
		start = lim.Start
	}
	tp := plan(lim, start)
	sctx := ctx
	if tp.timed() && s.Clock == nil {
		// A batch in flight at the hard deadline is cut short.
		var cancel context.CancelFunc
		sctx, cancel = context.WithDeadline(ctx, tp.hard)
		defer cancel()
	}
	every := s.InfoEvery
	if every <= 0 {
		every = 500 * time.Millisecond
	}
	var res mcts.Result
	base, based := 0, false // root visits before this search (tree reuse)
	lastInfo := start
	chunk := 8
	deadline := tp.soft
	st := stability{best: -1}
	for {
		next := res.RootVisits + chunk
		if lim.Visits > 0 {
			next = min(next, lim.Visits)
		}
		r, err := s.search.Run(sctx, g, mcts.Limit{Visits: max(next, 1), Deadline: deadline, Clock: clock.Now}, nil)
		if err != nil {
			if sctx.Err() == nil {
				return mcts.Result{}, err
			}
			break // stopped (cancelled or out of time) during a chunk
		}
		if !based {
			base, based = r.RootVisits-r.Playouts, true
		}
		res = r
		if r.Forced {
			if err := s.evaluateForced(ctx, g, &r); err != nil {
				return mcts.Result{}, err
			}
			if info != nil {
				info(Info{Result: r, Elapsed: clock.Now().Sub(start), Final: true})
			}
			return r, nil
		}
		now := clock.Now()
		st.observe(r, now)
		if sctx.Err() != nil || (lim.Visits > 0 && r.RootVisits >= lim.Visits) {
			break
		}
		if !r.Full {
			// The deadline came (the tree never fills: the Searcher's
			// search keeps searching when full). A critical move gets
			// more time, up to the hard cap.
			if !tp.timed() || !deadline.Before(tp.hard) || !st.isCritical(start, now) {
				break
			}
			deadline = deadline.Add(tp.extend)
			if deadline.After(tp.hard) {
				deadline = tp.hard
			}
		}
		if lim.Visits <= 0 && r.RootVisits >= halveAt {
			// A search that runs until stopped: make room in the visit
			// counters, keeping the count of this search's playouts.
			played := r.RootVisits - base
			s.search.HalveVisits()
			res.RootVisits = (r.RootVisits + 1) / 2
			base = res.RootVisits - played
		}
		chunk = min(2*chunk, 256)
		if info != nil && now.Sub(lastInfo) >= every {
			lastInfo = now
			res.Playouts = res.RootVisits - base
			info(Info{Result: res, Elapsed: now.Sub(start)})
		}
	}
	// A chunk cut short keeps its visits in the tree: read them back with a
	// visit target the root already has, so nothing more is searched (one
	// visit when the search was stopped before any).
	r, err := s.search.Run(context.Background(), g, mcts.Limit{Visits: max(1, res.RootVisits)}, nil)
	if err != nil {
		return mcts.Result{}, err
	}
	if based {
		r.Playouts = r.RootVisits - base
	}
	if m := PlayedMove(g, r.Move, s.tables); m != r.Move {
		r.Move, r.PV = m, []rules.Move{m}
	}
	if info != nil {
		info(Info{Result: r, Elapsed: clock.Now().Sub(start), Final: true})
	}
	return r, nil
}

// PlayedMove returns the move to play in g after a search chose m (the
// one rule of every player of a search): in a position of the endgame
// tables, a move that keeps their value (tb.Tables.Choose, m itself when
// it does); elsewhere, or with tables nil, m.
func PlayedMove(g *rules.Game, m rules.Move, tables *tb.Tables) rules.Move {
	if tables != nil {
		if t, _, ok := tables.Choose(g, m); ok {
			return t
		}
	}
	return m
}

// evaluateForced fills the value of a forced move's result, which the tree
// search returns without evaluating anything, from one evaluation of the
// position.
func (s *Searcher) evaluateForced(ctx context.Context, g *rules.Game, r *mcts.Result) error {
	p := g.Position()
	q := mcts.Query{Pos: p, Legal: p.Legal(nil), Repetitions: g.Repetitions(), QuietPlies: g.QuietPlies()}
	e := mcts.Evaluation{Priors: make([]float32, len(q.Legal))}
	if err := s.ev.Evaluate(context.WithoutCancel(ctx), q, &e); err != nil {
		return fmt.Errorf("engine: evaluating a forced move's position: %w", err)
	}
	w, d, l := e.WDL[0], e.WDL[1], e.WDL[2]
	if t := w + d + l; t > 0 {
		w, d, l = w/t, d/t, l/t
	}
	r.WDL = [3]float32{w, d, l}
	r.Value = w - l
	return nil
}

// halveAt is the root visit count at which a search without a visit limit
// halves the tree's visits (mcts.Search.HalveVisits), so that it never
// meets mcts.MaxRootVisits; a variable for tests.
var halveAt = mcts.MaxRootVisits / 2

// Uniform is an evaluator without knowledge: every legal move gets the same
// prior and every position the value of a certain draw. With it the search
// is a plain Monte Carlo tree search guided only by game ends.
type Uniform struct{}

// Evaluate implements mcts.Evaluator.
func (Uniform) Evaluate(ctx context.Context, q mcts.Query, e *mcts.Evaluation) error {
	if len(q.Legal) == 0 {
		return errors.New("engine: uniform evaluator asked about a position without legal moves")
	}
	if cap(e.Priors) >= len(q.Legal) {
		e.Priors = e.Priors[:len(q.Legal)]
	} else {
		e.Priors = make([]float32, len(q.Legal))
	}
	p := 1 / float32(len(q.Legal))
	for i := range e.Priors {
		e.Priors[i] = p
	}
	e.WDL = [3]float32{0, 1, 0}
	return nil
}
