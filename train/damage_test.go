package train

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"dama/runfolder"
	"dama/selfplay"
)

// damageConfig is a run of tiny generations (about a fifth of a second
// each), every candidate promoted (no gating games), with sets applied.
func damageConfig(t *testing.T, sets ...string) Options {
	t.Helper()
	cfg := loadConfig(t, "quick", append([]string{"run.generations=5", "model.preset=tiny", "run.workers=1",
		"selfplay.games_per_generation=4", "selfplay.parallel=4", "selfplay.visits=4", "selfplay.max_plies=40", "selfplay.eval_batch=4",
		"train.batch=8", "train.window_min=1", "train.window_max=2000", "train.steps_per_generation=2",
		"arena.gating=none", "ladder.every=0"}, sets...)...)
	return Options{Config: cfg, SelfPlay: true, Revision: "test"}
}

// fiveGenerations returns a run folder holding five completed
// generations.
func fiveGenerations(t *testing.T) (string, *runfolder.Run) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	opt := damageConfig(t)
	opt.Dir = dir
	if err := Loop(context.Background(), opt); err != nil {
		t.Fatal(err)
	}
	return dir, &runfolder.Run{Dir: dir}
}

// resume runs Loop on dir to generation gens and returns its error and log.
func resume(t *testing.T, dir string, gens int) (string, error) {
	t.Helper()
	opt := damageConfig(t, "run.generations="+strconv.Itoa(gens))
	opt.Dir = dir
	var log strings.Builder
	opt.Log = &log
	err := Loop(context.Background(), opt)
	return log.String(), err
}

// oneLine checks that a refusal is one line naming each of words.
func oneLine(t *testing.T, what string, err error, words ...string) {
	t.Helper()
	wantRefusal(t, what, err, words...)
	if err != nil && strings.Contains(err.Error(), "\n") {
		t.Errorf("%s: the refusal is more than one line: %q", what, err)
	}
}

// sound checks that the run resumes once more, complete at gens, with
// nothing said but that it is complete, and that no chunk is in two plans
// or missing.
func sound(t *testing.T, dir string, gens int) {
	t.Helper()
	log, err := resume(t, dir, gens)
	if err != nil {
		t.Fatalf("resume of the repaired run: %v\n%s", err, log)
	}
	if strings.Count(log, "\n") != 1 || !strings.Contains(log, "is complete") {
		t.Errorf("resume of the repaired run said:\n%s", log)
	}
	run := &runfolder.Run{Dir: dir}
	seen := map[string]bool{}
	for gen := 1; gen <= gens; gen++ {
		rec, err := run.ReadRecord(gen)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range rec.Chunks {
			if seen[c] {
				t.Errorf("generation %d consumes %s again", gen, c)
			}
			seen[c] = true
			if _, err := os.Stat(run.Path(runfolder.GamesDir, c)); err != nil {
				t.Errorf("generation %d's record names %s: %v", gen, c, err)
			}
		}
	}
}

// planOf returns generation gen's plan.
func planOf(t *testing.T, run *runfolder.Run, gen int) *runfolder.Plan {
	t.Helper()
	p, err := run.ReadPlan(gen)
	if err != nil || p == nil {
		t.Fatalf("plan %d: %v (%v)", gen, p, err)
	}
	return p
}

// planned leaves dir with generation 6 planned and not trained: the
// state of a trainer killed just after writing the plan.
func planned(t *testing.T, dir string) {
	t.Helper()
	opt := damageConfig(t, "run.generations=6")
	opt.Dir = dir
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stop := errors.New("stopped after the plan")
	opt.OnPlan = func(gen int, _ []string) error {
		if gen == 6 {
			return stop
		}
		return nil
	}
	if err := Loop(ctx, opt); !errors.Is(err, stop) {
		t.Fatalf("generation 6 until its plan: %v", err)
	}
}

// A completed generation's plan deleted: rebuilt from its record and its
// chunks with one line, and the next generation takes none of its chunks
// again (issue 47, point 5: the chunks were taken again and the run then
// refused for good).
func TestDamageDeletedPlanIsRebuilt(t *testing.T) {
	dir, run := fiveGenerations(t)
	want := planOf(t, run, 3)
	if err := os.Remove(run.Path(runfolder.GenerationsDir, "0003.plan.json")); err != nil {
		t.Fatal(err)
	}
	log, err := resume(t, dir, 6)
	if err != nil {
		t.Fatalf("%v\n%s", err, log)
	}
	if n := strings.Count(log, "rebuilt "); n != 1 || !strings.Contains(log, "0003.plan.json") {
		t.Errorf("log, want one line rebuilding 0003.plan.json:\n%s", log)
	}
	if got := planOf(t, run, 3); !slices.Equal(got.Chunks, want.Chunks) {
		t.Errorf("rebuilt plan %+v, want %+v", got.Chunks, want.Chunks)
	}
	sound(t, dir, 6)
}

