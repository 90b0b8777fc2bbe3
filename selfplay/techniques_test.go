package selfplay

import (
	"context"
	"runtime"
	"testing"

	"dama/configs"
	"dama/internal/evaltest"
	"dama/mcts"
)

func playAll(t *testing.T, cfg Config, n int) []*Game {
	t.Helper()
	games := make([]*Game, n)
	pl, err := newPlayer(evaltest.Material{}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for i := range games {
		if games[i], err = pl.Play(context.Background(), GameSeed(cfg.Seed, i)); err != nil {
			t.Fatal(err)
		}
	}
	return games
}

// TestSolverAndPassForcedGames plays games with the solver (turned on by
// the hybrid mm) and with forced moves passed: they are valid games whose
// full searches spend exactly their visits.
func TestSolverAndPassForcedGames(t *testing.T) {
	for _, set := range []func(c *Config){
		func(c *Config) { c.Hybrids = "mm2" },
		func(c *Config) { c.PassForced, c.CheapVisits, c.LeavesInFlight = true, 8, 2 },
	} {
		cfg := testConfig(1, func(c *Config) { c.Visits, c.MaxPlies = 24, 80; set(c) })
		for _, g := range playAll(t, cfg, 3) {
			checkGame(t, g, cfg)
		}
	}
}

func TestTechniqueConfig(t *testing.T) {
	if (testConfig(0, func(c *Config) { c.PassForced = true })).Digest() == (testConfig(0, nil)).Digest() {
		t.Errorf("pass_forced does not change the digest")
	}
	if !SearchOptions(testConfig(0, func(c *Config) { c.PassForced = true }).SelfPlay).PassForced || SearchOptions(testConfig(0, nil).SelfPlay).PassForced {
		t.Errorf("pass_forced does not reach the search")
	}
}

// TestSearchOptionsTechniques checks the mapping of the techniques: off in
// the default settings, passed to the search when set, and pass_forced in
// gating and the ladder too.
func TestSearchOptionsTechniques(t *testing.T) {
	c := configs.Default().SelfPlay
	if o := SearchOptions(c); o.Solver || o.PassForced || MatchOptions(c, 0).PassForced {
		t.Errorf("defaults turn on a technique: %+v", o)
	}
	c.PassForced = true
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if o := SearchOptions(c); !o.PassForced {
		t.Errorf("techniques not mapped: %+v", o)
	}
	if !MatchOptions(c, 0).PassForced {
		t.Error("gating and the ladder do not pass forced moves when self-play does")
	}
}

// TestEvaluatorOptions checks the mapping of the evaluator's settings, the
// one self-play, the run-folder workers and the broker workers use.
func TestEvaluatorOptions(t *testing.T) {
	c := configs.Default().SelfPlay
	c.EvalBatch, c.CacheSize, c.EvalWorkers, c.Backend = 48, 1000, 3, "fp32"
	if o := EvaluatorOptions(c); o.MaxBatch != 48 || o.CacheSize != 1000 || o.Workers != 3 || o.Backend != "fp32" {
		t.Errorf("evaluator options %+v from %+v", o, c)
	}
	c.EvalWorkers, c.CacheSize = 0, 0
	if o := EvaluatorOptions(c); o.Workers != runtime.GOMAXPROCS(0) || o.CacheSize != 0 {
		t.Errorf("eval_workers 0, cache_size 0: %+v, want a batcher per thread and no cache", o)
	}
	if o := MatchEvaluatorOptions(c, 0, 1<<16); o.MaxBatch != 1 || o.CacheSize != 1<<16 || o.Backend != "fp32" {
		t.Errorf("match evaluator options %+v", o)
	}
}

// TestYAMLToSearch follows settings from the YAML keys to the options the
// search runs with: a value, and 0, arrive unchanged.
func TestYAMLToSearch(t *testing.T) {
	for _, tc := range []struct {
		set        []string
		fpu, noise float64
		temp       bool
	}{
		{[]string{"selfplay.fpu_reduction=0.4", "selfplay.dirichlet_fraction=0.3", "selfplay.temperature_plies=8"}, 0.4, 0.3, true},
		{[]string{"selfplay.fpu_reduction=0", "selfplay.dirichlet_fraction=0", "selfplay.temperature_plies=0"}, 0, 0, false},
	} {
		c, err := configs.Load("quick", nil, tc.set)
		if err != nil {
			t.Fatal(err)
		}
		o := mcts.New(evaltest.Material{}, SearchOptions(c.SelfPlay)).Options()
		if o.FPUReduction != tc.fpu || o.DirichletFraction != tc.noise || (o.Temperature != nil) != tc.temp {
			t.Errorf("%v: the search runs with fpu %v noise %v temperature %v", tc.set, o.FPUReduction, o.DirichletFraction, o.Temperature != nil)
		}
		if m := mcts.New(evaltest.Material{}, MatchOptions(c.SelfPlay, 0)).Options(); m.FPUReduction != tc.fpu {
			t.Errorf("%v: gating searches with fpu %v", tc.set, m.FPUReduction)
		}
	}
}
