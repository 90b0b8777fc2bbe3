package tactics

import (
	"context"
	"testing"

	"dama/internal/evaltest"
	"dama/mcts"
	"dama/rules"
)

// countingBatch evaluates batches with Material on the calling goroutine
// and counts its calls of each kind.
type countingBatch struct {
	evaltest.Material
	batches, singles int
}

func (c *countingBatch) Evaluate(ctx context.Context, q mcts.Query, e *mcts.Evaluation) error {
	c.singles++
	return c.Material.Evaluate(ctx, q, e)
}

func (c *countingBatch) EvaluateBatch(ctx context.Context, qs []mcts.Query, es []*mcts.Evaluation) error {
	c.batches++
	for i := range qs {
		if err := c.Material.Evaluate(ctx, qs[i], es[i]); err != nil {
			return err
		}
	}
	return nil
}

// TestHybridsKeepBatches: around a batch evaluator the combination and
// informed-prior hybrids evaluate whole batches, in one inner call per
// batch, and answer each query as the same hybrids around a plain
// evaluator do; around a plain one they stay plain.
func TestHybridsKeepBatches(t *testing.T) {
	h := Hybrids{Combinations: 3, Priors: 3}
	inner := &countingBatch{Material: evaltest.Material{Steep: 1}}
	var opt mcts.Options
	ev, _, err := h.Apply(&opt, inner)
	if err != nil {
		t.Fatal(err)
	}
	bev, ok := ev.(mcts.BatchEvaluator)
	if !ok {
		t.Fatalf("the hybrids around a batch evaluator are a %T, not a batch evaluator", ev)
	}
	plain, _, err := h.Apply(&mcts.Options{}, evaltest.Material{Steep: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := plain.(mcts.BatchEvaluator); ok {
		t.Fatalf("the hybrids around a plain evaluator are a batch evaluator (%T)", plain)
	}
	var qs []mcts.Query
	for _, pz := range evaltest.WinIn3 {
		p, err := rules.ParseFEN(pz.FEN)
		if err != nil {
			t.Fatal(err)
		}
		qs = append(qs, mcts.Query{Pos: p, Legal: p.Legal(nil)})
	}
	qs = append(qs, mcts.Query{Pos: rules.Start(), Legal: rules.Start().Legal(nil)})
	es := make([]*mcts.Evaluation, len(qs))
	for i, q := range qs {
		es[i] = &mcts.Evaluation{Priors: make([]float32, len(q.Legal))}
	}
	if err := bev.EvaluateBatch(context.Background(), qs, es); err != nil {
		t.Fatal(err)
	}
	if inner.batches != 1 || inner.singles != 0 {
		t.Errorf("one batch of %d made %d batch and %d single calls of the inner evaluator, want 1 and 0", len(qs), inner.batches, inner.singles)
	}
	changed := 0
	for i, q := range qs {
		want := evaluate(t, plain, q.Pos)
		base := evaluate(t, evaltest.Material{Steep: 1}, q.Pos)
		if es[i].WDL != want.WDL {
			t.Errorf("%s: batch value %v, one by one %v", q.Pos, es[i].WDL, want.WDL)
		}
		for j := range want.Priors {
			if es[i].Priors[j] != want.Priors[j] {
				t.Errorf("%s: batch prior %d %v, one by one %v", q.Pos, j, es[i].Priors[j], want.Priors[j])
			}
			if want.Priors[j] != base.Priors[j] {
				changed++
			}
		}
	}
	if changed == 0 {
		t.Error("the hybrids changed no prior of the wins in 3: the test compares nothing")
	}
	if err := bev.EvaluateBatch(context.Background(), qs, es[:1]); err == nil {
		t.Error("a batch of mismatched lengths gave no error")
	}
}
