package train

import (
	"dama/configs"
	"dama/mcts"
	"dama/model/learn"
	"dama/selfplay"
)

// This file is the one place where the run configuration (package configs,
// where 0 means "off" or "none" wherever a field allows it) becomes the
// options of the packages that do the work, each of which reads 0 as "its
// default" and a negative value as "off". Every command that takes a
// configuration (dama train, dama selfplay --config, the run-folder and
// broker workers, the ladder) maps it through these functions.

// none turns the configuration's "0 = off" into the packages' "negative =
// off".
func none(v float64) float64 {
	if v == 0 {
		return -1
	}
	return v
}

// SelfPlayConfig maps the run configuration's self-play section to
// selfplay.Config, with seed as its base seed.
func SelfPlayConfig(c configs.SelfPlay, seed uint64) selfplay.Config {
	temp := c.TemperaturePlies
	if temp == 0 {
		temp = -1
	}
	return selfplay.Config{
		Visits: c.Visits, CPuct: c.CPuct, FPUReduction: none(c.FPUReduction),
		DirichletAlpha: c.DirichletAlpha, DirichletFraction: none(c.DirichletFraction),
		TemperaturePlies: temp, MaxPlies: c.MaxPlies,
		Parallel: c.Parallel, LeavesInFlight: c.LeavesInFlight,
		CheapVisits: c.CheapVisits, FullSearchProb: c.FullSearchProb,
		ResignThreshold: c.ResignThreshold, ResignMoves: c.ResignMoves,
		NoResignShare: none(c.NoResignShare), Seed: seed,
		Solver: c.Solver, PassForced: c.PassForced, ForcedPlayoutsK: c.ForcedPlayoutsK, PolicyTargetPruning: c.PolicyTargetPruning,
		RootSearch: c.RootSearch, GumbelM: c.GumbelM, GumbelCVisit: c.GumbelCVisit, GumbelCScale: c.GumbelCScale,
	}
}

// SearchOptions maps the self-play search constants of c to the options of
// a search without noise, as gating and the ladder play it; maxPlies is the
// game's length cap (0: none).
func SearchOptions(c configs.SelfPlay, maxPlies int) mcts.Options {
	return mcts.Options{CPuct: c.CPuct, FPUReduction: none(c.FPUReduction), MaxPlies: maxPlies, PassForced: c.PassForced}
}

// trainOptions maps the run configuration's training section to the
// trainer's options.
func trainOptions(c configs.Train) learn.TrainOptions {
	return learn.TrainOptions{
		Batch: c.Batch, LR: c.LR, WeightDecay: c.WeightDecay,
		Optimizer: c.Optimizer, Momentum: none(c.Momentum),
		Schedule: c.LRSchedule, WarmupSteps: c.LRWarmupSteps,
		DecaySteps: c.LRDecaySteps, DecayFactor: c.LRDecayFactor,
		TotalSteps: c.LRDecaySteps, MinLR: c.LRMin,
		AuxWeight: c.AuxReplyWeight, // used only by a network with the reply head
	}
}
