package mcts

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"unsafe"

	"dama/rules"
)

// Values. Every value in this package is from the point of view of the side
// to move at the node it describes and lies in [-1, 1]: the expected score
// W + D/2 of an Evaluation mapped linearly, that is W - L. A draw is 0, a
// win +1, a loss -1. Draw probabilities are carried alongside so that a root
// WDL can be reported: W = (1+Q-D)/2, L = (1-Q-D)/2.

// Defaults for the zero fields of Options.
const (
	DefaultCPuct             = 1.5
	DefaultFPUReduction      = 0.25
	DefaultDirichletAlpha    = 1.0
	DefaultDirichletFraction = 0.25
	DefaultParallel          = 1
	DefaultMaxNodes          = 1 << 21
)

// Errors returned by Run.
var (
	// ErrGameOver means the game handed to Run is already decided (by the
	// rules, an adjudication, or the length cap of Options.MaxPlies).
	ErrGameOver = errors.New("mcts: game is over")
	// ErrNoLimit means Run was given neither visits nor a context deadline.
	ErrNoLimit = errors.New("mcts: no visit count and no deadline")
)

// Options configure a Search. The zero value of each field means its
// documented default.
type Options struct {
	// CPuct scales the exploration term of PUCT:
	// U = CPuct * P * sqrt(sum of the node's child visits) / (1 + N).
	// Default DefaultCPuct.
	CPuct float64
	// FPUReduction sets the value assumed for an unvisited child ("first
	// play urgency"): the parent's Q minus FPUReduction times the square
	// root of the summed priors of the visited children. Default
	// DefaultFPUReduction; a negative value means no reduction (FPU = parent Q).
	FPUReduction float64
	// DirichletAlpha is the concentration of the Dirichlet noise mixed into
	// the root priors when a Run asks for noise. Default DefaultDirichletAlpha
	// (Italian draughts positions have few legal moves, about 8).
	DirichletAlpha float64
	// DirichletFraction is the weight of the noise: P' = (1-f) P + f eta.
	// Default DefaultDirichletFraction.
	DirichletFraction float64
	// MaxPlies is the adjudication cap: a node at game ply MaxPlies (plies
	// counted from the game's start) is a draw. 0 means no cap.
	MaxPlies int
	// Parallel is the number of leaves a search collects (with virtual loss)
	// before it evaluates them concurrently: the first on the calling
	// goroutine, the others on Parallel-1 helper goroutines that live for
	// one Run. Default 1.
	Parallel int
	// Temperature gives the temperature of the move choice at a game ply:
	// Result.Move is drawn with probability proportional to visits^(1/T).
	// A temperature at or below 0.01 (and a nil function) picks the most
	// visited move.
	Temperature func(ply int) float64
	// MaxNodes bounds the tree: a Run stops early (Result.Full false) rather
	// than grow past it, unless KeepSearchingWhenFull. Default
	// DefaultMaxNodes; a tree takes NodeBytes bytes per node, and twice that
	// while moving its root (Advance copies the kept subtree).
	MaxNodes int

	// Solver turns on the MCTS solver (see solver.go): proven wins, losses
	// and draws are propagated up the tree, proven nodes are not searched
	// further, and Result.Proof reports a proven root. Default off.
	Solver bool
	// ForcedPlayoutsK turns on KataGo's forced playouts at the root of
	// searches with noise: a child c gets at least sqrt(k P(c) N) visits,
	// P the noised prior, N the root's child visits. 0 means off; KataGo
	// uses 2. Ignored with Gumbel.
	ForcedPlayoutsK float64
	// Gumbel replaces PUCT by Gumbel search (see gumbel.go): Gumbel-Top-k
	// sampling and sequential halving at the root, the deterministic
	// selection of Danihelka et al. below it, and the completed-Q policy
	// in Result.Policy. Needs a visit limit. Temperature does not apply:
	// the move is the halving's winner, drawn by the Gumbel noise of
	// Limit.Noise. Default off.
	Gumbel bool
	// GumbelM is the number of actions sampled at the root. Default
	// DefaultGumbelM.
	GumbelM int
	// GumbelCVisit and GumbelCScale shape sigma(q) = (GumbelCVisit +
	// max_b N(b)) * GumbelCScale * q, q in [0,1]. Defaults
	// DefaultGumbelCVisit and DefaultGumbelCScale.
	GumbelCVisit float64
	GumbelCScale float64
	// PassForced expands a position below the root that has one legal
	// move without evaluating it: the search goes straight on to the
	// position after that move, whose evaluation is backed up through both.
	// Most such positions are forced captures, whose value the network
	// estimates worst, so tactical lines get deeper for the same number of
	// evaluations. At most MaxPassChain positions are passed in a row.
	// Default off.
	PassForced bool
	// KeepSearchingWhenFull lets a Run whose tree has reached MaxNodes go on
	// without growing it: the tree is frozen, a visit that reaches a leaf
	// evaluates it once and backs up that value without adding its children,
	// and later visits to the leaf back up the same value. Visits still
	// move between the moves of the tree, so a long search keeps refining
	// the root; Result.Full stays true. For analysis that runs until
	// stopped.
	KeepSearchingWhenFull bool
}

