package tactics

import (
	"context"
	"fmt"

	"dama/mcts"
)

// adjuster is a hybrid around the network that changes an evaluation of
// its inner evaluator after the fact (Combinations, Priors).
type adjuster interface {
	mcts.Evaluator
	adjust(q mcts.Query, e *mcts.Evaluation)
}

// batchView is an adjuster whose inner evaluator evaluates whole batches
// on the calling goroutine (mcts.BatchEvaluator, e.g. infer.Direct): it
// evaluates batches too, the inner evaluator's batch then each
// adjustment, so that a search over it keeps its batched forward passes
// and does all its work on its own goroutine (a player timed by the CPU
// time of its thread, or each of its search threads).
type batchView struct {
	adjuster
	inner mcts.BatchEvaluator
}

// EvaluateBatch implements mcts.BatchEvaluator.
func (b batchView) EvaluateBatch(ctx context.Context, qs []mcts.Query, es []*mcts.Evaluation) error {
	if len(qs) != len(es) {
		return fmt.Errorf("tactics: %d queries and %d evaluations", len(qs), len(es))
	}
	if err := b.inner.EvaluateBatch(ctx, qs, es); err != nil {
		return err
	}
	for i := range qs {
		b.adjust(qs[i], es[i])
	}
	return nil
}

// Unwrap returns the hybrid itself, whose Unwrap gives the network.
func (b batchView) Unwrap() mcts.Evaluator { return b.adjuster }

// withBatch returns a, or its batch view where inner evaluates batches.
func withBatch(a adjuster, inner mcts.Evaluator) mcts.Evaluator {
	if bi, ok := inner.(mcts.BatchEvaluator); ok {
		return batchView{a, bi}
	}
	return a
}
