package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"dama/arena"
	"dama/checkpoints/card"
	"dama/configs"
	"dama/model"
	"dama/runfolder"
	"dama/selfplay"
	"dama/tb/tbtest"
)

// The test binary doubles as the dama binary for tests that start, kill and
// restart real processes.
func TestMain(m *testing.M) {
	if os.Getenv("DAMA_TEST_AS_MAIN") == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// damaCmd returns a command running this test binary as dama.
func damaCmd(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "DAMA_TEST_AS_MAIN=1")
	return cmd
}

// fastRun is a configuration small enough for tests: a few seconds per
// generation on one core.
var fastRun = []string{
	"--config", "quick",
	"--set", "run.generations=3",
	"--set", "run.workers=1",
	"--set", "model.preset=tiny",
	"--set", "selfplay.games_per_generation=6",
	"--set", "selfplay.parallel=3",
	"--set", "selfplay.visits=6",
	"--set", "selfplay.max_plies=60",
	"--set", "selfplay.eval_batch=4",
	"--set", "train.batch=16",
	"--set", "train.window_min=100",
	"--set", "train.window_max=2000",
	"--set", "train.steps_per_generation=8",
	"--set", "arena.games=4",
	"--set", "arena.parallel=2",
	"--set", "arena.visits=4",
	"--set", "arena.max_plies=60",
	"--quiet",
}

func TestTrainCommandRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("starts training processes")
	}
	dir := t.TempDir()
	ladder := writeTestLadder(t)
	fastRun := append(slices.Clip(fastRun), "--set", "ladder.every=2", "--set", "ladder.games=8", "--set", "ladder.visits=4", "--set", "ladder.parallel=2", "--set", "ladder.file="+ladder)
	out, err := damaCmd(append([]string{"train", "--run", dir}, fastRun...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("dama train: %v\n%s", err, out)
	}
	for g := 1; g <= 3; g++ {
		if !strings.Contains(string(out), fmt.Sprintf("gen %d: games", g)) {
			t.Errorf("no summary line for generation %d:\n%s", g, out)
		}
	}
	checkRun(t, dir, 3)
	// The report reads the run: a row per generation and four plots.
	code, rep, errs := runCmd(t, "report", dir)
	if code != 0 {
		t.Fatalf("dama report: exit %d: %s", code, errs)
	}
	for _, want := range []string{"wrote ", "losses.png", "elo.png"} {
		if !strings.Contains(rep, want) {
			t.Errorf("report output lacks %q:\n%s", want, rep)
		}
	}
	if pngs, _ := filepath.Glob(filepath.Join(dir, "plots", "*.png")); len(pngs) < 3 {
		t.Errorf("report wrote %d plots, want at least 3", len(pngs))
	}
	// The ladder rated the best model after generation 2 (ladder.every=2).
	var lad []runfolder.LadderRecord
	if err := runfolder.ReadJSONL(&runfolder.Run{Dir: dir}, runfolder.LadderFile, func(r runfolder.LadderRecord) error {
		lad = append(lad, r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(lad) != 1 || lad[0].Gen != 2 || lad[0].Games != 8 || lad[0].CPUHours <= 0 || lad[0].TotalGames < 12 {
		t.Errorf("ladder records %+v: want one after generation 2, 8 games, CPU time and games counted", lad)
	}
	// dama ladder rates the run's best model given the run folder.
	if code, lo, le := runCmd(t, "ladder", "--model", dir, "--ladder", ladder, "--games", "8", "--probe", "1", "--visits", "4", "--parallel", "2", "--quiet"); code != 0 || !strings.Contains(lo, "on the ladder") || strings.Contains(lo, "+pass") || !strings.Contains(lo, "(the Ladder default, as the runs' ladder ratings)") {
		t.Errorf("dama ladder --model RUN: exit %d, %s\n%s", code, le, lo)
	}
	if code, lo, le := runCmd(t, "ladder", "--model", dir, "--ladder", ladder, "--games", "8", "--probe", "1", "--visits", "4", "--parallel", "2", "--quiet", "--pass-forced"); code != 0 || !strings.Contains(lo, "@4+plain+pass on the ladder") || !strings.Contains(lo, "search: 4 visits a move, forced moves passed (the Ladder default, plain PUCT, changed: +pass;") {
		t.Errorf("dama ladder --pass-forced: exit %d, %s\n%s", code, le, lo)
	}
	if code, lo, le := runCmd(t, "ladder", "--model", dir, "--ladder", ladder, "--games", "8", "--probe", "1", "--visits", "4", "--parallel", "2", "--quiet", "--hybrids", "mm2,cmb2"); code != 0 || !strings.Contains(lo, "@4+plain+mm2+cmb2 on the ladder") {
		t.Errorf("dama ladder --hybrids mm2,cmb2: exit %d, %s\n%s", code, le, lo)
	}
	if code, _, le := runCmd(t, "ladder", "--model", dir, "--ladder", ladder, "--games", "8", "--probe", "1", "--hybrids", "ab99"); code == 0 || !strings.Contains(le, "--hybrids") {
		t.Errorf("dama ladder --hybrids ab99: exit %d, stderr %q", code, le)
	}
	if !strings.Contains(rep, "ladder.png") {
		t.Errorf("report does not plot the ladder:\n%s", rep)
	}
	// Run again: everything is done, nothing is repeated.
	out2, err := damaCmd(append([]string{"train", "--run", dir}, fastRun...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("second dama train: %v\n%s", err, out2)
	}
	if strings.Contains(string(out2), "gen 1: games") {
		t.Errorf("a finished run played generation 1 again:\n%s", out2)
	}
	checkRun(t, dir, 3)
	// Another configuration on the same folder is refused.
	bad := append([]string{"train", "--run", dir}, fastRun...)
	bad = append(bad, "--set", "selfplay.visits=7")
	if out, err := damaCmd(bad...).CombinedOutput(); err == nil || !strings.Contains(string(out), "another configuration") {
		t.Errorf("training a run with another configuration: err %v, output %s", err, out)
	}
}

// TestTrainSurvivesKills kills the trainer at random moments and restarts
// it with the same command until the run is complete, then checks that no
// game, checkpoint or arena result was lost or counted twice.
func TestTrainSurvivesKills(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills training processes")
	}
	// An uninterrupted run of the same work times the kills, so that they
	// land inside the run on a fast machine and a slow one alike.
	args := func(dir string) []string { return append([]string{"train", "--run", dir}, fastRun...) }
	start := time.Now()
	if out, err := damaCmd(args(t.TempDir())...).CombinedOutput(); err != nil {
		t.Fatalf("reference run: %v\n%s", err, out)
	}
	span := time.Since(start)

	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(7, 7))
	kills := 0
	for attempt := 0; attempt < 60; attempt++ {
		cmd := damaCmd(args(dir)...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		if kills < 8 {
			// Somewhere in the first third of a whole run's time: a restart
			// redoes little, so the run moves on between kills.
			delay := time.Duration(rng.Int64N(int64(span/3))) + 10*time.Millisecond
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("dama train failed: %v\n%s", err, out.String())
				}
				if kills < 3 {
					t.Fatalf("the run finished after only %d kills (a whole run takes %v)", kills, span)
				}
				checkRun(t, dir, 3)
				t.Logf("finished after %d kills (a whole run takes %v)", kills, span)
				return
			case <-time.After(delay):
				cmd.Process.Signal(syscall.SIGKILL)
				<-done
				kills++
				continue
			}
		}
		if err := <-done; err != nil {
			t.Fatalf("dama train failed: %v\n%s", err, out.String())
		}
		checkRun(t, dir, 3)
		t.Logf("finished after %d kills (a whole run takes %v)", kills, span)
		return
	}
	t.Fatal("the run did not finish")
}

// TestWorkersFeedTrainer runs two self-play worker processes beside a
// trainer that plays no games itself, and checks that every game the
// workers wrote is used once and none is lost.
func TestWorkersFeedTrainer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	dir := t.TempDir()
	var workers []*exec.Cmd
	var outs []*bytes.Buffer
	for _, name := range []string{"wa", "wb"} {
		cmd := damaCmd("selfplay", "worker", "--run", dir, "--worker", name, "--chunk", "2", "--quiet", "--wait")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		workers = append(workers, cmd)
		outs = append(outs, &out)
	}
	defer func() {
		for _, w := range workers {
			w.Process.Kill()
		}
	}()
	args := append([]string{"train", "--run", dir, "--selfplay-workers", "0"}, fastRun...)
	args = append(args, "--set", "run.generations=2")
	out, err := damaCmd(args...).CombinedOutput()
	if err != nil {
		t.Fatalf("dama train --selfplay-workers 0: %v\n%s", err, out)
	}
	for i, w := range workers {
		w.Process.Signal(os.Interrupt)
		if err := w.Wait(); err != nil {
			t.Errorf("worker %d: %v\n%s", i, err, outs[i])
		}
	}
	plans := checkRun(t, dir, 2)
	byWorker := map[string]int{}
	for name := range plans {
		byWorker[strings.Split(name, "-")[1]]++
	}
	if byWorker["wa"] == 0 || byWorker["wb"] == 0 {
		t.Errorf("chunks used per worker %v, want both workers' games used", byWorker)
	}
}

