// Package mcts is a PUCT Monte Carlo tree search over the rules package. It
// knows nothing of networks or tensors: positions go to an Evaluator, which
// answers with one prior per legal move and win/draw/loss probabilities.
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
