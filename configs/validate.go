package configs

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
)

// FieldError is a field with a value outside its allowed range.
type FieldError struct {
	Field  string // dotted key, e.g. "selfplay.visits"
	Value  any    // the bad value
	Want   string // the allowed range, e.g. "an integer in 1..1000000"
	Source string // where the value came from, when known: a file, "override", "environment DAMA_..."
}

func (e *FieldError) Error() string {
	if e.Source != "" {
		return fmt.Sprintf("configs: %s = %v (from %s): want %s", e.Field, e.Value, e.Source, e.Want)
	}
	return fmt.Sprintf("configs: %s = %v: want %s", e.Field, e.Value, e.Want)
}

// Limits of the network size fields, those of package model (MaxBlocks,
// MaxFilters, MaxHeadFilters, MaxValueHidden there).
const (
	MaxBlocks      = 40
	MaxFilters     = 512
	MaxHeadFilters = 128
	MaxValueHidden = 1024
)

var nameRE = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// Validate checks every field and returns every problem found, each a
// *FieldError naming the field, the bad value and the allowed range (joined
// with errors.Join), or nil. The list of selfplay.hybrids is checked by
// package selfplay, which reads it (selfplay.ValidateSettings).
func (c *Config) Validate() error {
	var v validator
	c.validate(&v)
	if err := errors.Join(v.errs...); err != nil {
		return err
	}
	return c.validateSchedule()
}

// validate checks every field into v. It is the one definition of the
// allowed ranges: a test holds the documented ranges (the comments of
// Config's fields and of the presets) to the ranges it checks.
func (c *Config) validate(v *validator) {
	v.intIn("version", c.Version, Version, Version)

	v.check("run.name", c.Run.Name, nameRE.MatchString(c.Run.Name), "1 to 64 letters, digits, '.', '_' or '-'")
	v.intIn("run.workers", c.Run.Workers, 0, 4096)
	v.intIn("run.generations", c.Run.Generations, 0, 1000000)

	m := c.Model
	v.oneOf("model.preset", m.Preset, ModelPresets)
	v.intIn("model.blocks", m.Blocks, 0, MaxBlocks)
	v.intIn("model.filters", m.Filters, 0, MaxFilters)
	v.intIn("model.policy_filters", m.PolicyFilters, 0, MaxHeadFilters)
	v.intIn("model.value_filters", m.ValueFilters, 0, MaxHeadFilters)
	v.intIn("model.value_hidden", m.ValueHidden, 0, MaxValueHidden)

	c.SelfPlay.validate(v)

	t := c.Train
	v.intIn("train.batch", t.Batch, 2, 65536)
	v.oneOf("train.optimizer", t.Optimizer, []string{"adam", "sgd"})
	v.floatIn("train.momentum", t.Momentum, 0, true, 1, false)
	v.floatIn("train.lr", t.LR, 0, false, 10, true)
	v.oneOf("train.lr_schedule", t.LRSchedule, []string{"constant", "step", "cosine"})
	v.int64In("train.lr_warmup_steps", t.LRWarmupSteps, 0, 1e9)
	v.int64In("train.lr_decay_steps", t.LRDecaySteps, 1, 1e12)
	v.floatIn("train.lr_decay_factor", t.LRDecayFactor, 0, false, 1, true)
	v.floatIn("train.lr_min", t.LRMin, 0, true, bound(t.LR > 0 && t.LR <= 10, t.LR, 10), true)
	v.floatIn("train.weight_decay", t.WeightDecay, 0, true, 1, true)
	v.int64In("train.window_min", t.WindowMin, 1, 1e9)
	v.int64In("train.window_max", t.WindowMax, int64(bound(t.WindowMin >= 1 && t.WindowMin <= 1e9, float64(t.WindowMin), 1)), 1e10)
	v.floatIn("train.window_growth", t.WindowGrowth, 0, true, 1, true)
	v.floatIn("train.samples_per_new_sample", t.SamplesPerNewSample, 0, false, 1000, true)
	v.intIn("train.steps_per_generation", t.StepsPerGeneration, 0, 1e9)
	v.floatIn("train.value_target_mix", t.ValueTargetMix, 0, true, 1, true)

	a := c.Arena
	v.check("arena.games", a.Games, a.Games >= 2 && a.Games <= 1e6 && a.Games%2 == 0,
		"an even integer in 2..1000000 (each opening is played with both colours)")
	v.intIn("arena.parallel", a.Parallel, 1, 4096)
	v.intIn("arena.visits", a.Visits, 1, 1e6)
	v.intIn("arena.opening_plies", a.OpeningPlies, 1, 100)
	v.intIn("arena.max_plies", a.MaxPlies, 1, 10000)
	v.oneOf("arena.gating", a.Gating, gatingModes)
	v.floatIn("arena.elo0", a.Elo0, -1000, true, 1000, false)
	elo0 := bound(a.Elo0 >= -1000 && a.Elo0 < 1000, a.Elo0, -1000)
	v.check("arena.elo1", a.Elo1, a.Elo1 > elo0 && a.Elo1 <= 1000,
		fmt.Sprintf("a value in (%v,1000] (above arena.elo0)", elo0))
	v.floatIn("arena.alpha", a.Alpha, 0, false, 0.5, true)
	v.floatIn("arena.beta", a.Beta, 0, false, 0.5, true)
	v.floatIn("arena.threshold", a.Threshold, 0, false, 1, true)

	ld := c.Ladder
	v.intIn("ladder.every", ld.Every, 0, 1e6)
	v.intIn("ladder.visits", ld.Visits, 1, 1e6)
	v.check("ladder.games", ld.Games, ld.Games >= 2 && ld.Games <= 1e6 && ld.Games%2 == 0,
		"an even integer in 2..1000000")
	v.intIn("ladder.parallel", ld.Parallel, 1, 4096)
}