// MaxPassChain is the most positions with one legal move that one
// selection passes without evaluation (Options.PassForced).
const MaxPassChain = 8

// NodeBytes is the memory one tree node takes; MaxNodes*NodeBytes*2 bounds
// the memory of a Search's tree.
const NodeBytes = int(unsafe.Sizeof(node{}))

// MaxRootVisits ends any Run (Result.Full false) before the visit counters
// (int32) overflow; HalveVisits makes room for a search that goes on.
const MaxRootVisits = 1 << 30

func (o Options) withDefaults() Options {
	if o.CPuct == 0 {
		o.CPuct = DefaultCPuct
	}
	if o.FPUReduction == 0 {
		o.FPUReduction = DefaultFPUReduction
	} else if o.FPUReduction < 0 {
		o.FPUReduction = 0
	}
	if o.DirichletAlpha <= 0 {
		o.DirichletAlpha = DefaultDirichletAlpha
	}
	if o.DirichletFraction <= 0 {
		o.DirichletFraction = DefaultDirichletFraction
	}
	if o.Parallel <= 0 {
		o.Parallel = DefaultParallel
	}
	if o.MaxNodes <= 0 {
		o.MaxNodes = DefaultMaxNodes
	}
	if o.GumbelM <= 0 {
		o.GumbelM = DefaultGumbelM
	}
	if o.GumbelCVisit <= 0 {
		o.GumbelCVisit = DefaultGumbelCVisit
	}
	if o.GumbelCScale <= 0 {
		o.GumbelCScale = DefaultGumbelCScale
	}
	return o
}

// TemperatureSchedule returns a temperature function for Options: early for
// the first plies plies of a game, late afterwards.
func TemperatureSchedule(plies int, early, late float64) func(ply int) float64 {
	return func(ply int) float64 {
		if ply < plies {
			return early
		}
		return late
	}
}

// Limit says how much one Run searches.
type Limit struct {
	// Visits is the number of visits the root should have when Run returns,
	// visits kept from an earlier search of the same position (tree reuse)
	// included. 0 means: search until ctx is done (a time limit).
	Visits int
	// Noise mixes Dirichlet noise into the root priors (self-play).
	Noise bool
}

