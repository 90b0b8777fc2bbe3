package train

import (
	"dama/configs"
	"dama/model/learn"
)

// trainOptions maps the run configuration's training section to the
// trainer's options, the one place where they are mapped (the self-play
// section is mapped in package selfplay: SearchOptions, MatchOptions,
// EvaluatorOptions). Zero means the same on both sides (momentum 0: plain
// SGD).
func trainOptions(c configs.Train) learn.TrainOptions {
	return learn.TrainOptions{
		Batch: c.Batch, LR: c.LR, WeightDecay: c.WeightDecay,
		Optimizer: c.Optimizer, Momentum: c.Momentum,
		Schedule: c.LRSchedule, WarmupSteps: c.LRWarmupSteps,
		DecaySteps: c.LRDecaySteps, DecayFactor: c.LRDecayFactor,
		TotalSteps: c.LRDecaySteps, MinLR: c.LRMin,
	}
}
