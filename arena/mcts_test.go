package arena

import (
	"context"
	"testing"

	"dama/mcts"
	"dama/rules"
)

// materialEval is a fake network: uniform priors and a value from the
// material balance, enough for a search to beat a random player.
type materialEval struct{}

func (materialEval) Evaluate(_ context.Context, q mcts.Query, e *mcts.Evaluation) error {
	for i := range e.Priors {
		e.Priors[i] = 1 / float32(len(e.Priors))
	}
	side := q.Pos.Side()
	m1, k1 := q.Pos.Count(side)
	m2, k2 := q.Pos.Count(side.Opponent())
	d := float32(m1-m2) + 1.5*float32(k1-k2)
	w := 0.5 + d/8
	if w < 0.02 {
		w = 0.02
	}
	if w > 0.98 {
		w = 0.98
	}
	e.WDL = [3]float32{w * 0.9, 0.1, (1 - w) * 0.9}
	return nil
}

func TestMCTSPlayerBeatsRandom(t *testing.T) {
	p := &MCTSPlayer{Label: "mcts", Evaluator: materialEval{}, Visits: 64}
	res, err := Match(context.Background(), p, Random{}, MatchOptions{Games: 10, Parallel: 2, Seed: 3, MaxPlies: 200})
	if err != nil {
		t.Fatal(err)
	}
	if res.Score() < 0.8 {
		t.Errorf("MCTS with a material evaluator scored %.2f against random (%s), want >= 0.8", res.Score(), res)
	}
}

func TestMCTSPlayerNeedsEvaluatorAndVisits(t *testing.T) {
	g := rules.NewGame(rules.Start())
	if _, err := (&MCTSPlayer{Label: "x", Visits: 10}).Start(context.Background(), g, nil); err == nil {
		t.Error("Start without an evaluator succeeded")
	}
	if _, err := (&MCTSPlayer{Label: "x", Evaluator: materialEval{}}).Start(context.Background(), g, nil); err == nil {
		t.Error("Start without visits succeeded")
	}
}
