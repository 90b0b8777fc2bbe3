package main

import (
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"dama/arena"
	"dama/mcts"
	"dama/model/infer"
	"dama/tb"
	"dama/tb/tbtest"
)

func TestTimedModelPlayerSpec(t *testing.T) {
	ck := "../../model/testdata/sample-v1.ckpt"
	for spec, want := range map[string]struct {
		label string
		time  time.Duration
		pass  bool
	}{
		ck + "@t0.25":            {"sample-v1.ckpt@t0.25", 250 * time.Millisecond, false},
		ck + "@t0.05+pass":       {"sample-v1.ckpt@t0.05+pass", 50 * time.Millisecond, true},
		ck + "@t250ms+pass:fp32": {"sample-v1.ckpt@t250ms+pass:fp32", 250 * time.Millisecond, true},
		ck + "@t2s":              {"sample-v1.ckpt@t2s", 2 * time.Second, false},
	} {
		p, err := parsePlayerSpec(spec)
		if err != nil {
			t.Errorf("%s: %v", spec, err)
			continue
		}
		mp := p.(*modelPlayer)
		if mp.Label != want.label || mp.Time != want.time || mp.Visits != 0 || mp.Options.PassForced != want.pass {
			t.Errorf("%s: label %q time %v visits %d pass %v; want %q, %v, 0 visits, pass %v", spec, mp.Label, mp.Time, mp.Visits, mp.Options.PassForced, want.label, want.time, want.pass)
		}
		mp.Close()
	}
	for _, bad := range []string{"@t0", "@t0.0", "@t-0.25", "@tNaN", "@tInf", "@t+Inf", "@t3601.0", "@t7200s", "@t1", "@t", "@t0.25x", "@t0.25+pas"} {
		_, err := parsePlayerSpec(ck + bad)
		if err == nil || !strings.Contains(err.Error(), `"`+ck+bad+`"`) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want one line naming the spec", bad, err)
		}
	}
	code, out, errs := runCmd(t, "arena", "--a", ck+"@t0.01+pass", "--b", "classic:t0.01", "--games", "2", "--parallel", "1", "--quiet")
	if code != 0 || !strings.Contains(out, "sample-v1.ckpt@t0.01+pass vs classic:t0.01") {
		t.Errorf("arena: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

func TestLadderTimeErrors(t *testing.T) {
	ck := "../../model/testdata/sample-v1.ckpt"
	for v, want := range map[string]string{"-1": "0.001..3600", "3601": "0.001..3600", "0.0001": "0.001..3600", "NaN": "not a number", "+Inf": "finite"} {
		code, _, errs := runCmd(t, "ladder", "--model", ck, "--time", v, "--quiet")
		if code == 0 || !strings.Contains(errs, "--time "+v) || !strings.Contains(errs, want) || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("ladder --time %s: exit %d, stderr %q; want a one-line error naming --time and %q", v, code, errs, want)
		}
	}
}

// "+threadsN" after a checkpoint player's limit sets its search threads,
// in any order with "+pass"; a bad count is a one-line error naming the
// spec (issue 21, item 3).
func TestModelPlayerThreads(t *testing.T) {
	ck := "../../model/testdata/sample-v1.ckpt"
	for spec, want := range map[string]struct {
		label   string
		threads int
		pass    bool
		direct  bool // the search threads run their own forward passes
	}{
		ck + "@100+threads2":             {"sample-v1.ckpt@100+threads2", 2, false, true},
		ck + "@100+threads1":             {"sample-v1.ckpt@100", 1, false, false},
		ck + "@t0.05+pass+threads3:fp32": {"sample-v1.ckpt@t0.05+pass+threads3:fp32", 3, true, true},
		ck + "@t0.05+threads2+pass":      {"sample-v1.ckpt@t0.05+pass+threads2", 2, true, true},
		ck + "@t0.05":                    {"sample-v1.ckpt@t0.05", 1, false, false},
	} {
		p, err := parsePlayerSpec(spec)
		if err != nil {
			t.Errorf("%s: %v", spec, err)
			continue
		}
		mp := p.(*modelPlayer)
		_, direct := mp.Evaluator.(*infer.Direct)
		if mp.Label != want.label || mp.Options.Threads != want.threads || mp.Options.PassForced != want.pass || direct != want.direct {
			t.Errorf("%s: label %q threads %d pass %v direct %v; want %q, %d, %v, %v", spec, mp.Label, mp.Options.Threads, mp.Options.PassForced, direct, want.label, want.threads, want.pass, want.direct)
		}
		mp.Close()
	}
	for _, bad := range []string{"@100+threads0", "@100+threads", "@100+threadsx", "@100+threads-2", "@100+threads999", "@t0.05+thread2", "@100+"} {
		_, err := parsePlayerSpec(ck + bad)
		if err == nil || !strings.Contains(err.Error(), `"`+ck+bad+`"`) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want one line naming the spec", bad, err)
		}
	}
	code, out, errs := runCmd(t, "arena", "--a", ck+"@40+threads2", "--b", "random", "--games", "2", "--parallel", "1", "--quiet")
	if code != 0 || !strings.Contains(out, "sample-v1.ckpt@40+threads2 vs random") {
		t.Errorf("arena: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// --threads of the engine commands: a range, a warning above the cores.
func TestEngineThreadsFlag(t *testing.T) {
	code, out, errs := runCmd(t, "analyze", "--model", "random", "--visits", "200", "--threads", "2")
	if code != 0 || !strings.Contains(out, "200") {
		t.Errorf("analyze --threads 2: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, _, errs = runCmd(t, "analyze", "--model", "random", "--visits", "50", "--threads", "0")
	if code == 0 || !strings.Contains(errs, "--threads") || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
		t.Errorf("analyze --threads 0: exit %d, stderr %q; want a one-line error", code, errs)
	}
	many := strconv.Itoa(runtime.NumCPU() + 1)
	code, _, errs = runCmd(t, "analyze", "--model", "random", "--visits", "50", "--threads", many)
	if code != 0 || strings.Count(errs, "warning") != 1 {
		t.Errorf("analyze --threads %s: exit %d, stderr %q; want it to run with one warning", many, code, errs)
	}
	code, _, errs = runCmd(t, "analyze", "--model", "random", "--time", "1e-9")
	if code == 0 || !strings.Contains(errs, "--time") {
		t.Errorf("analyze --time 1e-9: exit %d, stderr %q; want an error", code, errs)
	}
}

// TestTablesPlayerSpec: "PATH@N+tb" plays with the tables of --tb (the
// search's oracle, the solver on, the label marked), in either order with
// +pass; without --tb it is an error naming the spec.
func TestTablesPlayerSpec(t *testing.T) {
	ck := "../../model/testdata/sample-v1.ckpt"
	defer func() { checkpointTables = "" }()
	checkpointTables = ""
	if _, err := parsePlayerSpec(ck + "@8+tb"); err == nil || !strings.Contains(err.Error(), "+tb needs the tables' folder (--tb DIR)") {
		t.Errorf("+tb without --tb: %v", err)
	}
	checkpointTables = t.TempDir()
	if _, err := parsePlayerSpec(ck + "@8+tb"); err == nil || !strings.Contains(err.Error(), "--tb: ") || !strings.Contains(err.Error(), "no endgame tables") {
		t.Errorf("+tb with an empty folder: %v", err)
	}
	for _, bad := range []string{"auto:6", "auto:1", "auto:x", "auto:05"} {
		checkpointTables = bad
		if _, err := parsePlayerSpec(ck + "@8+tb"); err == nil || !strings.Contains(err.Error(), `--tb: "`+bad+`": want a folder or auto:N with N in 2..5`) {
			t.Errorf("--tb %s: %v", bad, err)
		}
	}
	// auto:N generates the tables into the user's cache folder, where a
	// later auto:N finds them.
	cache := tbtest.Cache(t)
	checkpointTables = "auto:2"
	p, err := parsePlayerSpec(ck + "@8+tb")
	if err != nil {
		t.Fatal(err)
	}
	dir, _ := tb.CacheDir(2)
	if o, ok := p.(*modelPlayer).Options.Oracle.(tb.Oracle); !ok || o.T.Dir() != dir || !strings.HasPrefix(dir, cache) || o.T.Pieces() != 2 {
		t.Errorf("auto:2: oracle %v, want the tables of %s", p.(*modelPlayer).Options.Oracle, dir)
	}
	p.(*modelPlayer).Close()
	checkpointTables = t.TempDir()
	if code, _, errs := runCmd(t, "tb", "gen", "--pieces", "2", "--out", checkpointTables); code != 0 {
		t.Fatal(errs)
	}
	for spec, label := range map[string]string{
		ck + "@8+tb":      "sample-v1.ckpt@8+tb",
		ck + "@8+pass+tb": "sample-v1.ckpt@8+pass+tb",
		ck + "@8+tb+pass": "sample-v1.ckpt@8+pass+tb",
		ck + "@8":         "sample-v1.ckpt@8",
	} {
		p, err := parsePlayerSpec(spec)
		if err != nil {
			t.Errorf("%s: %v", spec, err)
			continue
		}
		mp := p.(*modelPlayer)
		with := strings.Contains(spec, "+tb")
		if _, ok := mp.Options.Oracle.(tb.Oracle); mp.Label != label || ok != with || mp.Options.Solver != with {
			t.Errorf("%s: label %q oracle %v solver %v; want %q and tables %v", spec, mp.Label, mp.Options.Oracle, mp.Options.Solver, label, with)
		}
		mp.Close()
	}
}

// --clock cpu times each timed player by the CPU time of its move's
// thread: the model's forward passes run on that thread (infer.Direct),
// players by visits are unchanged, a timed player with search threads is
// refused in one line (a spec, or the ladder's --threads), and arena and
// tactics run with it.
func TestClockFlag(t *testing.T) {
	if err := arena.CheckCPUClock(); err != nil {
		t.Skip(err)
	}
	ck := "../../model/testdata/sample-v1.ckpt"
	defer func() { checkpointClock = clockWall }()
	checkpointClock = clockCPU
	p, err := parsePlayerSpec(ck + "@t0.05+pass+cmb2")
	if err != nil {
		t.Fatal(err)
	}
	mp := p.(*modelPlayer)
	if !mp.CPUTime {
		t.Error("a timed model player with --clock cpu is not CPU-timed")
	}
	if _, ok := mp.Evaluator.(mcts.BatchEvaluator); !ok {
		t.Errorf("its evaluator is a %T, not one that evaluates on the move's thread", mp.Evaluator)
	}
	mp.Close()
	v, err := parsePlayerSpec(ck + "@50")
	if err != nil {
		t.Fatal(err)
	}
	if v.(*modelPlayer).CPUTime {
		t.Error("a model player by visits is CPU-timed")
	}
	v.(*modelPlayer).Close()
	if _, err := parsePlayerSpec(ck + "@t0.05+threads2"); err == nil || !strings.Contains(err.Error(), "one search thread") || strings.Contains(err.Error(), "\n") {
		t.Errorf("a CPU-timed player with two threads: %v, want a one-line refusal", err)
	}
	checkpointClock = clockWall
	for _, args := range [][]string{
		{"arena", "--clock", "cpu", "--a", ck + "@t0.01+pass", "--b", "classic:t0.01", "--games", "2", "--parallel", "2", "--quiet"},
		{"tactics", "--clock", "cpu", "--suite", "../../arena/tactics/suite.json", "--player", ck + "@t0.01,classic:t0.01", "--parallel", "2"},
	} {
		if code, out, errs := runCmd(t, args...); code != 0 {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", strings.Join(args, " "), code, out, errs)
		}
		if checkpointClock != clockCPU {
			t.Errorf("%s: --clock cpu not kept", args[0])
		}
	}
	code, _, errs := runCmd(t, "ladder", "--clock", "cpu", "--model", ck, "--time", "0.01", "--threads", "2", "--quiet")
	if code == 0 || !strings.Contains(errs, "one search thread") || strings.Count(strings.TrimSpace(errs), "\n") > 1 {
		t.Errorf("ladder --clock cpu --threads 2: exit %d, stderr %q, want a refusal", code, errs)
	}
	code, _, errs = runCmd(t, "arena", "--clock", "cpus", "--a", "random", "--b", "random")
	if code == 0 || !strings.Contains(errs, "want wall or cpu") {
		t.Errorf("--clock cpus: exit %d, stderr %q", code, errs)
	}
	if runCmd(t, "arena", "--a", "random", "--b", "random", "--games", "2", "--quiet"); checkpointClock != clockWall {
		t.Error("a command without --clock cpu kept the last one's")
	}
}

// "+batchN" after a checkpoint player's limit sets the leaves evaluated
// together per search step, in any order with the other suffixes, and
// marks the label; a bad count is a one-line error naming the spec.
func TestModelPlayerBatch(t *testing.T) {
	ck := "../../model/testdata/sample-v1.ckpt"
	for spec, want := range map[string]struct {
		label string
		batch int
	}{
		ck + "@100+batch4":             {"sample-v1.ckpt@100+batch4", 4},
		ck + "@t0.05+batch8+pass":      {"sample-v1.ckpt@t0.05+pass+batch8", 8},
		ck + "@t0.05+pass+cmb3+batch2": {"sample-v1.ckpt@t0.05+pass+batch2+cmb3", 2},
		ck + "@100":                    {"sample-v1.ckpt@100", 0},
	} {
		p, err := parsePlayerSpec(spec)
		if err != nil {
			t.Errorf("%s: %v", spec, err)
			continue
		}
		mp := p.(*modelPlayer)
		if mp.Label != want.label || mp.Options.Parallel != want.batch {
			t.Errorf("%s: label %q batch %d; want %q, %d", spec, mp.Label, mp.Options.Parallel, want.label, want.batch)
		}
		mp.Close()
	}
	for _, bad := range []string{"@100+batch0", "@100+batch", "@100+batch257", "@100+batch4+batch2", "@100+batchx"} {
		_, err := parsePlayerSpec(ck + bad)
		if err == nil || !strings.Contains(err.Error(), `"`+ck+bad+`"`) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want one line naming the spec", bad, err)
		}
	}
	code, out, errs := runCmd(t, "arena", "--clock", "cpu", "--a", ck+"@t0.01+batch4", "--b", "random", "--games", "2", "--parallel", "1", "--quiet")
	if code != 0 || !strings.Contains(out, "sample-v1.ckpt@t0.01+batch4 vs random") {
		t.Errorf("arena: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// "+cpuctX" and "+ptX" after a checkpoint player's limit set the search's
// exploration constant and the temperature of its priors, mark the label,
// and refuse a value out of range with one line naming the spec.
func TestModelPlayerSearchConstants(t *testing.T) {
	ck := "../../model/testdata/sample-v1.ckpt"
	for spec, want := range map[string]struct {
		label        string
		cpuct, ptemp float64
	}{
		ck + "@100+cpuct2.5":         {"sample-v1.ckpt@100+cpuct2.5", 2.5, 0},
		ck + "@t0.05+pt1.6+pass":     {"sample-v1.ckpt@t0.05+pass+pt1.6", 0, 1.6},
		ck + "@100+pt0.5+cpuct1+mm4": {"sample-v1.ckpt@100+cpuct1+pt0.5+mm4", 1, 0.5},
		ck + "@100+batch4+cpuct0.75": {"sample-v1.ckpt@100+batch4+cpuct0.75", 0.75, 0},
	} {
		p, err := parsePlayerSpec(spec)
		if err != nil {
			t.Errorf("%s: %v", spec, err)
			continue
		}
		mp := p.(*modelPlayer)
		if mp.Label != want.label || mp.Options.CPuct != want.cpuct || mp.Options.PolicyTemperature != want.ptemp {
			t.Errorf("%s: label %q cpuct %v pt %v; want %+v", spec, mp.Label, mp.Options.CPuct, mp.Options.PolicyTemperature, want)
		}
		mp.Close()
	}
	for _, bad := range []string{"@100+cpuct", "@100+cpuct0", "@100+cpuct-1", "@100+cpuct21", "@100+cpuctNaN", "@100+pt", "@100+pt0.05", "@100+pt11", "@100+pt1..2", "@100+pt1+pt2", "@100+cpuct1+cpuct1.5"} {
		_, err := parsePlayerSpec(ck + bad)
		if err == nil || !strings.Contains(err.Error(), `"`+ck+bad+`"`) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want one line naming the spec", bad, err)
		}
	}
}
