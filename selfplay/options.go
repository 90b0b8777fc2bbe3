package selfplay

import (
	"fmt"
	"runtime"

	"dama/configs"
	"dama/mcts"
	"dama/model/infer"
	"dama/tactics"
)

// This file is the one place where the self-play settings (configs.SelfPlay)
// become the options of the packages that play with them: the search of
// self-play, the search of gating and ladder games, and the network
// evaluators. A zero setting means what configs says it means; the
// mapping keeps that meaning (mcts reads a zero amount as none, too).

// SearchOptions returns the options of the searches of self-play under c
// (the root noise is asked for per search, mcts.Limit.Noise).
func SearchOptions(c configs.SelfPlay) mcts.Options {
	o := mcts.Options{
		CPuct:             c.CPuct,
		FPUReduction:      c.FPUReduction,
		PolicyTemperature: c.PolicyTemp,
		DirichletAlpha:    c.DirichletAlpha,
		DirichletFraction: c.DirichletFraction,
		MaxPlies:          c.MaxPlies,
		Parallel:          c.LeavesInFlight,
		PassForced:        c.PassForced,
	}
	if c.TemperaturePlies > 0 {
		o.Temperature = mcts.TemperatureSchedule(c.TemperaturePlies, 1, 0)
	}
	return o
}

// searchHybrids turns the hybrids of s.Hybrids on in opt and around ev
// (tactics.Hybrids.Apply: the Minimax oracle after the tables, with the
// solver) and returns the evaluator to search with: ev itself without
// hybrids.
func searchHybrids(s configs.SelfPlay, opt *mcts.Options, ev mcts.Evaluator) (mcts.Evaluator, error) {
	if err := HybridsError(s.Hybrids); err != nil {
		return nil, err
	}
	h, _ := tactics.ParseHybrids(s.Hybrids) // HybridsError read it
	ev, _, err := h.Apply(opt, ev)
	if err != nil {
		return nil, fmt.Errorf("selfplay.hybrids %q: %w", s.Hybrids, err)
	}
	return ev, nil
}

// MatchOptions returns the options of the searches of gating and ladder
// games under c: self-play's PUCT constants and pass_forced, without
// noise, temperature or the self-play techniques (tables, hybrids);
// maxPlies is the match's length cap (0: none).
func MatchOptions(c configs.SelfPlay, maxPlies int) mcts.Options {
	return mcts.Options{CPuct: c.CPuct, FPUReduction: c.FPUReduction, MaxPlies: maxPlies, PassForced: c.PassForced}
}

// EvaluatorOptions returns the options of the network evaluator of
// self-play under c; eval_workers 0 becomes one batcher per CPU thread the
// process may use (GOMAXPROCS, which run.workers sets).
func EvaluatorOptions(c configs.SelfPlay) infer.EvaluatorOptions {
	workers := c.EvalWorkers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	return infer.EvaluatorOptions{MaxBatch: c.EvalBatch, CacheSize: c.CacheSize, Workers: workers, Backend: c.Backend}
}

// MatchEvaluatorOptions returns the options of a network evaluator for
// parallel match games at once (gating, the ladder) under c, caching cache
// evaluations: one batch holds a position of every game.
func MatchEvaluatorOptions(c configs.SelfPlay, parallel, cache int) infer.EvaluatorOptions {
	return infer.EvaluatorOptions{MaxBatch: max(1, parallel), CacheSize: cache, Backend: c.Backend}
}
