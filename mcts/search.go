package mcts

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"dama/rules"
)

// Values. Every value in this package is from the point of view of the side
// to move at the node it describes and lies in [-1, 1]: the expected score
// W + D/2 of an Evaluation mapped linearly, that is W - L. A draw is 0, a
// win +1, a loss -1. Draw probabilities are carried alongside so that a root
// WDL can be reported: W = (1+Q-D)/2, L = (1-Q-D)/2.

// Errors returned by Run.
var (
	// ErrGameOver means the game handed to Run is already decided (by the
	// rules, an adjudication, or the length cap of Options.MaxPlies).
	ErrGameOver = errors.New("mcts: game is over")
	// ErrNoLimit means Run was given neither visits nor a context deadline.
	ErrNoLimit = errors.New("mcts: no visit count and no deadline")
)

// Search is a PUCT tree search for one game at a time. It keeps its tree
// between moves of a game (see Run and Advance). A Search is not safe for
// concurrent use; run many Searches, one per game, sharing one Evaluator.
type Search struct {
	ev  Evaluator
	bev BatchEvaluator // ev, when it evaluates whole batches; nil otherwise
	opt Options

	nodes []node // the tree; the root is nodes[0]
	spare []node // the other arena, for compaction

	// The root's game state.
	valid     bool
	rootPos   rules.Position
	rootPly   int
	rootQuiet int
	hist      []rules.Position // positions since the last irreversible move, root last

	clean  []float32 // the root's priors before noise
	noised bool
	frozen bool // the tree is full: leaves are evaluated but not expanded

	leaves   []leaf
	pool     *evalPool        // helpers of the current Run that evaluate leaves 1.. of a batch
	batch    batchScratch     // the calling goroutine's BatchEvaluator arguments
	workers  []worker         // the workers of Options.Threads > 1 beyond the calling goroutine
	stepTime time.Duration    // mean wall time of a batch, for Limit.Deadline
	stepDev  time.Duration    // its mean deviation
	stack    []rules.Position // hist, then the selection path: repetitions compare whole positions, which is exact
	path     []int32
	legal    []rules.Move
	proved   int // leaves Options.Oracle proved in the current Run
}

// New returns a Search that asks ev for evaluations.
func New(ev Evaluator, opt Options) *Search {
	o := opt.withDefaults()
	positive(&o.Threads, 1)
	bev, _ := ev.(BatchEvaluator)
	return &Search{ev: ev, bev: bev, opt: o, legal: make([]rules.Move, 0, rules.MaxMoves)}
}

// Options returns the options in use, defaults filled in.
func (s *Search) Options() Options { return s.opt }

// Reset drops the tree.
func (s *Search) Reset() {
	s.valid = false
	s.nodes = s.nodes[:0]
	s.noised = false
}

// Run searches the current position of g and returns the visit counts, the
// root value and a chosen move. It stops when the root has lim.Visits visits
// or, with lim.Visits 0, when ctx is done or lim.Deadline comes; a deadline
// (of ctx or lim) that comes during a visit-limited search also ends it
// early (Result.Full false, no error). A cancelled ctx (not a deadline)
// returns ctx.Err().
//
// The tree is reused when g continues the game of the previous Run: moves
// played since then are followed down the tree as by Advance. Any other g
// starts a new tree. A position with one legal move returns at once without
// any evaluation (Result.Forced). rng drives the noise and the temperature;
// it may be nil when neither is used.
func (s *Search) Run(ctx context.Context, g *rules.Game, lim Limit, rng *rand.Rand) (Result, error) {
	if g.Outcome().Over() {
		return Result{}, ErrGameOver
	}
	if s.opt.MaxPlies > 0 && g.Ply() >= s.opt.MaxPlies {
		return Result{}, fmt.Errorf("%w: length cap of %d plies reached", ErrGameOver, s.opt.MaxPlies)
	}
	if err := ctx.Err(); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return Result{}, err
	}
	if lim.Visits <= 0 && lim.Deadline.IsZero() {
		if _, ok := ctx.Deadline(); !ok {
			return Result{}, ErrNoLimit
		}
	}
	s.sync(g)
	if len(s.nodes) == 0 {
		s.nodes = append(s.nodes, node{first: -1})
	}
	s.legal = s.rootPos.Legal(s.legal)
	if len(s.legal) == 1 {
		res := s.result(nil)
		res.Forced = true
		res.Move = s.legal[0]
		return res, nil
	}
	temp := 0.0
	if s.opt.Temperature != nil {
		temp = s.opt.Temperature(s.rootPly)
	}
	if (lim.Noise || temp > 0.01) && rng == nil {
		return Result{}, errors.New("mcts: noise or temperature needs an rng")
	}
	s.proved = 0

	s.stack = append(s.stack[:0], s.hist...)
	start := s.nodes[0].n
	if s.nodes[0].state == expanded {
		s.rootReady(lim, rng)
	}
	var full bool
	var err error
	if s.opt.Threads > 1 {
		full, err = s.runThreads(ctx, lim, rng)
	} else {
		full, err = s.runOne(ctx, lim, rng)
	}
	if err != nil {
		return Result{}, err
	}
	res := s.result(rng)
	res.Playouts = int(s.nodes[0].n - start)
	res.Proved = s.proved
	res.Full = full
	if temp > 0.01 && res.Proof != ProofWin {
		res.Move = pick(s.solverVisits(res.Visits), res.Moves, temp, rng)
	}
	return res, nil
}

