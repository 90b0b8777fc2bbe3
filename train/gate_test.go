package train

import (
	"context"
	"math"
	"testing"

	"dama/arena"
	"dama/configs"
	"dama/mcts"
)

// materialEval values a position by material (a king worth 1.5 men) with
// uniform priors: a stand-in for a trained network.
type materialEval struct{}

func (materialEval) Evaluate(_ context.Context, q mcts.Query, e *mcts.Evaluation) error {
	for i := range e.Priors {
		e.Priors[i] = 1 / float32(len(e.Priors))
	}
	me, opp := q.Pos.Side(), q.Pos.Side().Opponent()
	mm, mk := q.Pos.Count(me)
	om, ok := q.Pos.Count(opp)
	v := math.Tanh((float64(mm-om) + 1.5*float64(mk-ok)) / 2)
	e.WDL = [3]float32{float32((1 + v) / 2), 0, float32((1 - v) / 2)}
	return nil
}

// blindEval knows nothing: uniform priors and an even game everywhere, like
// the random start of a run.
type blindEval struct{}

func (blindEval) Evaluate(_ context.Context, _ mcts.Query, e *mcts.Evaluation) error {
	for i := range e.Priors {
		e.Priors[i] = 1 / float32(len(e.Priors))
	}
	e.WDL = [3]float32{0, 1, 0}
	return nil
}

// TestWorkstationGateRejectsWeakCandidate plays the gate of the workstation
// preset: a candidate that knows nothing (the random start) against a best
// model that knows material is rejected, early; the other way round the
// candidate is accepted.
func TestWorkstationGateRejectsWeakCandidate(t *testing.T) {
	cfg, err := configs.Load("workstation", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	ac := cfg.Arena
	ac.Parallel = 4 // the verdict does not depend on it
	if ac.Gating != "threshold" {
		t.Fatalf("workstation gating %q: this test is written for the threshold gate", ac.Gating)
	}
	res, err := gateMatch(context.Background(), ac, cfg.SelfPlay, "weak", "best", blindEval{}, materialEval{}, 7, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("weak candidate: %v", res)
	if res.Verdict != arena.Reject {
		t.Errorf("a candidate without knowledge was not rejected: %v", res)
	}
	if res.Games() >= ac.Games {
		t.Errorf("the gate played all %d games for a clear case; want an early stop", res.Games())
	}
	res, err = gateMatch(context.Background(), ac, cfg.SelfPlay, "strong", "best", materialEval{}, blindEval{}, 7, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("strong candidate: %v", res)
	if res.Verdict != arena.Accept {
		t.Errorf("a clearly stronger candidate was not accepted: %v", res)
	}
}
