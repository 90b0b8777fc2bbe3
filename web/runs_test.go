package web

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"dama/report"
	"dama/runfolder"
	"dama/selfplay"
)

// Two runs on one server: each has its run page by id; an unknown id is
// refused naming the runs there are; the first run's page says which
// generation is in progress and where it stands.
func TestRunsAndProgress(t *testing.T) {
	a, b := testRun(t), testRun(t)
	addGeneration(t, b, 5, time.Date(2026, 12, 1, 5, 0, 0, 0, time.UTC))
	_, ts := newTestServer(t, Options{Run: a, More: []*runfolder.Run{b}})
	var runs struct{ Runs []runInfo }
	get(t, ts, "/api/runs", 200, &runs)
	if len(runs.Runs) != 2 || runs.Runs[0].ID != "run" || runs.Runs[1].ID != "run-2" || runs.Runs[0].Name != "quick" || runs.Runs[1].Dir != b.Dir {
		t.Fatalf("runs %+v, want run (quick) and run-2", runs.Runs)
	}
	var ra, rb runJSON
	get(t, ts, "/api/run", 200, &ra)
	get(t, ts, "/api/run?run=run-2", 200, &rb)
	if len(ra.Generations) != 4 || len(rb.Generations) != 5 {
		t.Errorf("generations: first run %d, second %d; want 4 and 5", len(ra.Generations), len(rb.Generations))
	}
	if g := ra.Generations[3]; g.StepEnd != 16 || g.Hours == 0 {
		t.Errorf("generation 4 on the other axes: %+v, want 16 steps so far and hours from the start", g)
	}
	if body := get(t, ts, "/api/run?run=nope", 404, nil); !strings.Contains(body, `"nope"`) || !strings.Contains(body, "run, run-2") {
		t.Errorf("unknown run: %q, want it named and the runs listed", body)
	}

	// The sample run planned 1 generation: with none planned it goes on.
	var rp struct{ Progress *report.Progress }
	get(t, ts, "/api/run", 200, &rp)
	if rp.Progress != nil {
		t.Errorf("progress %+v of a run past its planned generations, want none", rp.Progress)
	}
	goOn(t, a)
	get(t, ts, "/api/run", 200, &rp)
	_, games, err := selfplay.ReadFile(a.Path(runfolder.GamesDir, "chunk-w2-000000.dgames"))
	if err != nil {
		t.Fatal(err)
	}
	if p := rp.Progress; p == nil || p.Gen != 5 || p.Stage != report.StageSelfPlay || p.Done != len(games) || p.Unit != "games" {
		t.Errorf("progress %+v, want generation 5 in self-play with the %d games waiting", p, len(games))
	}
}

// An overlaid run's curves come in "overlay" events (the sections the
// curves need, not its workers), again when they change; an unknown
// overlay is refused.
func TestEventsOverlay(t *testing.T) {
	a, b := testRun(t), testRun(t)
	_, ts := newTestServer(t, Options{Run: a, More: []*runfolder.Run{b}, Poll: 10 * time.Millisecond})
	get(t, ts, "/api/events?overlay=nope", 404, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	events := readEvents(ctx, t, ts.URL+"/api/events?overlay=run-2")
	main, over := map[string]bool{}, map[string]bool{}
	for len(main) < len(sectionNames) || !over["generations"] || !over["losses"] {
		ev, ok := <-events
		if !ok {
			t.Fatalf("stream ended; saw %v and overlays %v", main, over)
		}
		if ev.name != "overlay" {
			main[ev.name] = true
			continue
		}
		var o overlayEvent
		if err := json.Unmarshal([]byte(ev.data), &o); err != nil {
			t.Fatal(err)
		}
		if o.Run != "run-2" || !overlaySections[o.Section] {
			t.Errorf("overlay event %s of %s", o.Section, o.Run)
		}
		over[o.Section] = true
	}
	addGeneration(t, b, 5, time.Date(2026, 12, 1, 5, 0, 0, 0, time.UTC))
	for {
		ev, ok := <-events
		if !ok {
			t.Fatal("stream ended before run-2's generation 5")
		}
		if ev.name == "generations" {
			t.Errorf("the shown run's generations sent again: only run-2 changed")
		}
		if ev.name == "overlay" && strings.Contains(ev.data, `"section":"generations"`) && strings.Contains(ev.data, `"gen":5`) {
			break
		}
	}
}

// A missing run folder, or one given twice, is an error naming it.
func TestNewBadRuns(t *testing.T) {
	a := testRun(t)
	missing := &runfolder.Run{Dir: filepath.Join(t.TempDir(), "gone")}
	if _, err := New(Options{Run: a, More: []*runfolder.Run{missing}}); err == nil || !strings.Contains(err.Error(), missing.Dir) {
		t.Errorf("missing run: %v, want an error naming %s", err, missing.Dir)
	}
	if _, err := New(Options{Run: a, More: []*runfolder.Run{{Dir: a.Dir + "/"}}}); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("the same run twice: %v", err)
	}
}

// FindRuns takes the run folders of a folder, by name, and nothing else.
func TestFindRuns(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"b", "a"} {
		if _, err := runfolder.Open(filepath.Join(dir, n)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "notes"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "README"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	runs, err := FindRuns(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 || filepath.Base(runs[0].Dir) != "a" || filepath.Base(runs[1].Dir) != "b" {
		t.Errorf("runs %v, want a and b", runs)
	}
	empty := filepath.Join(dir, "notes")
	if _, err := FindRuns(empty); err == nil || !strings.Contains(err.Error(), empty) {
		t.Errorf("a folder without runs: %v, want an error naming it", err)
	}
	if _, err := FindRuns(filepath.Join(dir, "none")); err == nil || !strings.Contains(err.Error(), "none") {
		t.Errorf("a missing folder: %v", err)
	}

	// dama serve's runs: --run folders in order, then those of --runs.
	all, err := Runs([]string{filepath.Join(dir, "b")}, dir)
	if err != nil || len(all) != 2 || filepath.Base(all[0].Dir) != "b" || filepath.Base(all[1].Dir) != "a" {
		t.Errorf("runs %v (%v), want b, then a (b once)", all, err)
	}
	if _, err := Runs([]string{dir}, ""); err == nil || !strings.Contains(err.Error(), "--runs "+dir) {
		t.Errorf("--run of a folder of runs: %v, want --runs suggested", err)
	}
	if _, err := Runs(nil, ""); err == nil || !strings.Contains(err.Error(), "missing --run") {
		t.Errorf("no run: %v", err)
	}
	if _, err := Runs([]string{filepath.Join(dir, "gone")}, ""); err == nil || !strings.Contains(err.Error(), "gone") {
		t.Errorf("a missing --run folder: %v", err)
	}
}

// goOn makes a test run plan no end (run.generations 0), so that it has
// a generation in progress.
func goOn(t testing.TB, run *runfolder.Run) {
	t.Helper()
	cfg, err := os.ReadFile(run.Path(runfolder.ConfigFile))
	if err != nil {
		t.Fatal(err)
	}
	goes := strings.Replace(string(cfg), "generations: 1\n", "generations: 0\n", 1)
	if goes == string(cfg) {
		t.Fatal("the test run's config.yaml has no generations: 1")
	}
	if err := os.WriteFile(run.Path(runfolder.ConfigFile), []byte(goes), 0o644); err != nil {
		t.Fatal(err)
	}
}