// A chunk of a completed generation's plan deleted, or damaged: refused
// at start naming the chunk and the plan (the next generation failed with
// a raw "no such file").
func TestDamageMissingChunkRefused(t *testing.T) {
	dir, run := fiveGenerations(t)
	chunk := planOf(t, run, 4).Chunks[0].Name
	path := run.Path(runfolder.GamesDir, chunk)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	_, err = resume(t, dir, 6)
	oneLine(t, "deleted chunk", err, chunk, "0004.plan.json", "does not exist", "restore the chunk")
	damaged := append([]byte(nil), data...)
	damaged[len(damaged)/2] ^= 1
	if err := os.WriteFile(path, damaged, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = resume(t, dir, 6)
	oneLine(t, "damaged chunk", err, chunk, "0004.plan.json", "checksum", "restore the chunk")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	resumesSound(t, dir, "with the chunk restored")
}

// The plan of the generation in progress naming a chunk that is not
// there (deleted, or never written), or counting other games or
// positions than its chunk holds: refused with one line saying how to
// play the generation again; done, the run goes on and stays sound
// (issue 47, point 5: self-play reused the chunk's name and the run was
// then refused for good; wrong counts went into the permanent record).
func TestDamageCurrentPlanRefused(t *testing.T) {
	for _, tc := range []struct {
		name  string
		harm  func(t *testing.T, run *runfolder.Run, p *runfolder.Plan)
		words []string
	}{
		{"deleted chunk", func(t *testing.T, run *runfolder.Run, p *runfolder.Plan) {
			if err := os.Remove(run.Path(runfolder.GamesDir, p.Chunks[0].Name)); err != nil {
				t.Fatal(err)
			}
		}, []string{"does not exist"}},
		{"unknown chunk", func(t *testing.T, run *runfolder.Run, p *runfolder.Plan) {
			p.Chunks = append(p.Chunks, runfolder.ChunkInfo{Name: "chunk-main-999999.dgames", Games: 1, Positions: 1})
			if err := run.WritePlan(p); err != nil {
				t.Fatal(err)
			}
		}, []string{"chunk-main-999999.dgames", "does not exist"}},
		{"wrong counts", func(t *testing.T, run *runfolder.Run, p *runfolder.Plan) {
			p.Chunks[0].Games++
			if err := run.WritePlan(p); err != nil {
				t.Fatal(err)
			}
		}, []string{"counts"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, run := fiveGenerations(t)
			planned(t, dir)
			tc.harm(t, run, planOf(t, run, 6))
			plan := run.Path(runfolder.GenerationsDir, "0006.plan.json")
			_, err := resume(t, dir, 6)
			oneLine(t, tc.name, err, append(tc.words, "0006.plan.json", "remove "+plan+" to gather generation 6's games again")...)
			if err := os.Remove(plan); err != nil {
				t.Fatal(err)
			}
			resumesSound(t, dir, "without the plan")
		})
	}
}

// A generation's record deleted while later ones stand: refused naming it
// (it was played again, its record naming a later best model); restored,
// the run resumes.
func TestDamageDeletedRecordRefused(t *testing.T) {
	dir, run := fiveGenerations(t)
	path := run.Path(runfolder.GenerationsDir, "0003.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	_, err = resume(t, dir, 6)
	oneLine(t, "deleted record", err, "0003.json", "0004.json", "restore it")
	if _, err := os.Stat(path); err == nil {
		t.Errorf("the refused resume wrote %s", path)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	resumesSound(t, dir, "with the record restored")
}

// config.sha256 deleted: an edited config.yaml is refused, as is the
// archive as it was, with the line that vouches for it; no digest is
// written. Written as the refusal says, the run resumes.
func TestDamageDeletedConfigDigestRefused(t *testing.T) {
	dir, run := fiveGenerations(t)
	digest, cfgPath := run.Path("config.sha256"), run.Path(runfolder.ConfigFile)
	orig, err := os.ReadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(digest); err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(orig), "    lr: 0.002\n", "    lr: 0.004\n", 1)
	if edited == string(orig) {
		t.Fatal("no train.lr line to edit")
	}
	if err := os.WriteFile(cfgPath, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = resume(t, dir, 5)
	oneLine(t, "edited archive without digest", err, "config.sha256", "is missing", "restore")
	if _, err := os.Stat(digest); err == nil {
		t.Errorf("the refused resume wrote a digest")
	}
	if ch, _ := run.ReadChanges(); len(ch) != 0 {
		t.Errorf("changes recorded: %+v", ch)
	}
	if err := os.WriteFile(cfgPath, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = resume(t, dir, 5)
	oneLine(t, "archive without digest", err, "config.sha256", "dama-config-digest 1 ")
	line := regexp.MustCompile(`"(dama-config-digest 1 [0-9a-f]{64})"`).FindStringSubmatch(err.Error())
	if line == nil {
		t.Fatalf("no digest line in %q", err)
	}
	if err := os.WriteFile(digest, []byte(line[1]+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sound(t, dir, 5)
}

// A damaged accepted checkpoint that is not the best, and garbage in
// ladder.jsonl, are refused at start naming the file (neither was
// noticed).
func TestDamageCheckpointAndLadderRefused(t *testing.T) {
	dir, run := fiveGenerations(t)
	ckpt := run.Path(runfolder.AcceptedDir, "0002.ckpt")
	data, err := os.ReadFile(ckpt)
	if err != nil {
		t.Fatal(err)
	}
	damaged := append([]byte(nil), data...)
	damaged[len(damaged)/2] ^= 1
	if err := os.WriteFile(ckpt, damaged, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = resume(t, dir, 5)
	oneLine(t, "damaged accepted/0002.ckpt", err, "0002.ckpt", "checksum", "restore it")
	if err := os.WriteFile(ckpt, data, 0o644); err != nil {
		t.Fatal(err)
	}
	good := runfolder.LadderRecord{Gen: 2, Model: "accepted/0002.ckpt", Visits: 4, Games: 4, Elo: 10, Low: -50, High: 70}
	for _, tc := range []struct{ name, line, want string }{
		{"garbage", "garbage\n", "line 2"},
		{"null", "null\n", "generation 0"},
		{"a rating after a generation not done", `{"gen":9,"model":"accepted/0005.ckpt","visits":4,"games":4}` + "\n", "generation 9"},
		{"a model outside accepted/", `{"gen":3,"model":"../elsewhere.ckpt","visits":4,"games":4}` + "\n", "not a checkpoint of accepted/"},
	} {
		b, _ := json.Marshal(good)
		if err := os.WriteFile(run.Path(runfolder.LadderFile), append(append(b, '\n'), tc.line...), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err = resume(t, dir, 5)
		oneLine(t, "ladder.jsonl "+tc.name, err, runfolder.LadderFile, "line 2", tc.want)
	}
	b, _ := json.Marshal(good)
	if err := os.WriteFile(run.Path(runfolder.LadderFile), append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	sound(t, dir, 5)
}

// A run whose plans hold the same games twice (taken before replays were
// refused) resumes with one line saying so; a chunk copied under a new
// name into games/ now goes to quarantine, with the chunk it repeats.
func TestReplayedChunkQuarantined(t *testing.T) {
	dir, run := fiveGenerations(t)
	src := planOf(t, run, 2).Chunks[0].Name
	data, err := os.ReadFile(run.Path(runfolder.GamesDir, src))
	if err != nil {
		t.Fatal(err)
	}
	copyName := selfplay.ChunkName("w9", 0)
	if err := os.WriteFile(run.Path(runfolder.GamesDir, copyName), data, 0o644); err != nil {
		t.Fatal(err)
	}
	log, err := resume(t, dir, 6)
	if err != nil {
		t.Fatalf("%v\n%s", err, log)
	}
	why, err := os.ReadFile(run.Path(runfolder.QuarantineDir, copyName+".why"))
	if err != nil || !strings.Contains(string(why), src) || !strings.Contains(string(why), "replay") {
		t.Errorf("quarantine reason %q (%v), want a replay of %s", why, err, src)
	}
	if strings.Count(log, "quarantined "+copyName) != 1 {
		t.Errorf("log, want one quarantine line for %s:\n%s", copyName, log)
	}
	sound(t, dir, 6)
}

// resumesSound resumes the run in dir to generation 6, after a repair
// (what), and checks the run sound.
func resumesSound(t *testing.T, dir, what string) {
	t.Helper()
	if log, err := resume(t, dir, 6); err != nil {
		t.Fatalf("resume %s: %v\n%s", what, err, log)
	}
	sound(t, dir, 6)
}
