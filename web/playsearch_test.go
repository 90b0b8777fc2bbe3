package web

import (
	"testing"

	"dama/engine"
	"dama/internal/evaltest"
	"dama/tactics"
)

// TestPlaySearchIsTheEngines: the play board searches as dama play does
// (engine.SearchDefaults: the flattened priors included) in its 64 MB
// tree, with the default hybrids.
func TestPlaySearchIsTheEngines(t *testing.T) {
	_, opt, err := playSearch(evaltest.Draw)
	if err != nil {
		t.Fatal(err)
	}
	want := engine.SearchDefaults()
	if opt.FPUReduction != want.FPUReduction || opt.Parallel != want.Parallel || opt.PassForced != want.PassForced ||
		opt.PolicyTemperature != engine.PlayPolicyTemperature || opt.MaxNodes != engine.TreeNodes(64) {
		t.Errorf("play board search %+v, want the engine's %+v in 64 MB", opt, want)
	}
	if m, ok := opt.Oracle.(*tactics.Minimax); !ok || m.Depth != tactics.DefaultHybrids.Minimax || !opt.Solver {
		t.Errorf("play board oracle %#v, solver %v: want the default hybrids' mm%d", opt.Oracle, opt.Solver, tactics.DefaultHybrids.Minimax)
	}
}