// Result is the outcome of a Run, from the side to move's point of view.
type Result struct {
	Moves  []rules.Move // the legal moves of the root, in rules order
	Visits []int        // visits of each move
	Priors []float32    // the evaluator's priors of each move (without noise)
	Q      []float32    // mean value of each move for the side to move; 0 when unvisited
	// SearchPriors are the priors the search used at the root: Priors with
	// the root noise mixed in (the same slice as Priors without noise).
	SearchPriors []float32
	// Policy is, with Options.Gumbel, the completed-Q policy
	// softmax(logits + sigma(completed Q)) over Moves: a policy target that
	// improves on the priors. Nil with PUCT.
	Policy []float32
	// Proof is, with Options.Solver, the proven result of the root for the
	// side to move (ProofNone when not proven). A proven root reports the
	// exact Value and WDL.
	Proof Proof

	Value float32    // root value W-L in [-1, 1]
	WDL   [3]float32 // root win, draw and loss probabilities

	Move rules.Move   // the move chosen (by visits and temperature)
	PV   []rules.Move // principal variation: most visited child, repeatedly

	RootVisits int  // visits of the root, reused ones included
	Playouts   int  // visits added by this Run
	Nodes      int  // nodes in the tree
	Forced     bool // the root has one legal move: it was returned without search
	Full       bool // the search ran to its end: the visits were reached, or the deadline of a time-limited search; false when cut short by a deadline, or MaxNodes without KeepSearchingWhenFull
}

// Node states.
const (
	unexpanded uint8 = iota
	pending          // selected, its evaluation is in flight
	expanded
	terminal
)

// node is one tree node. Its sums are from the point of view of the side
// that played move (the parent's side to move), so a parent reads its
// children's Q directly.
type node struct {
	move     rules.Move
	prior    float32
	n        int32 // completed visits
	inflight int32 // visits in flight (virtual loss)
	first    int32 // index of the first child in the arena
	nchild   int16
	state    uint8
	proof    uint8   // solver: proven result for the side that played move (proofNone, proofWin, ...)
	raw      float32 // the evaluator's value W-L for the side to move at this node, once expanded
	sumV     float64
	sumD     float64
	termV    float32 // terminal value for the parent's side to move
	termD    float32 // 1 for a drawn terminal node
}

