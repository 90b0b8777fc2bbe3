package main

import (
	"context"
	"fmt"

	"dama/mcts"
	"dama/model/infer"
	"dama/player"
	"dama/selfplay"
)

// modelCompare evaluates every position of the self-play games in dir
// with the checkpoint's network on two backends and prints how far they
// agree, against the accuracy bar of issue 12 (top move >= 99%, mean
// |dE| <= 0.01, max <= 0.05).
func modelCompare(e *env, path, dir, backend, against string, par int) error {
	ck, err := player.LoadModel(path)
	if err != nil {
		return err
	}
	files, err := selfplay.Chunks(dir)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("compare: no game chunks in %s", dir)
	}
	var qs []mcts.Query
	games := 0
	for _, f := range files {
		_, gs, err := selfplay.ReadFile(f)
		if err != nil {
			return err
		}
		for _, g := range gs {
			games++
			for _, p := range g.Plies {
				qs = append(qs, mcts.Query{Pos: p.Pos, Legal: p.Legal, Repetitions: p.Repetitions, QuietPlies: p.QuietPlies})
			}
		}
	}
	open := func(name string) (*infer.Evaluator, error) {
		return infer.OpenEvaluator(ck.Net, infer.EvaluatorOptions{MaxBatch: par, Backend: name})
	}
	a, err := open(backend)
	if err != nil {
		return err
	}
	defer a.Close()
	b, err := open(against)
	if err != nil {
		return err
	}
	defer b.Close()
	r, err := infer.Compare(context.Background(), a, b, qs, par)
	if err != nil {
		return err
	}
	meets := r.TopMoveShare() >= 0.99 && r.MeanDE <= 0.01 && r.MaxDE <= 0.05
	fmt.Fprintf(e.stdout, "%s against %s, %s (%s), %d games of %s:\n%s\nmeets the accuracy bar (top move >= 99%%, mean |dE| <= 0.01, max <= 0.05): %v\n",
		a.Backend(), b.Backend(), path, ck.Net.Config, games, dir, r, meets)
	return nil
}
