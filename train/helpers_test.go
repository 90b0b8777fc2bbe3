package train

import (
	"os"
	"path/filepath"
	"testing"

	"dama/arena"
	"dama/configs"
	"dama/runfolder"
)

// loadConfig loads the configuration preset (or file) name with sets
// applied; an error fails tb.
func loadConfig(tb testing.TB, name string, sets ...string) *configs.Config {
	tb.Helper()
	cfg, err := configs.Load(name, nil, sets)
	if err != nil {
		tb.Fatal(err)
	}
	return cfg
}

// tempRun opens a run folder in a temporary directory; an error fails tb.
func tempRun(tb testing.TB) *runfolder.Run {
	tb.Helper()
	run, err := runfolder.Open(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	return run
}

// ratedConfig is the quick preset cut down to one generation of a tiny
// network that is gated (by threshold) and rated on a two-rung ladder
// (random and alphabeta:1), four games each, with sets applied.
func ratedConfig(tb testing.TB, sets ...string) *configs.Config {
	tb.Helper()
	lad := &arena.Ladder{
		Anchor: "random", Seed: 1, OpeningPlies: 4, MaxPlies: 40,
		Rungs: []arena.Rung{{Player: "random"}, {Player: "alphabeta:1", Elo: 600, StdErr: 50}},
	}
	b, err := lad.Encode()
	if err != nil {
		tb.Fatal(err)
	}
	ladder := filepath.Join(tb.TempDir(), "ladder.json")
	if err := os.WriteFile(ladder, b, 0o644); err != nil {
		tb.Fatal(err)
	}
	return loadConfig(tb, "quick", append([]string{
		"run.generations=1", "model.preset=tiny",
		"selfplay.games_per_generation=4", "selfplay.parallel=4", "selfplay.visits=4", "selfplay.max_plies=40", "selfplay.eval_batch=4",
		"train.batch=8", "train.window_min=1", "train.window_max=2000", "train.steps_per_generation=5",
		"arena.games=4", "arena.parallel=2", "arena.visits=2", "arena.max_plies=40", "arena.gating=threshold",
		"ladder.every=1", "ladder.games=4", "ladder.visits=2", "ladder.parallel=2", "ladder.file=" + ladder,
	}, sets...)...)
}