// leaf is a position selected for evaluation.
type leaf struct {
	path  []int32
	grow  bool // add the leaf's children; false in a frozen (full) tree
	q     Query
	legal []rules.Move
	eval  Evaluation
	prior []float32
	err   error
}

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
		if len(s.nodes)+s.opt.Parallel*(rules.MaxMoves+MaxPassChain) > s.opt.MaxNodes && s.nodes[0].n > 0 {
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

type selection int

const (
	selLeaf selection = iota
	selTerminal
	selCollision
)

// selectLeaf walks from the root by PUCT, adding virtual loss on the way,
// down to a node that is not expanded. A new terminal node is scored and
// backed up at once; an unexpanded node becomes l, pending evaluation.
func (s *Search) selectLeaf(l *leaf) selection {
	nodes := s.nodes
	s.stack = s.stack[:len(s.hist)] // Run put hist there
	from := 0                       // repetitions are counted in stack[from:]
	pos, quiet, ply := s.rootPos, s.rootQuiet, s.rootPly
	l.path = l.path[:0]
	idx := int32(0)
	passed := 0
	for {
		nd := &nodes[idx]
		l.path = append(l.path, idx)
		nd.inflight++
		if nd.proof != proofNone && idx != 0 && nd.state != terminal {
			v, d := proofValue(nd.proof)
			s.backup(l.path, v, d)
			return selTerminal
		}
		switch nd.state {
		case terminal:
			s.backup(l.path, float64(nd.termV), float64(nd.termD))
			return selTerminal
		case pending:
			for _, i := range l.path {
				nodes[i].inflight--
			}
			return selCollision
		case unexpanded:
			if idx != 0 {
				if v, d, ok := s.terminalValue(pos, quiet, ply, from); ok {
					nd.state = terminal
					nd.termV, nd.termD = v, d
					s.backup(l.path, float64(v), float64(d))
					if s.opt.Solver {
						s.prove(l.path)
					}
					return selTerminal
				}
			}
			l.grow = idx == 0 || !s.frozen
			if !l.grow && nd.n > 0 {
				// A frozen leaf evaluated before: its value again.
				s.backup(l.path, nd.sumV/float64(nd.n), nd.sumD/float64(nd.n))
				return selTerminal
			}
			l.legal = pos.Legal(l.legal)
			if s.opt.PassForced && idx != 0 && l.grow && len(l.legal) == 1 && passed < MaxPassChain {
				// A forced move: the node gets its one child, unevaluated,
				// and the selection goes on into it.
				passed++
				c := int32(len(s.nodes))
				s.nodes = append(s.nodes, node{move: l.legal[0], prior: 1, first: -1})
				nodes = s.nodes
				nd = &nodes[idx]
				nd.first, nd.nchild, nd.state = c, 1, expanded
				break
			}
			reps := 0
			for _, q := range s.stack[from : len(s.stack)-1] {
				if q == pos {
					reps++
				}
			}
			l.q = Query{Pos: pos, Legal: l.legal, Repetitions: reps, QuietPlies: quiet}
			l.eval.Priors = l.prior[:len(l.legal)]
			nd.state = pending
			return selLeaf
		}
		c := s.pick(idx)
		m := nodes[c].move
		if !pos.Reversible(m) {
			from = len(s.stack)
		}
		quiet = rules.QuietAfter(pos, m, quiet)
		pos = pos.Play(m)
		ply++
		s.stack = append(s.stack, pos)
		idx = c
	}
}

// terminalValue scores a position that ends the game, for the side that
// moved into it: the side to move without moves loses; repetition, the
// 40-move rule and the length cap draw.
func (s *Search) terminalValue(pos rules.Position, quiet, ply, from int) (v, d float32, ok bool) {
	if !pos.HasMoves() {
		return 1, 0, true
	}
	reps := 0
	for _, q := range s.stack[from : len(s.stack)-1] {
		if q == pos {
			reps++
		}
	}
	if reps >= 2 || quiet >= rules.QuietLimit || (s.opt.MaxPlies > 0 && ply >= s.opt.MaxPlies) {
		return 0, 1, true
	}
	return 0, 0, false
}

// pick returns the child of node idx that the selection follows.
func (s *Search) pick(idx int32) int32 {
	nd := &s.nodes[idx]
	if s.opt.Solver {
		if c, ok := s.solverPick(nd); ok {
			return c
		}
	}
	if s.opt.Gumbel {
		if idx == 0 && s.gum.valid {
			return s.gumbelRootPick()
		}
		return s.gumbelPick(nd)
	}
	return s.pickChild(nd, idx == 0 && s.opt.ForcedPlayoutsK > 0 && s.noised)
}

// pickChild returns the child of nd with the highest PUCT score. With
// forced, a child with fewer visits than its forced playouts goes first.
// With the solver, children proven lost for the side to move are passed
// over while another child is not.
func (s *Search) pickChild(nd *node, forced bool) int32 {
	children := s.nodes[nd.first : nd.first+int32(nd.nchild)]
	var visits int32
	var visitedPolicy float64
	for i := range children {
		c := &children[i]
		visits += c.n + c.inflight
		if c.n+c.inflight > 0 {
			visitedPolicy += float64(c.prior)
		}
	}
	parentQ := 0.0
	if nd.n > 0 {
		parentQ = -nd.sumV / float64(nd.n)
	}
	fpu := parentQ - s.opt.FPUReduction*math.Sqrt(visitedPolicy)
	k := s.opt.CPuct * math.Sqrt(float64(max(visits, 1)))
	skipLost := s.opt.Solver && !allLost(children)
	best, bestScore := 0, math.Inf(-1)
	for i := range children {
		c := &children[i]
		if skipLost && c.proof == proofLoss {
			continue
		}
		n := c.n + c.inflight
		q := fpu
		if n > 0 {
			q = (c.sumV - float64(c.inflight)) / float64(n)
		}
		score := q + k*float64(c.prior)/float64(1+n)
		if forced && float64(n) < ForcedPlayouts(s.opt.ForcedPlayoutsK, float64(c.prior), float64(visits)) {
			score += forcedBonus
		}
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	return nd.first + int32(best)
}

// backup adds a visit of value v (for the side that moved into the last node
// of path) and draw probability d to every node of path, removing the
// virtual loss.
func (s *Search) backup(path []int32, v, d float64) {
	for i := len(path) - 1; i >= 0; i-- {
		nd := &s.nodes[path[i]]
		nd.n++
		nd.inflight--
		nd.sumV += v
		nd.sumD += d
		v = -v
	}
}

// undo removes the virtual loss of an abandoned selection.
func (s *Search) undo(path []int32) {
	for _, i := range path {
		s.nodes[i].inflight--
	}
	if last := &s.nodes[path[len(path)-1]]; last.state == pending {
		last.state = unexpanded
	}
}

// expand adds the children of an evaluated leaf (unless l.grow is false)
// and backs up its value.
func (s *Search) expand(l *leaf) {
	idx := l.path[len(l.path)-1]
	if !l.grow {
		s.nodes[idx].state = unexpanded
		s.backupEval(l)
		return
	}
	first := int32(len(s.nodes))
	var sum float64
	for _, p := range l.eval.Priors {
		if p > 0 && !math.IsInf(float64(p), 1) {
			sum += float64(p)
		}
	}
	for i, m := range l.legal {
		p := float32(1 / float64(len(l.legal)))
		if sum > 0 {
			p = max(l.eval.Priors[i], 0) / float32(sum)
			if math.IsNaN(float64(p)) || math.IsInf(float64(p), 0) {
				p = 0
			}
		}
		s.nodes = append(s.nodes, node{move: m, prior: p, first: -1})
	}
	nd := &s.nodes[idx]
	nd.first = first
	nd.nchild = int16(len(l.legal))
	nd.state = expanded
	s.backupEval(l)
}

// backupEval backs up the value of an evaluated leaf.
func (s *Search) backupEval(l *leaf) {
	w, d, lo := float64(l.eval.WDL[0]), float64(l.eval.WDL[1]), float64(l.eval.WDL[2])
	if t := w + d + lo; t > 0 && !math.IsInf(t, 0) {
		w, d, lo = w/t, d/t, lo/t
	} else {
		w, d, lo = 0, 1, 0
	}
	s.nodes[l.path[len(l.path)-1]].raw = float32(w - lo)
	// The leaf's value for its side to move is w-lo; the node stores it for
	// the side that moved into it.
	s.backup(l.path, lo-w, d)
}

// setNoise mixes fresh Dirichlet noise into the root priors (on) or restores
// the evaluator's priors (off).
func (s *Search) setNoise(on bool, rng *rand.Rand) {
	root := &s.nodes[0]
	children := s.nodes[root.first : root.first+int32(root.nchild)]
	if !s.noised {
		s.clean = s.clean[:0]
		for i := range children {
			s.clean = append(s.clean, children[i].prior)
		}
	}
	if !on {
		for i := range children {
			children[i].prior = s.clean[i]
		}
		s.noised = false
		return
	}
	eta := make([]float64, len(children))
	var sum float64
	for i := range eta {
		eta[i] = Gamma(rng, s.opt.DirichletAlpha)
		sum += eta[i]
	}
	f := s.opt.DirichletFraction
	for i := range children {
		p := float64(s.clean[i])
		if sum > 0 {
			p = (1-f)*p + f*eta[i]/sum
		}
		children[i].prior = float32(p)
	}
	s.noised = true
}

// Gamma draws from the Gamma(alpha, 1) distribution by the method of
// Marsaglia and Tsang (2000), boosting alpha < 1 by U^(1/alpha).
func Gamma(rng *rand.Rand, alpha float64) float64 {
	if alpha < 1 {
		return Gamma(rng, alpha+1) * math.Pow(rng.Float64(), 1/alpha)
	}
	d := alpha - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := rng.Float64()
		if u < 1-0.0331*x*x*x*x {
			return d * v
		}
		if math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return d * v
		}
	}
}

