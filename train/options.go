package train

import (
	"os"
	"path/filepath"

	"dama/configs"
	"dama/model/learn"
	"dama/runfolder"
	"dama/selfplay"
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

// LoadConfig returns the configuration of a run that dama train starts
// or resumes, and its folder. The configuration is config (a YAML file or
// a preset), or without it the archived configuration of the run folder
// runDir where it has one, else the quick preset (configs.Load), with env
// and the overrides sets over it; its self-play section is checked as
// self-play reads it (selfplay.ValidateSettings). The folder is runDir,
// or checkpoints/RUN.NAME.
func LoadConfig(config, runDir string, env, sets []string) (*configs.Config, string, error) {
	archived := filepath.Join(runDir, runfolder.ConfigFile)
	if _, err := os.Stat(archived); config == "" && runDir != "" && err == nil {
		config = archived
	}
	cfg, err := configs.Load(config, env, sets)
	if err != nil {
		return nil, "", err
	}
	if err := selfplay.ValidateSettings(cfg.SelfPlay); err != nil {
		return nil, "", err
	}
	if runDir == "" {
		runDir = filepath.Join("checkpoints", cfg.Run.Name)
	}
	return cfg, runDir, nil
}
