package arena

import (
	"context"
	"strings"
	"testing"

	"dama/internal/evaltest"
	"dama/mcts"
	"dama/rules"
)

func TestMCTSPlayerBeatsRandom(t *testing.T) {
	p := &MCTSPlayer{Label: "mcts", Evaluator: evaltest.Material{}, Visits: 64}
	res, err := Match(context.Background(), p, randomPlayer{}, MatchOptions{Games: 10, Parallel: 2, Seed: 3, MaxPlies: 200})
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
	if _, err := (&MCTSPlayer{Label: "x", Evaluator: evaltest.Material{}}).Start(context.Background(), g, nil); err == nil {
		t.Error("Start without visits succeeded")
	}
	bad := &MCTSPlayer{Label: "x", Evaluator: evaltest.Material{}, Visits: 10, Options: mcts.Options{FPUReduction: -1}}
	if _, err := bad.Start(context.Background(), g, nil); err == nil || !strings.Contains(err.Error(), "FPUReduction") {
		t.Errorf("Start with a negative FPU reduction: %v, want an error naming it", err)
	}
}