// result reads the statistics of the root.
func (s *Search) result(rng *rand.Rand) Result {
	root := &s.nodes[0]
	var res Result
	res.RootVisits = int(root.n)
	res.Nodes = len(s.nodes)
	if root.n > 0 {
		q := -root.sumV / float64(root.n)
		d := root.sumD / float64(root.n)
		res.Value = float32(q)
		res.WDL = [3]float32{
			float32(max((1+q-d)/2, 0)), float32(d), float32(max((1-q-d)/2, 0)),
		}
	}
	if root.state != expanded {
		res.Moves = append([]rules.Move(nil), s.legal...)
		res.Visits = make([]int, len(res.Moves))
		res.Priors = make([]float32, len(res.Moves))
		res.Q = make([]float32, len(res.Moves))
		return res
	}
	children := s.nodes[root.first : root.first+int32(root.nchild)]
	res.Moves = make([]rules.Move, len(children))
	res.Visits = make([]int, len(children))
	res.Priors = make([]float32, len(children))
	res.Q = make([]float32, len(children))
	res.SearchPriors = res.Priors
	if s.noised {
		res.SearchPriors = make([]float32, len(children))
	}
	for i := range children {
		c := &children[i]
		res.Moves[i] = c.move
		res.Visits[i] = int(c.n)
		res.Priors[i] = c.prior
		if s.noised {
			res.Priors[i] = s.clean[i]
			res.SearchPriors[i] = c.prior
		}
		if c.n > 0 {
			res.Q[i] = float32(c.sumV / float64(c.n))
		}
	}
	best := s.bestChild(0)
	if s.opt.Gumbel {
		res.Policy = s.completedPolicy(0)
		if s.gum.valid && root.proof == proofNone {
			best = s.gumbelChoice()
		}
	}
	res.Move = s.nodes[best].move
	if s.opt.Solver {
		s.solverResult(&res)
	}
	for idx, c := int32(0), best; ; c = s.bestChild(idx) {
		if s.nodes[c].n == 0 {
			break
		}
		res.PV = append(res.PV, s.nodes[c].move)
		idx = c
		if s.nodes[idx].state != expanded {
			break
		}
	}
	return res
}

