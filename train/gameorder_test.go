package train

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"dama/runfolder"
)

// Two runs of one configuration and seed, with self-play in the process,
// give the same generations: games, positions, window, training losses and
// gating (issue 19, item 6).
func TestRunReproducible(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a tiny network twice")
	}
	cfg := loadConfig(t, "quick",
		"run.generations=2", "model.preset=tiny",
		"selfplay.games_per_generation=8", "selfplay.parallel=4", "selfplay.visits=8", "selfplay.max_plies=60",
		"train.batch=16", "train.window_min=100", "train.window_max=300", "train.steps_per_generation=10",
		"arena.games=4", "arena.parallel=2", "arena.visits=4", "arena.max_plies=40", "ladder.every=0",
	)
	type summary struct {
		Chunks                   []string
		Games, Positions, Window int
		Steps                    int
		PolicyLoss, ValueLoss    float64
		Promoted                 bool
		TotalGames               int
	}
	var runs [2][]summary
	for k := range runs {
		dir := filepath.Join(t.TempDir(), "run")
		if err := Loop(context.Background(), Options{Config: cfg, Dir: dir, SelfPlay: true, Revision: "test"}); err != nil {
			t.Fatal(err)
		}
		run, err := runfolder.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		for gen := 1; gen <= 2; gen++ {
			r, err := run.ReadRecord(gen)
			if err != nil {
				t.Fatal(err)
			}
			runs[k] = append(runs[k], summary{r.Chunks, r.Games, r.Positions, r.Window, r.Steps, r.PolicyLoss, r.ValueLoss, r.Promoted, r.TotalGames})
		}
	}
	if !reflect.DeepEqual(runs[0], runs[1]) {
		t.Errorf("two runs of one config and seed differ:\n%+v\n%+v", runs[0], runs[1])
	}
}