// runOne is the loop of Run on the calling goroutine (Options.Threads 1):
// collect a batch, evaluate it, back it up, until a limit is reached. It
// reports whether the search ran to its end (Result.Full).
func (s *Search) runOne(ctx context.Context, lim Limit, rng *rand.Rand) (bool, error) {
	if s.opt.Parallel > 1 {
		s.pool = &evalPool{}
		defer func() {
			s.pool.stop()
			s.pool = nil
		}()
	}
	for {
		want, stop, full, err := s.next(ctx, lim)
		if stop || err != nil {
			return full, err
		}
		t0 := s.stepStart(lim)
		err = s.step(ctx, want)
		s.timeStep(lim, t0)
		if err != nil {
			if errors.Is(err, context.DeadlineExceeded) && s.nodes[0].n > 0 {
				return lim.Visits <= 0, nil
			}
			return false, err
		}
		s.afterStep(lim, rng)
	}
}

// next decides whether the search goes on: it returns the number of
// leaves to collect next, or stop (with full, Result.Full) when a limit is
// reached, or the context's error. Leaves in flight (other workers') count
// toward the visit limit and the node cap.
func (s *Search) next(ctx context.Context, lim Limit) (want int, stop, full bool, err error) {
	root := &s.nodes[0]
	if lim.Visits > 0 && int(root.n) >= lim.Visits {
		return 0, true, true, nil
	}
	if s.opt.Solver && root.proof != proofNone && lim.Visits <= 0 {
		return 0, true, true, nil // a proven root needs no more time
	}
	if err := ctx.Err(); err != nil {
		if errors.Is(err, context.DeadlineExceeded) && root.n > 0 {
			return 0, true, lim.Visits <= 0, nil
		}
		return 0, true, false, err
	}
	if root.n > 0 && s.timeUp(lim) {
		return 0, true, lim.Visits <= 0, nil
	}
	s.frozen = false
	if len(s.nodes)+(int(root.inflight)+s.opt.Parallel)*(rules.MaxMoves+maxPassChain) > s.opt.MaxNodes && root.n > 0 {
		if !s.opt.KeepSearchingWhenFull {
			return 0, true, false, nil
		}
		s.frozen = true
	}
	if root.n >= MaxRootVisits {
		return 0, true, false, nil
	}
	want = s.opt.Parallel
	if lim.Visits > 0 {
		want = min(want, lim.Visits-int(root.n)-int(root.inflight))
		if want <= 0 {
			return 0, true, true, nil // the visits in flight complete the search
		}
	}
	return want, false, false, nil
}

// afterStep prepares the root once it is expanded (noise).
func (s *Search) afterStep(lim Limit, rng *rand.Rand) {
	if s.nodes[0].state == expanded && lim.Noise != s.noised {
		s.rootReady(lim, rng)
	}
}

// now reads lim's clock.
func (lim Limit) now() time.Time {
	if lim.Clock != nil {
		return lim.Clock()
	}
	return time.Now()
}

// timeUp reports whether a Run with lim.Deadline should start no more
// batches: the deadline has passed, or a batch as long as the last ones
// (their mean plus twice their mean deviation, so that a loaded machine's
// uneven batches are allowed for) would end after it.
func (s *Search) timeUp(lim Limit) bool {
	if lim.Deadline.IsZero() {
		return false
	}
	return lim.now().Add(s.stepTime + 2*s.stepDev).After(lim.Deadline)
}

// stepStart reads the clock at the start of a step of a search with a
// deadline (timeStep measures the step); without one it reads nothing, so
// a visit-limited search costs no clock reads.
func (s *Search) stepStart(lim Limit) time.Time {
	if lim.Deadline.IsZero() {
		return time.Time{}
	}
	return lim.now()
}

