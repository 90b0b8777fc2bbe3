package train

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"dama/configs"
	"dama/runfolder"
	"dama/selfplay"
)

// Games finishing in any order are written in the order of their indices,
// so a generation's chunks do not depend on timing; games held when the run
// stops are kept, in order (issue 19, item 6: two runs of one config and
// seed wrote games in the order they finished and trained differently).
func TestGameOrder(t *testing.T) {
	const base = 7
	game := func(i int) *selfplay.Game { return &selfplay.Game{Seed: selfplay.GameSeed(base, i)} }
	var got []uint64
	o := newGameOrder(base, 10, 6, func(g *selfplay.Game) error { got = append(got, g.Seed); return nil })
	for _, i := range []int{12, 10, 13, 11, 15} {
		if err := o.add(game(i)); err != nil {
			t.Fatal(err)
		}
	}
	if len(got) != 4 {
		t.Errorf("%d games written before game 14 finished, want 4 (10..13)", len(got))
	}
	if err := o.flush(); err != nil {
		t.Fatal(err)
	}
	var want []uint64
	for _, i := range []int{10, 11, 12, 13, 15} {
		want = append(want, selfplay.GameSeed(base, i))
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("games written in the order %v, want %v", got, want)
	}
}

// Two runs of one configuration and seed, with self-play in the process,
// give the same generations: games, positions, window, training losses and
// gating (issue 19, item 6).
func TestRunReproducible(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a tiny network twice")
	}
	cfg, err := configs.Load("quick", nil, []string{
		"run.generations=2", "model.preset=tiny",
		"selfplay.games_per_generation=8", "selfplay.parallel=4", "selfplay.visits=8", "selfplay.max_plies=60",
		"train.batch=16", "train.window_min=100", "train.window_max=300", "train.steps_per_generation=10",
		"arena.games=4", "arena.parallel=2", "arena.visits=4", "arena.max_plies=40", "ladder.every=0",
	})
	if err != nil {
		t.Fatal(err)
	}
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
