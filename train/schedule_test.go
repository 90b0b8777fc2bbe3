package train

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dama/configs"
	"dama/runfolder"
)

// scheduleConfig writes an overlay of the quick preset with schedule (the
// text of its schedule: list) and loads it, cut down to a tiny network and
// a few games a generation.
func scheduleConfig(t *testing.T, schedule string, sets ...string) *configs.Config {
	t.Helper()
	path := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(path, []byte("base: quick\nschedule:\n"+schedule), 0o644); err != nil {
		t.Fatal(err)
	}
	return loadConfig(t, path, append([]string{
		"model.preset=tiny",
		"selfplay.games_per_generation=4", "selfplay.parallel=4", "selfplay.visits=4", "selfplay.max_plies=40", "selfplay.eval_batch=4",
		"train.batch=8", "train.window_min=1", "train.window_max=2000", "train.steps_per_generation=5",
		"arena.games=4", "arena.parallel=2", "arena.visits=2", "arena.max_plies=40", "arena.gating=threshold",
	}, sets...)...)
}

const twoPhases = `  - generation: 2
    note: more visits
    set:
      selfplay.visits: 6
      train.lr: 0.0005
  - generation: 9
    set:
      arena.visits: 3
`

// A run follows its schedule: generation 2 enters the phase (a line, a
// record in ChangesFile with the phase, the archive's new values, games
// played and checked by them), and the run resumes with the same
// configuration; a changed phase it has begun is refused, a phase it has
// not begun may change.
func TestLoopFollowsSchedule(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	var log bytes.Buffer
	cfg := scheduleConfig(t, twoPhases, "run.generations=2")
	if err := Loop(context.Background(), Options{Config: cfg, Dir: dir, Revision: "test", SelfPlay: true, Log: &log}); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if !strings.Contains(log.String(), "schedule: generation 2 begins phase 1 of 2: selfplay.visits (4 -> 6), train.lr (0.002 -> 0.0005) (more visits)") {
		t.Errorf("no line for the phase:\n%s", log.String())
	}
	run := &runfolder.Run{Dir: dir}
	ch, err := run.ReadChanges()
	if err != nil {
		t.Fatal(err)
	}
	if len(ch) != 1 || ch[0].Generation != 2 || ch[0].Phase != 1 || len(ch[0].Changes) != 2 || ch[0].Changes[0].Key != "selfplay.visits" {
		t.Errorf("recorded %+v", ch)
	}
	archived, err := run.Config()
	if err != nil {
		t.Fatal(err)
	}
	if archived.SelfPlay.Visits != 6 || archived.Train.LR != 0.0005 || len(archived.Schedule) != 2 {
		t.Errorf("archive: visits %d lr %v, %d phases", archived.SelfPlay.Visits, archived.Train.LR, len(archived.Schedule))
	}
	hist, err := run.SelfPlayHistory()
	if err != nil || len(hist) != 2 || hist[0].Visits != 6 || hist[1].Visits != 4 {
		t.Errorf("self-play history %v (%v)", hist, err)
	}
	start := func(c *configs.Config) error {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		return Loop(ctx, Options{Config: c, Dir: dir, Revision: "test"})
	}
	if err := start(scheduleConfig(t, twoPhases, "run.generations=3")); err != context.Canceled {
		t.Errorf("resume with the same configuration: %v", err)
	}
	if err := start(archived); err != nil { // complete: its run.generations is 2
		t.Errorf("resume from the archive: %v", err)
	}
	begun := strings.Replace(twoPhases, "visits: 6", "visits: 7", 1)
	wantRefusal(t, "a begun phase changed", start(scheduleConfig(t, begun)), "schedule's phases up to generation 2", "from generation 3 on may change")
	later := strings.Replace(twoPhases, "generation: 9", "generation: 12", 1)
	if err := start(scheduleConfig(t, later)); err != context.Canceled {
		t.Errorf("a phase not begun moved: %v", err)
	}
	if ch, _ := run.ReadChanges(); len(ch) != 1 {
		t.Errorf("%d change records after the resumes, want 1", len(ch))
	}
	// Generation 3 plays on by the phase's values, and a phase entered
	// again (a kill between the record and the archive) is not recorded
	// twice.
	log.Reset()
	if err := Loop(context.Background(), Options{Config: scheduleConfig(t, later, "run.generations=3"), Dir: dir, Revision: "test", SelfPlay: true, Log: &log}); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if strings.Contains(log.String(), "begins phase") {
		t.Errorf("generation 3 entered a phase again:\n%s", log.String())
	}
	if err := run.ChangeConfig(2, 1, ch[0].Changes, mustYAML(t, archived)); err != nil {
		t.Fatal(err)
	}
	if ch, _ := run.ReadChanges(); len(ch) != 1 {
		t.Errorf("the same change made again: %d records", len(ch))
	}
}

func mustYAML(t *testing.T, c *configs.Config) []byte {
	t.Helper()
	y, err := c.YAML()
	if err != nil {
		t.Fatal(err)
	}
	return y
}