// timeStep adds the wall time of a batch that began at t0 to the
// estimates that timeUp reads, for Runs with a deadline: the first
// batch's time, then exponential moving averages over about four batches
// of the time and of its deviation from the mean.
func (s *Search) timeStep(lim Limit, t0 time.Time) {
	if lim.Deadline.IsZero() {
		return
	}
	d := max(lim.now().Sub(t0), 0)
	if s.stepTime == 0 {
		s.stepTime = d
		return
	}
	dev := d - s.stepTime
	s.stepTime += dev / 4
	s.stepDev += (max(dev, -dev) - s.stepDev) / 4
}

// rootReady prepares the expanded root for the rest of a Run: its noise.
func (s *Search) rootReady(lim Limit, rng *rand.Rand) {
	s.setNoise(lim.Noise, rng)
}

// step collects up to want leaves and evaluates them. Terminal leaves are
// backed up at once; a selection that runs into a leaf already in flight
// (a collision) ends the collection.
func (s *Search) step(ctx context.Context, want int) error {
	batch := s.collect(&s.leaves, want)
	if batch == 0 {
		return nil
	}
	evaluate(ctx, s.ev, s.bev, s.leaves[:batch], s.pool, &s.batch)
	return s.apply(s.leaves[:batch])
}

// collect selects up to want leaves into (*leaves)[:batch], growing the
// buffer as needed, and returns batch. It stops early at a collision.
func (s *Search) collect(leaves *[]leaf, want int) (batch int) {
	for len(*leaves) < want {
		*leaves = append(*leaves, leaf{
			legal: make([]rules.Move, 0, rules.MaxMoves),
			prior: make([]float32, rules.MaxMoves),
		})
	}
	for i := 0; i < want; i++ {
		switch s.selectLeaf(&(*leaves)[batch]) {
		case selCollision:
			return batch
		case selTerminal:
		case selLeaf:
			batch++
		}
	}
	return batch
}

// evaluate evaluates leaves: all in one call on the calling goroutine
// with be, ev as a BatchEvaluator (sc is its scratch), else the first on the
// calling goroutine and the others on pool's helpers (pool may be nil for
// one leaf). It touches no tree: it may run without the tree's lock.
func evaluate(ctx context.Context, ev Evaluator, be BatchEvaluator, leaves []leaf, pool *evalPool, sc *batchScratch) {
	if be != nil {
		sc.qs, sc.es = sc.qs[:0], sc.es[:0]
		for i := range leaves {
			sc.qs = append(sc.qs, leaves[i].q)
			sc.es = append(sc.es, &leaves[i].eval)
		}
		err := be.EvaluateBatch(ctx, sc.qs, sc.es)
		for i := range leaves {
			leaves[i].err = err
		}
		return
	}
	if len(leaves) > 1 {
		pool.run(ctx, ev, leaves[1:])
	}
	l := &leaves[0]
	l.err = ev.Evaluate(ctx, l.q, &l.eval)
	if len(leaves) > 1 {
		pool.wait()
	}
}

// batchScratch holds the arguments of a BatchEvaluator call.
type batchScratch struct {
	qs []Query
	es []*Evaluation
}

// apply expands the evaluated leaves and backs up their values; a leaf
// whose evaluation failed is abandoned. It returns the first error.
func (s *Search) apply(leaves []leaf) error {
	var firstErr error
	for i := range leaves {
		l := &leaves[i]
		err := l.err
		if err == nil && len(l.eval.Priors) != len(l.legal) {
			err = fmt.Errorf("mcts: evaluator returned %d priors for %d legal moves", len(l.eval.Priors), len(l.legal))
		}
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			s.undo(l.path)
			continue
		}
		s.expand(l)
	}
	return firstErr
}

// evalPool evaluates the extra leaves of a batch on helper goroutines that
// live for one Run, so that a batch does not start goroutines: each helper
// takes leaves from jobs until stop closes it, and none outlives the Run.
type evalPool struct {
	jobs    chan *leaf
	pending sync.WaitGroup // leaves handed out and not yet evaluated
	running sync.WaitGroup // helpers
	helpers int
}

// run hands leaves to the helpers, starting more (with ctx) as needed.
func (p *evalPool) run(ctx context.Context, ev Evaluator, leaves []leaf) {
	if p.jobs == nil {
		p.jobs = make(chan *leaf, cap(leaves))
	}
	for ; p.helpers < len(leaves); p.helpers++ {
		p.running.Add(1)
		go func() {
			defer p.running.Done()
			for l := range p.jobs {
				l.err = ev.Evaluate(ctx, l.q, &l.eval)
				p.pending.Done()
			}
		}()
	}
	p.pending.Add(len(leaves))
	for i := range leaves {
		p.jobs <- &leaves[i]
	}
}

// wait returns when every leaf handed to run has been evaluated.
func (p *evalPool) wait() { p.pending.Wait() }

// stop ends the helpers and waits for them to exit.
func (p *evalPool) stop() {
	if p.jobs != nil {
		close(p.jobs)
	}
	p.running.Wait()
}
