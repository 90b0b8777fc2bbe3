package train

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"dama/configs"
	"dama/runfolder"
)

// startRun runs Loop with a cancelled context: the start-up (archive,
// checks, clean-up) happens, no generation does. It returns Loop's error
// (context.Canceled when the start-up passed).
func startRun(t *testing.T, dir string, sets ...string) error {
	t.Helper()
	return startRunAllowing(t, dir, nil, sets...)
}

// startRunAllowing is startRun with Options.AllowChange.
func startRunAllowing(t *testing.T, dir string, allow []string, sets ...string) error {
	t.Helper()
	cfg := loadConfig(t, "quick", append([]string{"model.preset=tiny"}, sets...)...)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return Loop(ctx, Options{Config: cfg, Dir: dir, Revision: "test", AllowChange: allow})
}

// wantRefusal checks that err is a refusal mentioning each of words.
func wantRefusal(t *testing.T, what string, err error, words ...string) {
	t.Helper()
	if err == nil || err == context.Canceled {
		t.Errorf("%s: resumed (err %v), want a refusal", what, err)
		return
	}
	for _, w := range words {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%s: error %q does not mention %q", what, err, w)
		}
	}
}

func newStartedRun(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	if err := startRun(t, dir); err != context.Canceled {
		t.Fatalf("fresh run: %v", err)
	}
	return dir
}

