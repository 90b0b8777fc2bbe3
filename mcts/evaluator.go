// Package mcts is a PUCT Monte Carlo tree search over the rules package. It
// knows nothing of networks or tensors: positions go to an Evaluator, which
// answers with one prior per legal move and win/draw/loss probabilities.
//
// A Search plays one game at a time:
//
//	s := mcts.New(ev, mcts.Options{
//		Parallel:          4,
//		FPUReduction:      mcts.StandardFPUReduction,
//		DirichletFraction: mcts.StandardDirichletFraction,
//		Temperature:       mcts.TemperatureSchedule(16, 1, 0),
//	})
//	for !g.Outcome().Over() {
//		res, err := s.Run(ctx, g, mcts.Limit{Visits: 400, Noise: true}, rng)
//		...
//		g.Play(res.Move)
//		s.Advance(res.Move) // optional: Run also follows the game by itself
//	}
//
// Values are W-L in [-1, 1] for the side to move (the expected score W+D/2
// mapped linearly; a draw is 0). Terminal nodes are scored by the rules: the
// side to move without a legal move loses; a third occurrence of a position
// since the last irreversible move (compared over the game's history and the
// tree path), the 40-move rule and the length cap Options.MaxPlies are
// draws. Selection is PUCT with first-play urgency; a search collects
// Options.Parallel leaves under virtual loss and evaluates them
// concurrently, so one game can put several positions into a batch, and
// many games (each with its own Search) sharing one Evaluator keep a
// batching evaluator full. Because only the collecting goroutine touches
// the tree, a search with a fixed seed and a deterministic evaluator gives
// the same result every time for a given Options.Parallel. Options.Threads
// runs several such collectors on one tree under one lock (threads.go),
// each with its own batch in flight, and a BatchEvaluator takes each batch
// in one call on the collecting goroutine (its own forward pass); with
// more than one thread the search is no longer repeatable visit for visit
// (threads.go says what still holds).
//
// The zero Options search with plain PUCT: no first-play urgency
// reduction, no root noise, no technique (see Options for what each zero
// means). The MCTS solver (Options.Solver, solver.go) is an option, off by
// default: BenchmarkSearchTechniques measures its cost per playout,
// BenchmarkSolverEndgames what it gains.
// An Oracle (Options.Oracle: endgame tables, a shallow full-width search)
// may prove new leaves; its exact values override the evaluator's.
//
// The files: options.go (Options, Limit), search.go (Search, Run, the
// evaluation of a batch of leaves, Limit.Deadline), threads.go (search
// threads), select.go (the PUCT selection),
// tree.go (nodes, expansion, backup, moving the root), noise.go (Dirichlet
// noise), result.go (Result, the move choice) and solver.go (the MCTS
// solver).
//
// The search costs far less than an evaluation: with an evaluator that
// answers at once (go test ./mcts/ -run XXX -bench Search) it runs about
// 2.9M playouts/s with Parallel 1 and 2.0M with Parallel 8 (18 allocations
// per 1600-visit search), against about 30 µs per position of a forward
// pass of the small network.
package mcts

import (
	"context"

	"dama/rules"
)

// Query is one position to evaluate, with the history the rules need.
type Query struct {
	Pos         rules.Position
	Legal       []rules.Move // legal moves of Pos; priors are wanted in this order
	Repetitions int          // earlier occurrences of Pos in the game (0..2)
	QuietPlies  int          // the 40-move counter before this position (0..rules.QuietLimit)
}

// Evaluation is the answer to a Query, from the side to move's point of view.
type Evaluation struct {
	Priors []float32  // one per legal move, summing to 1; len(Priors) == len(Query.Legal)
	WDL    [3]float32 // probabilities of win, draw and loss for the side to move
}

// Evaluator evaluates positions. Implementations are safe for concurrent use
// by many goroutines; a batched network evaluator blocks each caller until
// its batch has run.
type Evaluator interface {
	// Evaluate fills e for q. e.Priors must have length len(q.Legal); it is
	// written in place so callers can reuse buffers.
	Evaluate(ctx context.Context, q Query, e *Evaluation) error
}

// BatchEvaluator is an Evaluator that also evaluates a whole batch in one
// call on the calling goroutine: es[i] answers qs[i] as Evaluate would.
// A search (each worker of Options.Threads) hands it its batch of leaves
// at once, so the worker runs its own forward pass with no hand-off to
// another goroutine; an evaluator shared by many searches to fill large
// batches across them should not be one.
type BatchEvaluator interface {
	Evaluator
	EvaluateBatch(ctx context.Context, qs []Query, es []*Evaluation) error
}

// Oracle proves positions: an endgame table, or a shallow full-width
// search at a leaf (an MCTS-minimax hybrid). The search asks it from the
// goroutine that walks the tree, once per new leaf below the root, so a
// slow oracle slows every visit.
type Oracle interface {
	// Prove returns the result of q's position for its side to move under
	// the rules, the game's history (q.Repetitions, q.QuietPlies) included,
	// and ok false when it does not know. q.Legal holds the legal moves.
	Prove(q Query) (p Proof, ok bool)
}

// Oracles asks each of its oracles in turn (endgame tables before a
// shallow search, say): the first that proves a position answers.
type Oracles []Oracle

// Prove implements Oracle.
func (os Oracles) Prove(q Query) (Proof, bool) {
	for _, o := range os {
		if p, ok := o.Prove(q); ok {
			return p, true
		}
	}
	return ProofNone, false
}