// Validate checks every field of the selfplay section and returns every
// problem found, as Config.Validate does; selfplay.hybrids is left to
// package selfplay (selfplay.ValidateSettings).
func (s SelfPlay) Validate() error {
	var v validator
	s.validate(&v)
	return errors.Join(v.errs...)
}

func (s SelfPlay) validate(v *validator) {
	v.intIn("selfplay.games_per_generation", s.GamesPerGeneration, 1, 1e7)
	v.intIn("selfplay.parallel", s.Parallel, 1, 4096)
	v.intIn("selfplay.leaves_in_flight", s.LeavesInFlight, 1, 256)
	v.intIn("selfplay.visits", s.Visits, 1, 1e6)
	v.floatIn("selfplay.cpuct", s.CPuct, 0, false, 100, true)
	v.floatIn("selfplay.fpu_reduction", s.FPUReduction, 0, true, 2, true)
	v.check("selfplay.policy_temp", s.PolicyTemp, s.PolicyTemp == 0 || s.PolicyTemp >= MinPolicyTemp && s.PolicyTemp <= MaxPolicyTemp,
		fmt.Sprintf("0 (off: the network's priors) or a number in [%v,%v]", MinPolicyTemp, MaxPolicyTemp))
	v.floatIn("selfplay.dirichlet_alpha", s.DirichletAlpha, 0, false, 10, true)
	v.floatIn("selfplay.dirichlet_fraction", s.DirichletFraction, 0, true, 1, false)
	v.intIn("selfplay.temperature_plies", s.TemperaturePlies, 0, 1000)
	v.intIn("selfplay.max_plies", s.MaxPlies, 1, 10000)
	visits := int(bound(s.Visits >= 1 && s.Visits <= 1e6, float64(s.Visits), 1e6))
	v.check("selfplay.cheap_visits", s.CheapVisits, s.CheapVisits == 0 || s.CheapVisits >= 1 && s.CheapVisits < visits,
		fmt.Sprintf("0 (off) or an integer in 1..%d (below selfplay.visits)", visits-1))
	v.floatIn("selfplay.full_search_prob", s.FullSearchProb, 0, false, 1, true)
	v.floatIn("selfplay.resign_threshold", s.ResignThreshold, 0, true, 0.5, false)
	v.intIn("selfplay.resign_moves", s.ResignMoves, 1, 100)
	v.floatIn("selfplay.no_resign_share", s.NoResignShare, 0, true, 1, true)
	v.intIn("selfplay.eval_batch", s.EvalBatch, 1, 4096)
	v.intIn("selfplay.eval_workers", s.EvalWorkers, 0, 256)
	v.intIn("selfplay.cache_size", s.CacheSize, 0, 1e8)
	v.oneOf("selfplay.backend", s.Backend, Backends)
	n, auto := s.AutoTables()
	v.check("selfplay.tables", fmt.Sprintf("%q", s.Tables), !auto || n > 0,
		fmt.Sprintf(`a folder of tables, "" (none) or %sN with N in 2..%d (tables of more pieces: dama tb gen --pieces N --out DIR, then the folder)`, AutoTablesPrefix, MaxAutoTablePieces))
	// selfplay.hybrids is a list in the syntax of package tactics, which
	// configs does not import: package selfplay checks it
	// (selfplay.ValidateSettings), before any game of every path.
}

// bound returns x, another key's value that bounds a key's range, when
// that value is valid (ok), and else fallback, the widest range: the bad
// key has its own error, and the key it bounds is not blamed for it
// (train.lr = NaN made "train.lr_min = 1e-05: want a number in [0,NaN]").
func bound(ok bool, x, fallback float64) float64 {
	if ok {
		return x
	}
	return fallback
}

// validator collects the errors of a validation and, when want is not
// nil, the allowed range of each field (its first check's).
type validator struct {
	errs []error
	want map[string]string
}

func (v *validator) check(field string, val any, ok bool, want string) {
	if _, seen := v.want[field]; v.want != nil && !seen {
		v.want[field] = want
	}
	if !ok {
		v.errs = append(v.errs, &FieldError{Field: field, Value: val, Want: want})
	}
}

func (v *validator) intIn(field string, x, lo, hi int) {
	v.check(field, x, x >= lo && x <= hi, fmt.Sprintf("an integer in %d..%d", lo, hi))
}

func (v *validator) int64In(field string, x, lo, hi int64) {
	v.check(field, x, x >= lo && x <= hi, fmt.Sprintf("an integer in %d..%d", lo, hi))
}

// floatIn checks x against an interval, each end open or closed.
func (v *validator) floatIn(field string, x, lo float64, loIn bool, hi float64, hiIn bool) {
	ok := !math.IsNaN(x) && (x > lo || loIn && x == lo) && (x < hi || hiIn && x == hi)
	l, r := "(", ")"
	if loIn {
		l = "["
	}
	if hiIn {
		r = "]"
	}
	v.check(field, x, ok, fmt.Sprintf("a number in %s%v,%v%s", l, lo, hi, r))
}

func (v *validator) oneOf(field, x string, allowed []string) {
	v.check(field, fmt.Sprintf("%q", x), slices.Contains(allowed, x), "one of "+strings.Join(allowed, ", "))
}
