package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"dama/mcts"
	"dama/rules"
)

// DefaultVisits is the search size when Limits sets no limit at all.
const DefaultVisits = 800

// Limits bounds one search. Any combination may be given; the search stops
// at the first limit reached, or when its context is cancelled. With no
// limit set (and Infinite false) it searches DefaultVisits visits.
type Limits struct {
	Visits   int           // visits of the root (tree reuse included)
	Time     time.Duration // wall-clock budget
	Depth    int           // stop once the principal variation is this many plies long
	Infinite bool          // no limit: search until the context is cancelled or the tree is full
}

func (l Limits) unlimited() bool { return l.Visits <= 0 && l.Time <= 0 && l.Depth <= 0 }

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
	// InfoEvery is the least time between two progress reports (default 500ms).
	InfoEvery time.Duration
}

// NewSearcher returns a Searcher over ev. opt.Temperature is ignored: the
// engine always plays the most visited move.
func NewSearcher(ev mcts.Evaluator, opt mcts.Options) *Searcher {
	opt.Temperature = nil
	return &Searcher{search: mcts.New(ev, opt)}
}

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
	start := time.Now()
	sctx := ctx
	if lim.Time > 0 {
		var cancel context.CancelFunc
		sctx, cancel = context.WithTimeout(ctx, lim.Time)
		defer cancel()
	}
	every := s.InfoEvery
	if every <= 0 {
		every = 500 * time.Millisecond
	}
	var res mcts.Result
	base := -1 // root visits before this search (tree reuse)
	lastInfo := start
	chunk := 8
	for {
		next := res.RootVisits + chunk
		if lim.Visits > 0 {
			next = min(next, lim.Visits)
		}
		r, err := s.search.Run(sctx, g, mcts.Limit{Visits: max(next, 1)}, nil)
		if err != nil {
			if sctx.Err() == nil {
				return mcts.Result{}, err
			}
			break // stopped (cancelled or out of time) during a chunk
		}
		if base < 0 {
			base = r.RootVisits - r.Playouts
		}
		res = r
		if r.Forced || !r.Full || sctx.Err() != nil ||
			(lim.Visits > 0 && r.RootVisits >= lim.Visits) ||
			(lim.Depth > 0 && len(r.PV) >= lim.Depth) {
			break
		}
		chunk = min(2*chunk, 256)
		if info != nil && time.Since(lastInfo) >= every {
			lastInfo = time.Now()
			res.Playouts = res.RootVisits - base
			info(Info{Result: res, Elapsed: time.Since(start)})
		}
	}
	// A chunk cut short keeps its visits in the tree: read them back with a
	// visit target the root already has, so nothing more is searched (one
	// visit when the search was stopped before any).
	r, err := s.search.Run(context.Background(), g, mcts.Limit{Visits: max(1, res.RootVisits)}, nil)
	if err != nil {
		return mcts.Result{}, err
	}
	if base >= 0 {
		r.Playouts = r.RootVisits - base
	}
	if info != nil {
		info(Info{Result: r, Elapsed: time.Since(start), Final: true})
	}
	return r, nil
}

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