// bestChild returns the most visited child of an expanded node; ties go to
// the higher Q, then the higher prior. With the solver, a child proven won
// for the side to move comes first and children proven lost last.
func (s *Search) bestChild(idx int32) int32 {
	nd := &s.nodes[idx]
	best := nd.first
	for c := nd.first + 1; c < nd.first+int32(nd.nchild); c++ {
		a, b := &s.nodes[c], &s.nodes[best]
		if s.opt.Solver {
			if ra, rb := proofRank(a.proof), proofRank(b.proof); ra != rb {
				if ra > rb {
					best = c
				}
				continue
			}
		}
		switch {
		case a.n > b.n:
			best = c
		case a.n == b.n && a.n > 0 && a.sumV/float64(a.n) > b.sumV/float64(b.n):
			best = c
		case a.n == b.n && a.n == 0 && a.prior > b.prior:
			best = c
		}
	}
	return best
}

// pick draws a move with probability proportional to visits^(1/temp).
func pick(visits []int, moves []rules.Move, temp float64, rng *rand.Rand) rules.Move {
	maxV := 0
	for _, v := range visits {
		maxV = max(maxV, v)
	}
	if maxV == 0 {
		return moves[rng.IntN(len(moves))]
	}
	w := make([]float64, len(visits))
	var sum float64
	for i, v := range visits {
		w[i] = math.Pow(float64(v)/float64(maxV), 1/temp)
		sum += w[i]
	}
	r := rng.Float64() * sum
	for i := range w {
		r -= w[i]
		if r < 0 {
			return moves[i]
		}
	}
	for i := len(w) - 1; i >= 0; i-- {
		if w[i] > 0 {
			return moves[i]
		}
	}
	return moves[0]
}

// Advance moves the root to the child reached by m, which must be legal in
// the root position, keeping that subtree and dropping the rest. It does
// nothing before the first Run.
func (s *Search) Advance(m rules.Move) {
	if !s.valid {
		return
	}
	child := int32(-1)
	if len(s.nodes) > 0 && s.nodes[0].state == expanded {
		root := &s.nodes[0]
		for c := root.first; c < root.first+int32(root.nchild); c++ {
			if s.nodes[c].move == m {
				child = c
				break
			}
		}
	}
	if s.rootPos.Reversible(m) {
		s.hist = append(s.hist, s.rootPos.Play(m))
	} else {
		s.hist = append(s.hist[:0], s.rootPos.Play(m))
	}
	s.rootQuiet = rules.QuietAfter(s.rootPos, m, s.rootQuiet)
	s.rootPos = s.rootPos.Play(m)
	s.rootPly++
	s.noised = false
	if child < 0 || s.nodes[child].state != expanded {
		s.nodes = s.nodes[:0]
		return
	}
	s.compact(child)
}