// checkRun checks the invariants of a finished run of gens generations and
// returns the chunks its plans consumed.
func checkRun(t *testing.T, dir string, gens int) map[string]int {
	t.Helper()
	run := &runfolder.Run{Dir: dir}
	// Every chunk on disk is whole and consumed at most once; every
	// consumed chunk exists.
	files, err := selfplay.Chunks(run.Path(runfolder.GamesDir))
	if err != nil {
		t.Fatal(err)
	}
	// Every one passes the trainer's check, and none was quarantined.
	cfg, err := configs.Load(run.Path(runfolder.ConfigFile), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	check := selfplay.RunChecker(cfg.SelfPlay, run.SelfPlayHistory, run.Path(runfolder.AcceptedDir))
	onDisk := map[string]int{}
	for _, f := range files {
		_, games, err := check.CheckFile(f)
		if err != nil {
			t.Errorf("games file: %v", err)
		}
		onDisk[filepath.Base(f)] = len(games)
	}
	if q, _ := filepath.Glob(run.Path(runfolder.QuarantineDir, "*")); len(q) > 0 {
		t.Errorf("an honest run quarantined %v", q)
	}
	used := map[string]int{}
	for g := 1; g <= gens; g++ {
		var p struct {
			Chunks []struct {
				Name  string
				Games int
			}
		}
		b, err := os.ReadFile(run.Path(runfolder.GenerationsDir, fmt.Sprintf("%04d.plan.json", g)))
		if err != nil {
			t.Fatalf("generation %d: %v", g, err)
		}
		if err := json.Unmarshal(b, &p); err != nil {
			t.Fatal(err)
		}
		if len(p.Chunks) == 0 {
			t.Errorf("generation %d consumed no games", g)
		}
		for _, c := range p.Chunks {
			used[c.Name]++
			if n, ok := onDisk[c.Name]; !ok || n != c.Games {
				t.Errorf("generation %d consumed %s (%d games), on disk: %v (%d games)", g, c.Name, c.Games, ok, n)
			}
		}
		var rec runfolder.GenerationRecord
		b, err = os.ReadFile(run.Path(runfolder.GenerationsDir, fmt.Sprintf("%04d.json", g)))
		if err != nil {
			t.Fatalf("generation %d record: %v", g, err)
		}
		if err := json.Unmarshal(b, &rec); err != nil {
			t.Fatal(err)
		}
	}
	for name, n := range used {
		if n != 1 {
			t.Errorf("chunk %s consumed %d times", name, n)
		}
	}
	// One arena result per generation.
	arenaGens := map[int]int{}
	if err := runfolder.ReadJSONL(run, runfolder.ArenaFile, func(a runfolder.ArenaRecord) error {
		arenaGens[a.Gen]++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for g := 1; g <= gens; g++ {
		if arenaGens[g] != 1 {
			t.Errorf("generation %d has %d arena results, want 1", g, arenaGens[g])
		}
	}
	// Metrics: steps strictly increasing, none repeated.
	var last int64
	if err := runfolder.ReadJSONL(run, runfolder.MetricsFile, func(m runfolder.MetricRecord) error {
		if m.Step <= last {
			t.Errorf("metrics step %d after %d", m.Step, last)
		}
		last = m.Step
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	// Each generation's checkpoint exists once, accepted or rejected, and
	// loads; the best model is an accepted one.
	for g := 0; g <= gens; g++ {
		var where []string
		for _, sub := range []string{runfolder.CandidatesDir, runfolder.AcceptedDir, runfolder.RejectedDir} {
			p := run.Path(sub, runfolder.CandidateName(g))
			if _, err := os.Stat(p); err == nil {
				where = append(where, sub)
				if _, err := model.Load(p); err != nil {
					t.Errorf("checkpoint %s: %v", p, err)
				}
			}
		}
		if len(where) != 1 || where[0] == runfolder.CandidatesDir {
			t.Errorf("generation %d checkpoint in %v, want exactly one of accepted/rejected", g, where)
		}
	}
	best, err := run.Best()
	if err != nil || !strings.HasPrefix(best, runfolder.AcceptedDir) {
		t.Errorf("best = %q, %v; want an accepted checkpoint", best, err)
	}
	return used
}

// writeTestLadder writes a ladder of two fast rungs for tests.
func writeTestLadder(t *testing.T) string {
	t.Helper()
	l := &arena.Ladder{
		Anchor: "random", Seed: 1, OpeningPlies: 4, MaxPlies: 60,
		Rungs: []arena.Rung{{Player: "random"}, {Player: "alphabeta:1", Elo: 600, StdErr: 50}},
	}
	b, err := l.Encode()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "ladder.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestTrainInit(t *testing.T) {
	if testing.Short() {
		t.Skip("starts training processes")
	}
	tmp := t.TempDir()
	tiny, tiny2, small := filepath.Join(tmp, "tiny.ckpt"), filepath.Join(tmp, "tiny2.ckpt"), filepath.Join(tmp, "small.ckpt")
	for _, a := range [][]string{
		{"model", "new", "--preset", "tiny", "--seed", "5", "--out", tiny},
		{"model", "new", "--preset", "tiny", "--seed", "6", "--out", tiny2},
		{"model", "new", "--preset", "small", "--out", small},
	} {
		if code, _, errs := runCmd(t, a...); code != 0 {
			t.Fatalf("dama %v: %s", a, errs)
		}
	}
	cfg := append(slices.Clip(fastRun), "--set", "run.generations=1")
	dir := filepath.Join(tmp, "run")
	out, err := damaCmd(append([]string{"train", "--run", dir, "--init", tiny}, cfg...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("dama train --init: %v\n%s", err, out)
	}
	ck, err := model.Load(filepath.Join(dir, "accepted", "0000.ckpt"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := model.Load(tiny)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want.Net.Tensors {
		if !slices.Equal(ck.Net.Tensors[i].Data, want.Net.Tensors[i].Data) {
			t.Fatalf("generation 0 tensor %s differs from the --init checkpoint", want.Net.Tensors[i].Name)
		}
	}
	if !strings.Contains(ck.Meta.Note, "initialised from") {
		t.Errorf("generation 0 note %q does not say where it came from", ck.Meta.Note)
	}
	// Resuming with the same --init is fine, and so is resuming without
	// one (the file --init named may have changed since: a shipped model
	// replaced); another one is refused, saying how to resume.
	if out, err := damaCmd(append([]string{"train", "--run", dir, "--init", tiny}, cfg...)...).CombinedOutput(); err != nil {
		t.Errorf("resume with the same --init: %v\n%s", err, out)
	}
	if out, err := damaCmd(append([]string{"train", "--run", dir}, cfg...)...).CombinedOutput(); err != nil {
		t.Errorf("resume without --init: %v\n%s", err, out)
	}
	if out, err := damaCmd(append([]string{"train", "--run", dir, "--init", tiny2}, cfg...)...).CombinedOutput(); err == nil || !strings.Contains(string(out), "another checkpoint (leave --init out to resume the run)") {
		t.Errorf("resume with another --init: err %v, output %s", err, out)
	}
	// A network other than the configuration's is refused before any work.
	if out, err := damaCmd(append([]string{"train", "--run", filepath.Join(tmp, "run2"), "--init", small}, cfg...)...).CombinedOutput(); err == nil || !strings.Contains(string(out), "configuration asks for") {
		t.Errorf("--init with a small network on a tiny config: err %v, output %s", err, out)
	}
}

func TestTrainMaxCPU(t *testing.T) {
	if testing.Short() {
		t.Skip("starts training processes")
	}
	dir := t.TempDir()
	out, err := damaCmd(append([]string{"train", "--run", dir, "--max-cpu", "1ns"}, fastRun...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("dama train --max-cpu: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "CPU budget reached") || !strings.Contains(string(out), "gen 1: games") || strings.Contains(string(out), "gen 2: games") {
		t.Errorf("with a budget of 1ns the run should stop after generation 1:\n%s", out)
	}
	if code, _, errs := runCmd(t, "train", "--run", dir, "--max-cpu", "-1s"); code == 0 || !strings.Contains(errs, "flag -max-cpu: negative") {
		t.Errorf("negative --max-cpu: exit %d, %s", code, errs)
	}
	// The finished run resumes with a key changed on purpose: refused
	// without --allow-change, recorded from generation 2 with it.
	change := append([]string{"train", "--run", dir, "--max-cpu", "1ns", "--set", "selfplay.pass_forced=true"}, fastRun...)
	if out, err := damaCmd(change...).CombinedOutput(); err == nil || !strings.Contains(string(out), "--allow-change") {
		t.Errorf("changed key without --allow-change: err %v, output %s", err, out)
	}
	if out, err := damaCmd(append(change, "--allow-change", "selfplay.pass_forced")...).CombinedOutput(); err != nil || !strings.Contains(string(out), "from generation 2") {
		t.Errorf("changed key with --allow-change: err %v, output %s", err, out)
	}
	if ch, err := (&runfolder.Run{Dir: dir}).ReadChanges(); err != nil || len(ch) != 1 || ch[0].Generation != 2 {
		t.Errorf("recorded changes %+v (%v)", ch, err)
	}
	for _, bad := range []string{"model.filters", "selfplay.colour"} {
		if code, _, errs := runCmd(t, "train", "--run", dir, "--allow-change", "train.lr,"+bad); code != 1 || !strings.Contains(errs, bad) || strings.Count(errs, "\n") != 1 {
			t.Errorf("--allow-change %s: exit %d, %q", bad, code, errs)
		}
	}
}

// An empty key given to --allow-change is an error, not silently dropped
// (issue 20, item 6: --allow-change "" resumed as if it were not given).
// The bad --set makes a run that took the empty key fail fast too.
func TestTrainAllowChangeEmpty(t *testing.T) {
	dir := t.TempDir()
	for _, v := range []string{"", " ", "selfplay.visits,", "selfplay.visits,,arena.games"} {
		code, _, errs := runCmd(t, "train", "--run", dir, "--allow-change", v, "--set", "no.such.key=1")
		if code != 1 || !strings.Contains(errs, fmt.Sprintf("--allow-change %q: want configuration keys", v)) || strings.Count(errs, "\n") != 1 {
			t.Errorf("--allow-change %q: exit %d, stderr %q; want a one-line error naming the flag", v, code, errs)
		}
	}
}

// TestShipLineage trains, ships, trains a second piece from the shipped
// model and ships again: the card adds both pieces up.
func TestShipLineage(t *testing.T) {
	if testing.Short() {
		t.Skip("starts training processes")
	}
	tmp := t.TempDir()
	out := filepath.Join(tmp, "shipped")
	cfg := append(slices.Clip(fastRun), "--set", "run.generations=1")
	run1, run2 := filepath.Join(tmp, "r1"), filepath.Join(tmp, "r2")
	if b, err := damaCmd(append([]string{"train", "--run", run1}, cfg...)...).CombinedOutput(); err != nil {
		t.Fatalf("train: %v\n%s", err, b)
	}
	ship := func(run string, extra ...string) card.Record {
		t.Helper()
		code, so, errs := runCmd(t, append([]string{"ship", "--run", run, "--out", out, "--ladder-games", "0", "--match", "random", "--match-games", "2", "--visits", "4", "--parallel", "2"}, extra...)...)
		if code != 0 {
			t.Fatalf("ship %s: exit %d: %s\n%s", run, code, errs, so)
		}
		var rec card.Record
		b, err := os.ReadFile(filepath.Join(out, "model.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &rec); err != nil {
			t.Fatal(err)
		}
		return rec
	}
	// candidate returns where generation gen of run left its candidate:
	// a run's best may be its initial model, which is refused.
	candidate := func(run string, gen int) string {
		t.Helper()
		var rec runfolder.GenerationRecord
		b, err := os.ReadFile(filepath.Join(run, runfolder.GenerationsDir, fmt.Sprintf("%04d.json", gen)))
		if err == nil {
			err = json.Unmarshal(b, &rec)
		}
		if err != nil {
			t.Fatal(err)
		}
		return filepath.Join(run, filepath.FromSlash(rec.Candidate))
	}
	if code, _, errs := runCmd(t, "ship", "--run", run1, "--out", out, "--ladder-games", "0", "--model", filepath.Join(run1, "accepted", "0000.ckpt")); code != 1 || !strings.Contains(errs, "no generation trained it") {
		t.Errorf("shipping the run's initial model: exit %d, stderr %q; want a refusal", code, errs)
	}
	r1 := ship(run1, "--model", candidate(run1, 1))
	if len(r1.Pieces) != 1 || r1.Games < 6 || r1.CPUHours <= 0 || r1.Match == "" {
		t.Errorf("first piece: %+v", r1)
	}
	ck, err := model.Load(filepath.Join(out, "dama.ckpt"))
	if err != nil {
		t.Fatal(err)
	}
	if ck.Opt.Kind != "" || len(ck.Opt.Slots) != 0 {
		t.Errorf("the shipped checkpoint keeps optimizer state %q", ck.Opt.Kind)
	}
	if _, err := os.Stat(filepath.Join(out, "dama.onnx")); err != nil {
		t.Error(err)
	}
	if b, err := damaCmd(append([]string{"train", "--run", run2, "--init", filepath.Join(out, "dama.ckpt")}, cfg...)...).CombinedOutput(); err != nil {
		t.Fatalf("train --init: %v\n%s", err, b)
	}
	r2 := ship(run2, "--model", candidate(run2, 1))
	if len(r2.Pieces) != 2 || r2.Games != r2.Pieces[0].Games+r2.Pieces[1].Games || r2.Games <= r1.Games {
		t.Errorf("second piece does not add up: %+v", r2)
	}
	// The second piece trains on and is shipped again: it replaces its own
	// entry, the first piece stays.
	if b, err := damaCmd(append([]string{"train", "--run", run2}, append(slices.Clip(fastRun), "--set", "run.generations=2")...)...).CombinedOutput(); err != nil {
		t.Fatalf("train on: %v\n%s", err, b)
	}
	r3 := ship(run2, "--revision", "0123456789ab", "--pass-forced", "--model", candidate(run2, 2))
	if len(r3.Pieces) != 2 || !reflect.DeepEqual(r3.Pieces[0], r2.Pieces[0]) || r3.Pieces[1].Generations != 2 || r3.Pieces[1].RunGenerations != 0 || r3.Games <= r2.Games {
		t.Errorf("second piece shipped again: %+v", r3)
	}
	if !strings.Contains(r3.Match, "@4+plain+pass vs") || !strings.Contains(r2.Match, "@4+plain vs") {
		t.Errorf("matches %q and %q: want the model's search labelled +pass with --pass-forced only", r2.Match, r3.Match)
	}
	if r3.Revision != "0123456789ab" || r2.Revision != buildVersion() {
		t.Errorf("revisions %q and %q, want %q (--revision) and %q (the binary's)", r3.Revision, r2.Revision, "0123456789ab", buildVersion())
	}
	md, err := os.ReadFile(filepath.Join(out, "MODEL.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| r1 |", "| r2 |", "self-play games", "Direct match", "revision 0123456789ab"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("card lacks %q:\n%s", want, md)
		}
	}
	// Shipping generation 1's candidate of the two-generation run counts
	// generation 1 alone: generation 2 trained on from it, but is not in it.
	r4 := ship(run2, "--model", candidate(run2, 1))
	want := r2.Pieces[1]
	want.RunGenerations = 2
	if len(r4.Pieces) != 2 || !reflect.DeepEqual(r4.Pieces[1], want) || r4.Games != r2.Games {
		t.Errorf("generation 1 of two shipped: piece %+v, want %+v; games %d, want %d", r4.Pieces[1], want, r4.Games, r2.Games)
	}
	if md, err := os.ReadFile(filepath.Join(out, "MODEL.md")); err != nil || !strings.Contains(string(md), "| r2 | quick | 1 of 2 |") {
		t.Errorf("card (%v) lacks the piece's \"1 of 2\" generations:\n%s", err, md)
	}
}

// TestTrainHybridsRefused: dama train --set selfplay.hybrids with a bad
// list or the verifier ab stops before any work (no run folder, nothing
// on stdout) with one line naming the key and the value: the check of
// package selfplay (selfplay.ValidateSettings), since configs keeps the
// text as it is.
func TestTrainHybridsRefused(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	for _, tc := range []struct{ value, want string }{
		{"bogus", "a comma-separated list of mm[DEPTH], cmb[DEPTH] and ip[DEPTH]"},
		{"mm9", "DEPTH in 1..8"},
		{"mm4,ab12", "ab was removed"},
	} {
		code, out, errs := runCmd(t, "train", "--run", dir, "--config", "quick", "--set", "selfplay.hybrids="+tc.value)
		if code != 1 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, `selfplay.hybrids = "`+tc.value+`": want`) || !strings.Contains(errs, tc.want) {
			t.Errorf("selfplay.hybrids=%s: exit %d, stdout %q, stderr %q", tc.value, code, out, errs)
		}
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refused runs made %s: %v", dir, err)
	}
}

// TestTrainAutoTables: dama train --set selfplay.tables=auto:2 generates
// the tables into the user's cache folder before the first generation and
// plays with them; a number of pieces outside 2..4 is a one-line error
// naming the key, before any work.
func TestTrainAutoTables(t *testing.T) {
	dir := t.TempDir()
	for _, bad := range []string{"auto:5", "auto:1", "auto:x"} {
		code, out, errs := runCmd(t, "train", "--run", dir, "--config", "quick", "--set", "selfplay.tables="+bad)
		if code != 1 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, `selfplay.tables = "`+bad+`"`) || !strings.Contains(errs, "auto:N with N in 2..4") {
			t.Errorf("selfplay.tables=%s: exit %d, stdout %q, stderr %q", bad, code, out, errs)
		}
	}
	if testing.Short() {
		t.Skip("starts a training process")
	}
	cache := tbtest.Cache(t)
	args := append([]string{"train", "--run", filepath.Join(t.TempDir(), "run")}, fastRun...)
	out, err := damaCmd(append(args, "--set", "run.generations=1", "--set", "selfplay.tables=auto:2")...).CombinedOutput()
	if err != nil {
		t.Fatalf("dama train: %v\n%s", err, out)
	}
	want := "endgame tables of up to 2 pieces: generated 4 of 4 signatures into " + filepath.Join(cache, "dama", "tables-v1-2p")
	if i := strings.Index(string(out), want); i < 0 || i > strings.Index(string(out), "gen 1: games") {
		t.Errorf("no line %q before generation 1:\n%s", want, out)
	}
}
