package main

import (
	"context"

	"dama/broker"
	"dama/runfolder"
	"dama/selfplay"
	"dama/train"
)

// startBroker serves or connects to the broker for dama train
// (broker.StartTrainer) and hooks the bridge into opt; the returned
// function stops both, telling workers the run is done (finished) or
// paused.
func startBroker(ctx context.Context, e *env, b *broker.Flags, dir string, opt *train.Options) (func(finished bool), error) {
	to, err := b.Trainer()
	if err != nil {
		return nil, err
	}
	run, err := runfolder.Open(dir)
	if err != nil {
		return nil, err
	}
	// One index of the run's games for the trainer and the bridge: the
	// bridge refuses a chunk repeating a game the trainer took.
	check := selfplay.RunChecker(opt.Config.SelfPlay, run.SelfPlayHistory, run.Path(runfolder.AcceptedDir))
	opt.Held = selfplay.NewGameIndex()
	check.Held = opt.Held
	to.Run, to.Log, to.Check, to.Want = run, e.stdout, check, opt.Config.SelfPlay.GamesPerGeneration
	t, err := broker.StartTrainer(ctx, to)
	if err != nil {
		return nil, err
	}
	opt.OnBest, opt.OnPlan, opt.OnConfig, opt.OnQuarantine = t.Bridge.OnBest, t.Bridge.OnPlan, t.Bridge.OnConfig, t.Bridge.OnQuarantine
	return t.Stop, nil
}