// HalveVisits halves the visit count of every node of the tree (rounding
// up), keeping each node's mean value and draw rate, so that a search
// that runs until stopped never reaches MaxRootVisits. The root keeps its
// move choice and its children their visit shares (up to rounding). Call
// it between Runs.
func (s *Search) HalveVisits() {
	for i := range s.nodes {
		nd := &s.nodes[i]
		if nd.n <= 0 {
			continue
		}
		half := (nd.n + 1) / 2
		f := float64(half) / float64(nd.n)
		nd.sumV *= f
		nd.sumD *= f
		nd.n = half
	}
}

// compact copies the subtree under idx into the spare arena, breadth first
// so that each node's children stay contiguous, and makes it the tree.
func (s *Search) compact(idx int32) {
	out := append(s.spare[:0], s.nodes[idx])
	out[0].move = rules.Move{}
	for i := 0; i < len(out); i++ {
		nd := out[i]
		if nd.state != expanded {
			if nd.state == pending {
				out[i].state = unexpanded
			}
			out[i].first, out[i].nchild = -1, 0
			continue
		}
		first := int32(len(out))
		out = append(out, s.nodes[nd.first:nd.first+int32(nd.nchild)]...)
		out[i].first = first
	}
	s.spare = s.nodes[:0]
	s.nodes = out
	s.rootVisitsFromChildren()
}

// rootVisitsFromChildren makes the root's visits one (its own evaluation)
// plus its children's, keeping its mean value. A node proven by the solver
// counts the visits that stopped at it; as the new root, those would stand
// for child visits that do not exist.
func (s *Search) rootVisitsFromChildren() {
	root := &s.nodes[0]
	if root.state != expanded {
		return
	}
	n := int32(1)
	for c := root.first; c < root.first+int32(root.nchild); c++ {
		n += s.nodes[c].n
	}
	if root.n > n {
		f := float64(n) / float64(root.n)
		root.sumV *= f
		root.sumD *= f
		root.n = n
	}
}

// sync makes the root the current position of g, following the tree down
// when g continues the game of the root, or starting afresh.
func (s *Search) sync(g *rules.Game) {
	if s.valid && g.Ply() >= s.rootPly && g.PositionAt(s.rootPly) == s.rootPos {
		pos, quiet, hist := gameState(g, s.rootPly, nil)
		same := pos == s.rootPos && quiet == s.rootQuiet && len(hist) == len(s.hist)
		for i := 0; same && i < len(hist); i++ {
			same = hist[i] == s.hist[i]
		}
		if same {
			for _, m := range g.Moves()[s.rootPly:] {
				s.Advance(m)
			}
			return
		}
	}
	s.rootPos, s.rootQuiet, s.hist = gameState(g, g.Ply(), s.hist[:0])
	s.rootPly = g.Ply()
	s.nodes = s.nodes[:0]
	s.noised = false
	s.valid = true
}

// gameState returns the position of g before its ply-th move, the 40-move
// counter there, and the positions since the last irreversible move
// (appended to hist[:0]), that position last.
func gameState(g *rules.Game, ply int, hist []rules.Position) (rules.Position, int, []rules.Position) {
	quiet, from := 0, 0
	moves := g.Moves()
	for i := 0; i < ply; i++ {
		p := g.PositionAt(i)
		quiet = rules.QuietAfter(p, moves[i], quiet)
		if !p.Reversible(moves[i]) {
			from = i + 1
		}
	}
	hist = hist[:0]
	for i := from; i <= ply; i++ {
		hist = append(hist, g.PositionAt(i))
	}
	return g.PositionAt(ply), quiet, hist
}
