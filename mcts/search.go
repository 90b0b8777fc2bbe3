package mcts

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"

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
	gum    gumbelRoot // the Gumbel root state of the current Run
	frozen bool       // the tree is full: leaves are evaluated but not expanded

	leaves []leaf
	pool   *evalPool        // helpers of the current Run that evaluate leaves 1.. of a batch
	stack  []rules.Position // hist, then the selection path: repetitions compare whole positions, which is exact
	path   []int32
	legal  []rules.Move
	proved int // leaves Options.Oracle proved in the current Run
}

// New returns a Search that asks ev for evaluations.
func New(ev Evaluator, opt Options) *Search {
	return &Search{ev: ev, opt: opt.withDefaults(), legal: make([]rules.Move, 0, rules.MaxMoves)}
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
// or, with lim.Visits 0, when ctx is done; a deadline that expires during a
// visit-limited search also ends it early (Result.Full false, no error). A
// cancelled ctx (not a deadline) returns ctx.Err().
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
	if lim.Visits <= 0 {
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
	if s.opt.Gumbel && lim.Visits <= 0 {
		return Result{}, errors.New("mcts: Gumbel search needs a visit limit")
	}
	s.gum.valid = false
	s.proved = 0

	s.stack = append(s.stack[:0], s.hist...)
	if s.opt.Parallel > 1 {
		s.pool = &evalPool{}
		defer func() {
			s.pool.stop()
			s.pool = nil
		}()
	}
	start := s.nodes[0].n
	full := true
	if s.nodes[0].state == expanded {
		s.rootReady(lim, rng)
	}
	for lim.Visits <= 0 || int(s.nodes[0].n) < lim.Visits {
		if s.opt.Solver && s.nodes[0].proof != proofNone && lim.Visits <= 0 {
			break // a proven root needs no more time
		}
		if err := ctx.Err(); err != nil {
			if errors.Is(err, context.DeadlineExceeded) && s.nodes[0].n > 0 {
				full = lim.Visits <= 0
				break
			}
			return Result{}, err
		}
		s.frozen = false
		if len(s.nodes)+s.opt.Parallel*(rules.MaxMoves+maxPassChain) > s.opt.MaxNodes && s.nodes[0].n > 0 {
			if !s.opt.KeepSearchingWhenFull {
				full = false
				break
			}
			s.frozen = true
		}
		if s.nodes[0].n >= MaxRootVisits {
			full = false
			break
		}
		want := s.opt.Parallel
		if lim.Visits > 0 {
			want = min(want, lim.Visits-int(s.nodes[0].n))
		}
		if err := s.step(ctx, want); err != nil {
			if errors.Is(err, context.DeadlineExceeded) && s.nodes[0].n > 0 {
				full = lim.Visits <= 0
				break
			}
			return Result{}, err
		}
		if s.nodes[0].state == expanded && !s.gum.valid && (s.opt.Gumbel || lim.Noise != s.noised) {
			s.rootReady(lim, rng)
		}
	}
	res := s.result(rng)
	res.Playouts = int(s.nodes[0].n - start)
	res.Proved = s.proved
	res.Full = full
	if temp > 0.01 && !s.opt.Gumbel && res.Proof != ProofWin {
		res.Move = pick(s.solverVisits(res.Visits), res.Moves, temp, rng)
	}
	return res, nil
}

// rootReady prepares the expanded root for the rest of a Run: root noise
// for PUCT, the sampled actions for Gumbel.
func (s *Search) rootReady(lim Limit, rng *rand.Rand) {
	if s.opt.Gumbel {
		s.gumbelInit(lim, rng)
		return
	}
	s.setNoise(lim.Noise, rng)
}

// step collects up to want leaves and evaluates them. Terminal leaves are
// backed up at once; a selection that runs into a leaf already in flight
// (a collision) ends the collection.
func (s *Search) step(ctx context.Context, want int) error {
	for len(s.leaves) < want {
		s.leaves = append(s.leaves, leaf{
			legal: make([]rules.Move, 0, rules.MaxMoves),
			prior: make([]float32, rules.MaxMoves),
		})
	}
	batch := 0
	for i := 0; i < want; i++ {
		l := &s.leaves[batch]
		switch s.selectLeaf(l) {
		case selCollision:
			i = want
		case selTerminal:
		case selLeaf:
			batch++
		}
	}
	if batch == 0 {
		return nil
	}
	if batch > 1 {
		s.pool.run(ctx, s.ev, s.leaves[1:batch])
	}
	l := &s.leaves[0]
	l.err = s.ev.Evaluate(ctx, l.q, &l.eval)
	if batch > 1 {
		s.pool.wait()
	}
	var firstErr error
	for i := 0; i < batch; i++ {
		l := &s.leaves[i]
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
