package train

import (
	"context"
	"testing"

	"dama/arena"
	"dama/internal/evaltest"
)

// TestWorkstationGateRejectsWeakCandidate plays the gate of the workstation
// preset: a candidate that knows nothing (the random start) against a best
// model that knows material is rejected, early; the other way round the
// candidate is accepted.
func TestWorkstationGateRejectsWeakCandidate(t *testing.T) {
	cfg := loadConfig(t, "workstation")
	ac := cfg.Arena
	ac.Parallel = 4 // the verdict does not depend on it
	if ac.Gating != "threshold" {
		t.Fatalf("workstation gating %q: this test is written for the threshold gate", ac.Gating)
	}
	res, err := gateMatch(context.Background(), ac, cfg.SelfPlay, "weak", "best", evaltest.Draw, evaltest.Material{}, 7, nil)
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
	res, err = gateMatch(context.Background(), ac, cfg.SelfPlay, "strong", "best", evaltest.Material{}, evaltest.Draw, 7, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("strong candidate: %v", res)
	if res.Verdict != arena.Accept {
		t.Errorf("a clearly stronger candidate was not accepted: %v", res)
	}
}
