package main

import (
	"context"
	"fmt"

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
	qs, games, err := selfplay.Queries(dir)
	if err != nil {
		return err
	}
	if games == 0 {
		return fmt.Errorf("compare: no game chunks in %s", dir)
	}
	r, names, err := infer.CompareBackends(context.Background(), ck.Net, qs, backend, against, par)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%s against %s, %s (%s), %d games of %s:\n%s\nmeets the accuracy bar (top move >= 99%%, mean |dE| <= 0.01, max <= 0.05): %v\n",
		names[0], names[1], path, ck.Net.Config, games, dir, r, r.MeetsBar())
	return nil
}
