package mcts

import (
	"fmt"
	"time"
)

// Defaults for the zero fields of Options that must be positive.
const (
	DefaultCPuct          = 1.5
	DefaultDirichletAlpha = 1.0
	DefaultParallel       = 1
	DefaultMaxNodes       = 1 << 21
)

// Standard values of the amounts whose zero means none: the presets of a
// training run and the engine commands (hub, play, analyze, the arena's
// checkpoint players) search with them. Set them explicitly.
const (
	StandardFPUReduction      = 0.25
	StandardDirichletFraction = 0.25
)

// Options configure a Search. A zero field means off (or none) for every
// technique and for every amount that may be zero (FPUReduction,
// DirichletFraction, MaxPlies, Solver, PassForced, KeepSearchingWhenFull); for a constant that must be positive (CPuct,
// DirichletAlpha, Parallel, MaxNodes) it means the documented default. No
// field has a negative value with a special meaning: Validate rejects
// negative values.
type Options struct {
	// CPuct scales the exploration term of PUCT:
	// U = CPuct * P * sqrt(sum of the node's child visits) / (1 + N).
	// Default DefaultCPuct.
	CPuct float64
	// FPUReduction sets the value assumed for an unvisited child ("first
	// play urgency"): the parent's Q minus FPUReduction times the square
	// root of the summed priors of the visited children. 0: no reduction
	// (FPU = parent Q); StandardFPUReduction is the usual value.
	FPUReduction float64
	// PolicyTemperature flattens (above 1) or sharpens (below 1) the
	// network's priors as a node is expanded: P' = P^(1/T), normalised.
	// A search of thousands of visits with a confident policy spends them
	// on its first choices; a flatter prior lets it look at the others
	// (lc0 plays with about 1.6). 0 and 1 leave the priors as they are.
	PolicyTemperature float64
	// DirichletAlpha is the concentration of the Dirichlet noise mixed into
	// the root priors when a Run asks for noise. Default DefaultDirichletAlpha
	// (Italian draughts positions have few legal moves, about 8).
	DirichletAlpha float64
	// DirichletFraction is the weight of the noise, in [0,1]:
	// P' = (1-f) P + f eta. 0: the noise changes nothing;
	// StandardDirichletFraction is the usual value.
	DirichletFraction float64
	// MaxPlies is the adjudication cap: a node at game ply MaxPlies (plies
	// counted from the game's start) is a draw. 0 means no cap.
	MaxPlies int
	// Parallel is the number of leaves a search collects (with virtual loss)
	// before it evaluates them concurrently: the first on the calling
	// goroutine, the others on Parallel-1 helper goroutines that live for
	// one Run. Default 1.
	Parallel int
	// Threads is the number of workers that descend the tree at once (see
	// threads.go): each collects Parallel leaves under the tree's lock and
	// evaluates them while the others descend, so that up to Threads
	// batches are in flight together (Threads forward passes, given an
	// evaluator with as many batchers). Default 1: the calling goroutine
	// alone, and the search is deterministic (see the package comment).
	Threads int
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
	// PassForced expands a position below the root that has one legal
	// move without evaluating it: the search goes straight on to the
	// position after that move, whose evaluation is backed up through both.
	// Most such positions are forced captures, whose value the network
	// estimates worst, so tactical lines get deeper for the same number of
	// evaluations. At most 8 (maxPassChain) positions are passed in a row.
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
	// Oracle, if set, is asked about every new leaf below the root before
	// the evaluator (see Oracle): a position it proves becomes a terminal
	// node with the exact value, which overrides the network's, and with
	// Solver its proof goes up the tree like a rule's. Default nil.
	Oracle Oracle
}

// maxPassChain is the most positions with one legal move that one
// selection passes without evaluation (Options.PassForced).
const maxPassChain = 8

// MaxRootVisits ends any Run (Result.Full false) before the visit counters
// (int32) overflow; HalveVisits makes room for a search that goes on.
const MaxRootVisits = 1 << 30

// Validate reports the first field of o that is out of range: a negative
// or NaN number, a DirichletFraction above 1.
func (o Options) Validate() error {
	for _, f := range []struct {
		name string
		v    float64
	}{
		{"CPuct", o.CPuct}, {"FPUReduction", o.FPUReduction}, {"PolicyTemperature", o.PolicyTemperature},
		{"DirichletAlpha", o.DirichletAlpha}, {"DirichletFraction", o.DirichletFraction},
		{"MaxPlies", float64(o.MaxPlies)}, {"Parallel", float64(o.Parallel)}, {"Threads", float64(o.Threads)},
		{"MaxNodes", float64(o.MaxNodes)},
	} {
		if !(f.v >= 0) {
			return fmt.Errorf("mcts: Options.%s %v must not be negative", f.name, f.v)
		}
	}
	if o.DirichletFraction > 1 {
		return fmt.Errorf("mcts: Options.DirichletFraction %v must be at most 1", o.DirichletFraction)
	}
	return nil
}

// withDefaults fills in the zero fields that must be positive. Negative
// values are invalid (Validate); they take the default too, so that a
// Search never runs with them.
func (o Options) withDefaults() Options {
	if o.CPuct == 0 {
		o.CPuct = DefaultCPuct
	}
	positive(&o.DirichletAlpha, DefaultDirichletAlpha)
	positive(&o.Parallel, DefaultParallel)
	positive(&o.MaxNodes, DefaultMaxNodes)
	return o
}

// positive sets *v to def unless it is positive.
func positive[T int | float64](v *T, def T) {
	if !(*v > 0) {
		*v = def
	}
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
	// Deadline, when set, ends the Run (once the root has a visit) before
	// a batch that would start at or after it, or that would end after it
	// by the wall time of the batches so far: a batch in flight at the
	// deadline is one the search does not wait for. A context deadline
	// still cuts a batch short; Deadline does not depend on a timer firing,
	// so a loaded machine that runs the timer late does not make the
	// search late.
	Deadline time.Time
	// Clock reads the time for Deadline (nil: time.Now); tests give a
	// fake one.
	Clock func() time.Time
}