// The archived configuration is trusted only as written: missing, empty,
// truncated or edited is refused; another configuration names the keys
// that differ; run.generations and run.workers may change (issue 13,
// points 9 and 19).
func TestResumeChecksConfig(t *testing.T) {
	dir := newStartedRun(t)
	path := filepath.Join(dir, runfolder.ConfigFile)
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := startRun(t, dir); err != context.Canceled {
		t.Fatalf("plain resume: %v", err)
	}
	wantRefusal(t, "other visits", startRun(t, dir, "selfplay.visits=7"), "selfplay.visits", "run.generations")
	if err := startRun(t, dir, "run.generations=99", "run.workers=1"); err != context.Canceled {
		t.Errorf("resume with more generations and another worker count: %v", err)
	}
	if err := startRun(t, dir, "run.generations=99", "run.workers=1"); err != context.Canceled {
		t.Errorf("second resume with the changed safe keys: %v", err)
	}
	if err := startRun(t, dir); err != context.Canceled {
		t.Errorf("resume with the original generations: %v", err)
	}
	for _, tc := range []struct {
		name    string
		content []byte
		words   []string
	}{
		{"edited", []byte(strings.Replace(string(orig), "visits:", "visits: 1 #", 1)), []string{runfolder.ConfigFile, "changed"}},
		{"empty", nil, []string{runfolder.ConfigFile, "changed"}},
		{"truncated", orig[:len(orig)/2], []string{runfolder.ConfigFile}},
	} {
		if err := os.WriteFile(path, tc.content, 0o644); err != nil {
			t.Fatal(err)
		}
		wantRefusal(t, tc.name, startRun(t, dir), tc.words...)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	wantRefusal(t, "missing", startRun(t, dir), runfolder.ConfigFile, "missing")
	if err := os.WriteFile(path, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := startRun(t, dir); err != context.Canceled {
		t.Errorf("resume after restoring the config: %v", err)
	}
}

// A resume may change keys named in AllowChange: the archive takes the new
// values, ChangesFile records the change and the generation it starts at,
// and the next resume must ask for the new values; model.* and unknown
// keys are refused.
func TestResumeAllowChange(t *testing.T) {
	dir := newStartedRun(t)
	run := &runfolder.Run{Dir: dir}
	wantRefusal(t, "pass_forced without --allow-change", startRun(t, dir, "selfplay.pass_forced=true"), "selfplay.pass_forced", "--allow-change")
	if ch, err := run.ReadChanges(); err != nil || len(ch) != 0 {
		t.Fatalf("a refused resume recorded %v (%v)", ch, err)
	}
	allow := []string{"selfplay.pass_forced", "train.lr"}
	wantRefusal(t, "visits with others allowed", startRunAllowing(t, dir, allow, "selfplay.pass_forced=true", "selfplay.visits=7"), "selfplay.visits")
	if err := startRunAllowing(t, dir, allow, "selfplay.pass_forced=true"); err != context.Canceled {
		t.Fatalf("allowed change: %v", err)
	}
	ch, err := run.ReadChanges()
	if err != nil {
		t.Fatal(err)
	}
	if len(ch) != 1 || ch[0].Version != runfolder.ConfigChangeVersion || ch[0].Generation != 1 || len(ch[0].Changes) != 1 ||
		ch[0].Changes[0] != (configs.KeyDiff{Key: "selfplay.pass_forced", Old: "false", New: "true"}) {
		t.Errorf("recorded changes %+v", ch)
	}
	archived, err := configs.Load(run.Path(runfolder.ConfigFile), nil, nil)
	if err != nil || !archived.SelfPlay.PassForced {
		t.Errorf("the archive does not hold the new value (err %v)", err)
	}
	// The same request again changes nothing and records nothing; going
	// back needs the flag again.
	if err := startRunAllowing(t, dir, allow, "selfplay.pass_forced=true"); err != context.Canceled {
		t.Errorf("resume with the new value: %v", err)
	}
	wantRefusal(t, "back to the old value without --allow-change", startRun(t, dir), "selfplay.pass_forced")
	if ch, _ := run.ReadChanges(); len(ch) != 1 {
		t.Errorf("%d change records, want 1", len(ch))
	}
	for _, bad := range [][]string{{"model.blocks"}, {"selfplay.no_such_key"}} {
		wantRefusal(t, "allow "+bad[0], startRunAllowing(t, dir, bad, "selfplay.pass_forced=true"), bad[0])
	}
	// A change record of another format version is refused when read.
	if err := os.WriteFile(run.Path(runfolder.ChangesFile), []byte(`{"version":2,"generation":1}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := run.ReadChanges(); err == nil || !strings.Contains(err.Error(), "version 2") {
		t.Errorf("a version-2 record read without error (%v)", err)
	}
}

// A trainer start removes the temporary files a kill left in the files it
// owns, and no other worker's (issue 13, point 10).
func TestResumeRemovesStaleTemps(t *testing.T) {
	dir := newStartedRun(t)
	stale := []string{".best.tmp123", ".metrics.jsonl.tmp9", "candidates/.0001.ckpt.tmp42", "generations/.0001.json.tmp7",
		"games/.chunk-main-000001.dgames.tmp3"}
	kept := []string{"games/.chunk-w2-000001.dgames.tmp3", "games/notes.txt"}
	for _, f := range append(append([]string{}, stale...), kept...) {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := startRun(t, dir); err != context.Canceled {
		t.Fatalf("resume: %v", err)
	}
	for _, f := range stale {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("stale %s left in place", f)
		}
	}
	for _, f := range kept {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s removed: %v", f, err)
		}
	}
	if n, err := (&runfolder.Run{Dir: dir}).RemoveWorkerTemps("w2"); err != nil || n != 1 {
		t.Errorf("RemoveWorkerTemps(w2) = %d, %v; want 1", n, err)
	}
}

// Damaged records are found at start, not by dama report later (issue 13,
// point 11).
func TestResumeChecksRecords(t *testing.T) {
	dir := newStartedRun(t)
	metrics := filepath.Join(dir, runfolder.MetricsFile)
	good := `{"gen":1,"step":1,"samples":16,"total":1.5}` + "\n"
	if err := os.WriteFile(metrics, []byte(good+"garbage\n"+good), 0o644); err != nil {
		t.Fatal(err)
	}
	wantRefusal(t, "garbage metrics line", startRun(t, dir), runfolder.MetricsFile, "line 2")
	// A final line cut off by a kill is repaired, as before.
	if err := os.WriteFile(metrics, []byte(good+`{"gen":1,"st`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := startRun(t, dir); err != context.Canceled {
		t.Errorf("metrics with a cut-off last line: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, runfolder.ArenaFile), []byte("{]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wantRefusal(t, "garbage arena line", startRun(t, dir), runfolder.ArenaFile, "line 1")
	os.Remove(filepath.Join(dir, runfolder.ArenaFile))
	rec := filepath.Join(dir, runfolder.GenerationsDir, "0001.json")
	if err := os.WriteFile(rec, []byte(`{"gen":1,"games":6,"total_games":6}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, runfolder.GenerationsDir, "0002.json"), []byte(`{"gen":2,"games":6,"total_games":12}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rec, []byte(`{"gen":1,"games":6,"tot`), 0o644); err != nil {
		t.Fatal(err)
	}
	wantRefusal(t, "damaged earlier record", startRun(t, dir), "0001.json")
	if err := os.WriteFile(rec, []byte(`{"gen":7,"games":6,"total_games":6}`), 0o644); err != nil {
		t.Fatal(err)
	}
	wantRefusal(t, "record of another generation", startRun(t, dir), "0001.json", "generation 7")
}

// The best pointer is checked at start and named when it is bad (issue 13,
// point 12).
func TestResumeChecksBest(t *testing.T) {
	dir := newStartedRun(t)
	best := filepath.Join(dir, runfolder.BestFile)
	for _, tc := range []struct{ content, want string }{
		{"\x00junk\x01\n", "bad best model name"},
		{"accepted/0042.ckpt\n", "does not exist"},
	} {
		if err := os.WriteFile(best, []byte(tc.content), 0o644); err != nil {
			t.Fatal(err)
		}
		wantRefusal(t, "best "+tc.content, startRun(t, dir), runfolder.BestFile, tc.want)
	}
	// A best that names a file which is not a checkpoint.
	if err := os.WriteFile(filepath.Join(dir, runfolder.AcceptedDir, "0005.ckpt"), []byte("not a checkpoint"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(best, []byte("accepted/0005.ckpt\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wantRefusal(t, "best not a checkpoint", startRun(t, dir), runfolder.BestFile, "0005.ckpt")
	// A checkpoint that loads but is not in accepted/, or is a link out of
	// the run folder, is refused too (issue 20, point 4).
	good, err := os.ReadFile(filepath.Join(dir, runfolder.AcceptedDir, "0000.ckpt"))
	if err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "0006.ckpt")
	for _, f := range []string{filepath.Join(dir, runfolder.RejectedDir, "0006.ckpt"), outside} {
		if err := os.WriteFile(f, good, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(best, []byte("rejected/0006.ckpt\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wantRefusal(t, "best in rejected/", startRun(t, dir), runfolder.BestFile, "accepted/")
	if err := os.Symlink(outside, filepath.Join(dir, runfolder.AcceptedDir, "0006.ckpt")); err == nil {
		if err := os.WriteFile(best, []byte("accepted/0006.ckpt\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		wantRefusal(t, "best a link out of the run", startRun(t, dir), runfolder.BestFile, "symbolic link")
	}
	if err := os.WriteFile(best, []byte("accepted/0000.ckpt\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The junk accepted/0005.ckpt is refused though the best is not it
	// (issue 47, point 5).
	wantRefusal(t, "junk checkpoint in accepted/", startRun(t, dir), "0005.ckpt", "restore it")
	if err := os.Remove(filepath.Join(dir, runfolder.AcceptedDir, "0005.ckpt")); err != nil {
		t.Fatal(err)
	}
	if err := startRun(t, dir); err != context.Canceled {
		t.Errorf("resume with the best restored: %v", err)
	}
}

// A worker refuses a folder that is not a run folder unless asked to wait,
// and says what it waits for (issue 13, point 15); it removes its own stale
// temporary chunks (point 10).
func TestWorkerStart(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nonexistent")
	err := Worker(context.Background(), WorkerOptions{Dir: missing, Name: "w"})
	if err == nil || !strings.Contains(err.Error(), "not a run folder") || !strings.Contains(err.Error(), "--wait") {
		t.Errorf("worker on a missing folder: %v, want a refusal suggesting --wait", err)
	}
	var log strings.Builder
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := Worker(ctx, WorkerOptions{Dir: missing, Name: "w", Wait: true, Poll: time.Millisecond, Log: &log}); err != nil {
		t.Errorf("waiting worker: %v", err)
	}
	if !strings.Contains(log.String(), "waiting for") || strings.Count(log.String(), "waiting") != 1 {
		t.Errorf("waiting worker logged %q, want one line saying what it waits for", log.String())
	}
}

// A run-folder worker plays only with the configuration the trainer
// archived: an emptied or edited config.yaml is refused with an error
// naming it, before any game is played (issue 20, point 4).
func TestWorkerChecksConfigDigest(t *testing.T) {
	dir := newStartedRun(t)
	path := filepath.Join(dir, runfolder.ConfigFile)
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, content string }{
		{"emptied", ""},
		{"edited", strings.Replace(string(orig), "visits:", "visits: 2 #", 1)},
	} {
		if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := Worker(ctx, WorkerOptions{Dir: dir, Name: "w1", Games: 1, Poll: time.Millisecond})
		cancel()
		wantRefusal(t, tc.name+" config", err, "runfolder:", path, "config.sha256")
		if chunks, _ := filepath.Glob(filepath.Join(dir, runfolder.GamesDir, "*")); len(chunks) > 0 {
			t.Errorf("%s config: the worker wrote %v", tc.name, chunks)
		}
	}
}

// The trainer checks the plans at start and when it resumes a generation
// whose plan exists: a plan consuming a chunk again is refused before any
// training, and a chunk whose games or positions are not those its plan
// counts is refused when the window reads it (issue 20, point 4).
func TestResumeChecksPlans(t *testing.T) {
	const chunk0, chunk1 = "chunk-main-000000.dgames", "chunk-main-000001.dgames"
	plan := func(chunks ...runfolder.ChunkInfo) *runfolder.Plan { return &runfolder.Plan{Gen: 2, Chunks: chunks} }
	for _, tc := range []struct {
		name  string
		plan  *runfolder.Plan
		words []string
	}{
		{"consumed twice", plan(runfolder.ChunkInfo{Name: chunk0, Games: 4, Positions: 117}), []string{"0002.plan.json", chunk0, "consumed already"}},
		{"wrong games", plan(runfolder.ChunkInfo{Name: chunk1, Games: 5, Positions: 117}), []string{chunk1, "4 games and 117 positions", "counts 5 and 117"}},
		{"wrong positions", plan(runfolder.ChunkInfo{Name: chunk1, Games: 4, Positions: 100}), []string{chunk1, "counts 4 and 100"}},
	} {
		dir, run, cfg := copySampleRun(t, "run.generations=2")
		b, err := os.ReadFile(run.Path(runfolder.GamesDir, chunk0))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(run.Path(runfolder.GamesDir, chunk1), b, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := run.WritePlan(tc.plan); err != nil {
			t.Fatal(err)
		}
		err = Loop(context.Background(), Options{Config: cfg, Dir: dir, SelfPlay: true, Revision: "test"})
		wantRefusal(t, tc.name, err, tc.words...)
		if c := run.FindCheckpoint(2); c != "" {
			t.Errorf("%s: generation 2 was trained (%s)", tc.name, c)
		}
	}
}

// The trainer reads config-changes.jsonl and the metrics at start: garbage
// appended to the changes, or a metrics line repeating a step, refuses the
// resume naming the file and the line (issue 20, point 4).
func TestResumeChecksChangesAndMetrics(t *testing.T) {
	dir := newStartedRun(t)
	changes := filepath.Join(dir, runfolder.ChangesFile)
	good := `{"version":1,"generation":1,"changes":[{"key":"selfplay.pass_forced","old":"false","new":"true"}]}` + "\n"
	if err := os.WriteFile(changes, []byte(good+"garbage appended\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wantRefusal(t, "garbage appended to the changes", startRun(t, dir), "runfolder:", runfolder.ChangesFile, "line 2")
	if err := os.WriteFile(changes, []byte(good), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := startRun(t, dir); err != context.Canceled {
		t.Errorf("resume with sound changes: %v", err)
	}
	metrics := filepath.Join(dir, runfolder.MetricsFile)
	line := `{"gen":1,"step":7,"samples":16,"total":1.5}` + "\n"
	if err := os.WriteFile(metrics, []byte(line+line), 0o644); err != nil {
		t.Fatal(err)
	}
	wantRefusal(t, "a repeated metrics step", startRun(t, dir), "runfolder:", runfolder.MetricsFile, "line 2", "step 7")
	if err := os.WriteFile(metrics, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := startRun(t, dir); err != context.Canceled {
		t.Errorf("resume with sound records: %v", err)
	}
}
