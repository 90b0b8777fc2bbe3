package train

import (
	"testing"

	"dama/configs"
	"dama/selfplay"
)

// TestOptionsOff checks that 0 in the configuration means "off" all the way
// down: selfplay.Config with its defaults filled in holds 0, and the search
// options of gating and the ladder hold mcts's "none".
func TestOptionsOff(t *testing.T) {
	c := configs.Default().SelfPlay
	c.FPUReduction, c.DirichletFraction, c.TemperaturePlies, c.NoResignShare = 0, 0, 0, 0
	sc := SelfPlayConfig(c, 3).WithDefaults()
	if sc.FPUReduction != 0 || sc.DirichletFraction != 0 || sc.TemperaturePlies != 0 || sc.NoResignShare != 0 {
		t.Errorf("0 = off became a default: %+v", sc)
	}
	if o := SearchOptions(c, 0); o.FPUReduction >= 0 {
		t.Errorf("fpu_reduction 0: search options FPUReduction %v, want negative (none)", o.FPUReduction)
	}
	if m := trainOptions(configs.Train{}).Momentum; m >= 0 {
		t.Errorf("momentum 0: trainer momentum %v, want negative (none)", m)
	}
}

// TestOptionsDefaults checks that the documented defaults of configs are
// selfplay's and mcts's own: the default configuration maps to the digest
// of the zero selfplay.Config, and set values pass unchanged.
func TestOptionsDefaults(t *testing.T) {
	c := configs.Default().SelfPlay
	if got, want := SelfPlayConfig(c, 5).Digest(), (selfplay.Config{Seed: 5}).Digest(); got != want {
		t.Errorf("default configuration: digest %s, want the zero selfplay.Config's %s", got, want)
	}
	o := SearchOptions(c, 120)
	if o.CPuct != c.CPuct || o.FPUReduction != c.FPUReduction || o.MaxPlies != 120 || o.DirichletFraction != 0 {
		t.Errorf("search options %+v from %+v", o, c)
	}
	c.FPUReduction, c.Visits = 0.5, 64
	if sc := SelfPlayConfig(c, 5).WithDefaults(); sc.FPUReduction != 0.5 || sc.Visits != 64 {
		t.Errorf("set values changed: %+v", sc)
	}
}
