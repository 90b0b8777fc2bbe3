package train

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dama/configs"
	"dama/runfolder"
	"dama/selfplay"
)

// TestHybridsRefused: Loop refuses a bad selfplay.hybrids (configs keeps
// the text; selfplay.ValidateSettings reads it) with one line naming the
// key, before it makes the run folder, with self-play in the process or
// only in workers.
func TestHybridsRefused(t *testing.T) {
	for _, bad := range []string{"bogus", "mm4,ab12"} {
		cfg := loadConfig(t, "quick", "selfplay.hybrids="+bad)
		for _, sp := range []bool{true, false} {
			dir := filepath.Join(t.TempDir(), "run")
			err := Loop(context.Background(), Options{Config: cfg, Dir: dir, SelfPlay: sp, Revision: "test"})
			if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), `selfplay.hybrids = "`+bad+`": want`) {
				t.Errorf("selfplay.hybrids=%s, self-play %v: %v", bad, sp, err)
			}
			if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("selfplay.hybrids=%s: the refused run made %s: %v", bad, dir, err)
			}
		}
	}
}

// TestHybridsRun: with selfplay.hybrids "mm4,cmb3,ip3" a run's self-play
// searches with them: its chunks carry the digest of settings with the
// hybrids (the trainer's check accepted them into the generation, and
// takes no chunk played without them), and some of its searches end with a
// proven root, an exact W/D/L that only the Minimax oracle gives here
// (there are no tables, and the tiny network never says 1 or 0). The archived configuration keeps the key.
func TestHybridsRun(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a tiny network for one generation")
	}
	cfg := loadConfig(t, "quick",
		"run.generations=1", "model.preset=tiny", "selfplay.hybrids=mm4,cmb3,ip3",
		"selfplay.games_per_generation=8", "selfplay.parallel=8", "selfplay.visits=8", "selfplay.max_plies=300",
		"selfplay.resign_threshold=0",
		"train.batch=16", "train.window_min=100", "train.window_max=3000", "train.steps_per_generation=4",
		"arena.games=2", "arena.parallel=2", "arena.visits=2", "arena.max_plies=20", "ladder.every=0",
	)
	if cfg.SelfPlay.Tables != "" {
		t.Fatalf("quick has tables (%q): a proven root would show nothing", cfg.SelfPlay.Tables)
	}
	dir := filepath.Join(t.TempDir(), "run")
	var log strings.Builder
	if err := Loop(context.Background(), Options{Config: cfg, Dir: dir, SelfPlay: true, Revision: "test", Log: &log}); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	run, err := runfolder.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	archived, err := run.Config()
	if err != nil || archived.SelfPlay.Hybrids != "mm4,cmb3,ip3" {
		t.Fatalf("archived configuration: %v, selfplay.hybrids %q", err, archived.SelfPlay.Hybrids)
	}
	without := cfg.SelfPlay
	without.Hybrids = ""
	rec, err := run.ReadRecord(1)
	if err != nil {
		t.Fatal(err)
	}
	proven, plies := 0, 0
	for _, c := range rec.Chunks {
		h, games, err := selfplay.ReadFile(run.Path(runfolder.GamesDir, c))
		if err != nil {
			t.Fatal(err)
		}
		if len(games) == 0 {
			continue
		}
		if err := (&selfplay.Checker{Settings: []configs.SelfPlay{cfg.SelfPlay}}).Check(c, h, games); err != nil {
			t.Errorf("%s against the run's settings: %v", c, err)
		}
		if err := (&selfplay.Checker{Settings: []configs.SelfPlay{without}}).Check(c, h, games); err == nil || !selfplay.Refused(err) {
			t.Errorf("%s against the settings without hybrids: %v, want refused", c, err)
		}
		for _, g := range games {
			for _, p := range g.Plies {
				plies++
				if p.WDL == [3]float32{1, 0, 0} || p.WDL == [3]float32{0, 0, 1} {
					proven++
				}
			}
		}
	}
	t.Logf("%d of %d searches of %d games ended with a proven root", proven, plies, rec.Games)
	if proven == 0 {
		t.Errorf("no search of %d games (%d plies) proved its root", rec.Games, plies)
	}
}
