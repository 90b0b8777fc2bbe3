package player

import (
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"dama/arena"
	"dama/configs"
	"dama/mcts"
	"dama/model/infer"
	"dama/tactics"
	"dama/tb"
	"dama/tb/tbtest"
)

// sample is a small checkpoint the tests open.
const sample = "../model/testdata/sample-v1.ckpt"

// open parses spec and opens it as a player of one game at a time under
// env; the player is closed when the test ends.
func open(t *testing.T, spec string, env Env) *networkPlayer {
	t.Helper()
	p, err := NewPlayer(spec, env)
	if err != nil {
		t.Fatalf("%s: %v", spec, err)
	}
	np, ok := p.(*networkPlayer)
	if !ok {
		t.Fatalf("%s: a %T, not a network player", spec, p)
	}
	t.Cleanup(func() { np.Close() })
	return np
}

// openErr returns the error of parsing and opening spec under env.
func openErr(spec string, env Env) error {
	p, err := NewPlayer(spec, env)
	if err == nil {
		arena.Close(p)
	}
	return err
}

// oneLineNaming fails unless err is one line that names spec.
func oneLineNaming(t *testing.T, spec string, err error) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), `"`+spec+`"`) || strings.Contains(err.Error(), "\n") {
		t.Errorf("%s: error %v, want one line naming the spec", spec, err)
	}
}

// A network spec searches by the Engine default unless its suffixes say
// otherwise: bare, it is what dama hub plays; +plain is plain PUCT, what
// a bare spec searched before; suffixes on top of +plain set what they
// name, in any order.
func TestSpecDefaults(t *testing.T) {
	for spec, want := range map[string]Search{
		sample:                             Engine(),
		sample + "@100":                    func() Search { s := Engine(); s.Visits = 100; return s }(),
		sample + "@t1.0":                   func() Search { s := Engine(); s.Visits, s.Time = 0, time.Second; return s }(),
		sample + "@100+plain":              Plain(100),
		sample + "@t0.5+pass+plain":        func() Search { s := Plain(0); s.Time, s.Pass = 500*time.Millisecond, true; return s }(),
		sample + "@100+pass+batch4+pt1.8":  func() Search { s := Engine(); s.Visits = 100; return s }(),
		sample + "@100+cmb2":               func() Search { s := Engine(); s.Visits, s.Hybrids = 100, tactics.Hybrids{Combinations: 2}; return s }(),
		sample + "@100+plain+mm4+cmb3+ip3": func() Search { s := Plain(100); s.Hybrids = tactics.DefaultHybrids; return s }(),
		sample + "@100+pass+pt1.8+plain+batch4+mm4+cmb3+ip3": func() Search { s := Engine(); s.Visits = 100; return s }(),
	} {
		s, err := Parse(spec, Env{})
		if err != nil {
			t.Errorf("%s: %v", spec, err)
			continue
		}
		if s.Search != want {
			t.Errorf("%s: search %+v, want %+v", spec, s.Search, want)
		}
	}
	// The engine's search as the engine package states it.
	e := Engine()
	if o, want := e.Options(), engineOptions(); !reflect.DeepEqual(o, want) {
		t.Errorf("Engine().Options() = %+v, want engine.SearchDefaults with one thread: %+v", o, want)
	}
	if e.Hybrids != tactics.DefaultHybrids || e.Visits != 800 || e.Time != 0 {
		t.Errorf("Engine() = %+v: want tactics.DefaultHybrids, 800 visits, no time", e)
	}
}

func TestTimedSpec(t *testing.T) {
	for spec, want := range map[string]struct {
		label string
		time  time.Duration
		pass  bool
	}{
		sample + "@t0.25+plain":            {"sample-v1.ckpt@t0.25+plain", 250 * time.Millisecond, false},
		sample + "@t0.05+pass+plain":       {"sample-v1.ckpt@t0.05+plain+pass", 50 * time.Millisecond, true},
		sample + "@t250ms+pass+plain:fp32": {"sample-v1.ckpt@t250ms+plain+pass:fp32", 250 * time.Millisecond, true},
		sample + "@t2s":                    {"sample-v1.ckpt@t2s", 2 * time.Second, true},
	} {
		p := open(t, spec, Env{Games: 1})
		if p.Label != want.label || p.Time != want.time || p.Visits != 0 || p.Options.PassForced != want.pass {
			t.Errorf("%s: label %q time %v visits %d pass %v; want %q, %v, 0 visits, pass %v", spec, p.Label, p.Time, p.Visits, p.Options.PassForced, want.label, want.time, want.pass)
		}
	}
	for _, bad := range []string{"@t0", "@t0.0", "@t-0.25", "@tNaN", "@tInf", "@t+Inf", "@t3601.0", "@t7200s", "@t1", "@t", "@t0.25x", "@t0.25+pas"} {
		_, err := Parse(sample+bad, Env{})
		oneLineNaming(t, sample+bad, err)
	}
}

// "+threadsN" sets the search threads, in any order with the other
// suffixes; each thread runs its own forward passes; a bad count is one
// line naming the spec (issue 21, item 3).
func TestThreadsSuffix(t *testing.T) {
	for spec, want := range map[string]struct {
		label   string
		threads int
		pass    bool
		direct  bool // the search threads run their own forward passes
	}{
		sample + "@100+plain+threads2":             {"sample-v1.ckpt@100+plain+threads2", 2, false, true},
		sample + "@100+plain+threads1":             {"sample-v1.ckpt@100+plain", 1, false, false},
		sample + "@t0.05+plain+pass+threads3:fp32": {"sample-v1.ckpt@t0.05+plain+pass+threads3:fp32", 3, true, true},
		sample + "@t0.05+threads2+pass+plain":      {"sample-v1.ckpt@t0.05+plain+pass+threads2", 2, true, true},
		sample + "@t0.05+plain":                    {"sample-v1.ckpt@t0.05+plain", 1, false, false},
	} {
		p := open(t, spec, Env{Games: 1})
		_, direct := p.Evaluator.(*infer.Direct)
		if p.Label != want.label || p.Options.Threads != want.threads || p.Options.PassForced != want.pass || direct != want.direct {
			t.Errorf("%s: label %q threads %d pass %v direct %v; want %q, %d, %v, %v", spec, p.Label, p.Options.Threads, p.Options.PassForced, direct, want.label, want.threads, want.pass, want.direct)
		}
	}
	for _, bad := range []string{"@100+threads0", "@100+threads", "@100+threadsx", "@100+threads-2", "@100+threads999", "@t0.05+thread2", "@100+"} {
		_, err := Parse(sample+bad, Env{})
		oneLineNaming(t, sample+bad, err)
	}
	// More threads than cores: allowed, with one warning.
	var log strings.Builder
	many := strconv.Itoa(runtime.NumCPU() + 1)
	if _, err := Parse(sample+"@10+threads"+many, Env{Log: &log}); err != nil || strings.Count(log.String(), "warning") != 1 {
		t.Errorf("+threads%s: %v, log %q; want one warning", many, err, log.String())
	}
}

// "+tb" plays with the tables of the command's --tb (the search's
// oracle, the solver on, the label marked), in either order with +pass;
// without --tb it is an error naming the spec.
func TestTablesSuffix(t *testing.T) {
	if _, err := Parse(sample+"@8+tb", Env{}); err == nil || !strings.Contains(err.Error(), "+tb needs the tables' folder (--tb DIR)") {
		t.Errorf("+tb without --tb: %v", err)
	}
	if err := openErr(sample+"@8+tb", Env{Tables: t.TempDir()}); err == nil || !strings.Contains(err.Error(), "--tb: ") || !strings.Contains(err.Error(), "no endgame tables") {
		t.Errorf("+tb with an empty folder: %v", err)
	}
	for _, bad := range []string{"auto:6", "auto:1", "auto:x", "auto:05"} {
		if err := openErr(sample+"@8+tb", Env{Tables: bad}); err == nil || !strings.Contains(err.Error(), `--tb: "`+bad+`": want a folder or auto:N with N in 2..5`) {
			t.Errorf("--tb %s: %v", bad, err)
		}
	}
	// auto:N generates the tables into the user's cache folder, where a
	// later auto:N finds them.
	cache := tbtest.Cache(t)
	p := open(t, sample+"@8+tb", Env{Tables: "auto:2"})
	dir, _ := tb.CacheDir(2)
	if o, ok := p.Options.Oracle.(mcts.Oracles); !ok || len(o) != 2 {
		t.Errorf("auto:2: oracle %#v, want the tables before the default hybrids' mm4", p.Options.Oracle)
	} else if to, ok := o[0].(tb.Oracle); !ok || to.T.Dir() != dir || !strings.HasPrefix(dir, cache) || to.T.Pieces() != 2 {
		t.Errorf("auto:2: oracle %v, want the tables of %s", o[0], dir)
	}
	folder, _ := tbtest.Tables(t, 2)
	for spec, label := range map[string]string{
		sample + "@8+plain+tb":      "sample-v1.ckpt@8+plain+tb",
		sample + "@8+plain+pass+tb": "sample-v1.ckpt@8+plain+pass+tb",
		sample + "@8+tb+pass+plain": "sample-v1.ckpt@8+plain+pass+tb",
		sample + "@8+plain":         "sample-v1.ckpt@8+plain",
	} {
		p := open(t, spec, Env{Tables: folder})
		with := strings.Contains(spec, "+tb")
		if _, ok := p.Options.Oracle.(tb.Oracle); p.Label != label || ok != with || p.Options.Solver != with {
			t.Errorf("%s: label %q oracle %v solver %v; want %q and tables %v", spec, p.Label, p.Options.Oracle, p.Options.Solver, label, with)
		}
	}
}

// With Env.CPUClock a timed player counts the CPU time of its move's
// thread, its forward passes on that thread; players by visits are
// unchanged; a CPU-timed player with search threads is refused in one
// line.
func TestCPUClockSpec(t *testing.T) {
	if err := arena.CheckCPUClock(); err != nil {
		t.Skip(err)
	}
	env := Env{CPUClock: true, Games: 2}
	p := open(t, sample+"@t0.05+pass+cmb2", env)
	if !p.CPUTime {
		t.Error("a timed network player with the CPU clock is not CPU-timed")
	}
	if _, ok := p.Evaluator.(mcts.BatchEvaluator); !ok {
		t.Errorf("its evaluator is a %T, not one that evaluates on the move's thread", p.Evaluator)
	}
	if v := open(t, sample+"@50", env); v.CPUTime {
		t.Error("a network player by visits is CPU-timed")
	}
	if err := openErr(sample+"@t0.05+threads2", env); err == nil || !strings.Contains(err.Error(), "one search thread") || strings.Contains(err.Error(), "\n") {
		t.Errorf("a CPU-timed player with two threads: %v, want a one-line refusal", err)
	}
}

// "+batchN" sets the leaves evaluated together per search step, in any
// order with the other suffixes, and marks the label; a bad count is one
// line naming the spec.
func TestBatchSuffix(t *testing.T) {
	for spec, want := range map[string]struct {
		label string
		batch int
	}{
		sample + "@100+plain+batch4":             {"sample-v1.ckpt@100+plain+batch4", 4},
		sample + "@t0.05+batch8+pass+plain":      {"sample-v1.ckpt@t0.05+plain+pass+batch8", 8},
		sample + "@t0.05+pass+cmb3+batch2+plain": {"sample-v1.ckpt@t0.05+plain+pass+batch2+cmb3", 2},
		sample + "@100+plain":                    {"sample-v1.ckpt@100+plain", 0},
		sample + "@100":                          {"sample-v1.ckpt@100", 4},
	} {
		s, err := Parse(spec, Env{})
		if err != nil {
			t.Errorf("%s: %v", spec, err)
			continue
		}
		if s.Label != want.label || s.Search.Options().Parallel != want.batch {
			t.Errorf("%s: label %q batch %d; want %q, %d", spec, s.Label, s.Search.Options().Parallel, want.label, want.batch)
		}
	}
	for _, bad := range []string{"@100+batch0", "@100+batch", "@100+batch257", "@100+batch4+batch2", "@100+batchx"} {
		_, err := Parse(sample+bad, Env{})
		oneLineNaming(t, sample+bad, err)
	}
}

// "+cpuctX" and "+ptX" set the search's exploration constant and the
// temperature of its priors, mark the label, and refuse a value out of
// range with one line naming the spec.
func TestSearchConstantSuffixes(t *testing.T) {
	for spec, want := range map[string]struct {
		label        string
		cpuct, ptemp float64
	}{
		sample + "@100+plain+cpuct2.5":         {"sample-v1.ckpt@100+plain+cpuct2.5", 2.5, 0},
		sample + "@t0.05+pt1.6+pass+plain":     {"sample-v1.ckpt@t0.05+plain+pass+pt1.6", 0, 1.6},
		sample + "@100+pt0.5+cpuct1+mm4+plain": {"sample-v1.ckpt@100+plain+cpuct1+pt0.5+mm4", 1, 0.5},
		sample + "@100+batch4+cpuct0.75":       {"sample-v1.ckpt@100+batch4+cpuct0.75", 0.75, 1.8},
	} {
		s, err := Parse(spec, Env{})
		if err != nil {
			t.Errorf("%s: %v", spec, err)
			continue
		}
		o := s.Search.Options()
		if s.Label != want.label || o.CPuct != want.cpuct || o.PolicyTemperature != want.ptemp {
			t.Errorf("%s: label %q cpuct %v pt %v; want %+v", spec, s.Label, o.CPuct, o.PolicyTemperature, want)
		}
	}
	for _, bad := range []string{"@100+cpuct", "@100+cpuct0", "@100+cpuct-1", "@100+cpuct21", "@100+cpuctNaN", "@100+pt", "@100+pt0.05", "@100+pt11", "@100+pt1..2", "@100+pt1+pt2", "@100+cpuct1+cpuct1.5", "@100+plain+plain"} {
		_, err := Parse(sample+bad, Env{})
		oneLineNaming(t, sample+bad, err)
	}
}

// The hybrid suffixes replace the default list; each wraps the evaluator
// or sets the oracle it names.
func TestHybridSuffixes(t *testing.T) {
	for spec, want := range map[string]struct {
		label      string
		pass       bool
		mm, cb, ip int
	}{
		sample + "@800+mm+plain":                {"sample-v1.ckpt@800+plain+mm4", false, 4, 0, 0},
		sample + "@800+mm2":                     {"sample-v1.ckpt@800+mm2", true, 2, 0, 0},
		sample + "@t0.25+pass+cmb2+plain":       {"sample-v1.ckpt@t0.25+plain+pass+cmb2", true, 0, 2, 0},
		sample + "@100+cmb+pass+mm3+plain:fp32": {"sample-v1.ckpt@100+plain+pass+mm3+cmb3:fp32", true, 3, 3, 0},
		sample + "@100+ip2+cmb":                 {"sample-v1.ckpt@100+cmb3+ip2", true, 0, 3, 2},
		sample + "@100":                         {"sample-v1.ckpt@100", true, 4, 3, 3},
	} {
		p := open(t, spec, Env{Games: 1})
		if p.Label != want.label || p.Options.PassForced != want.pass {
			t.Errorf("%s: label %q pass %v; want %q, pass %v", spec, p.Label, p.Options.PassForced, want.label, want.pass)
		}
		o, _ := p.Options.Oracle.(*tactics.Minimax)
		if (o != nil) != (want.mm > 0) || o != nil && (o.Depth != want.mm || !p.Options.Solver) {
			t.Errorf("%s: oracle %+v solver %v, want depth %d", spec, p.Options.Oracle, p.Options.Solver, want.mm)
		}
		ev := p.Evaluator
		if ip, ok := ev.(*tactics.Priors); ok {
			ev = ip.Inner
			if ip.Depth != want.ip {
				t.Errorf("%s: informed priors of depth %d, want %d", spec, ip.Depth, want.ip)
			}
		} else if want.ip > 0 {
			t.Errorf("%s: evaluator %T, want informed priors", spec, ev)
		}
		c, _ := ev.(*tactics.Combinations)
		if (c != nil) != (want.cb > 0) || c != nil && (c.Depth != want.cb || c.Inner != p.net.net) {
			t.Errorf("%s: evaluator %T, want combinations of depth %d around the network", spec, p.Evaluator, want.cb)
		}
	}
	for _, bad := range []string{"@800+mm0", "@800+mm9", "@800+mmx", "@800+cmb-1", "@800+foo", "@800+ip0", "@800+mm+mm", "@t0.25+", "@800+pass+"} {
		_, err := Parse(sample+bad, Env{})
		oneLineNaming(t, sample+bad, err)
	}
}

// A spec naming one of the removed root verifiers is refused in one line
// that names the spec and the suffix, says it was removed, and where.
func TestRemovedSuffixes(t *testing.T) {
	for _, sfx := range []string{"ab", "abn", "abw", "abp", "abs"} {
		for _, spec := range []string{sample + "@100+" + sfx, sample + "@t0.25+pass+mm4+" + sfx + "12"} {
			_, err := Parse(spec, Env{})
			oneLineNaming(t, spec, err)
			if err == nil || !strings.Contains(err.Error(), "+"+sfx+" was removed: ") || !strings.Contains(err.Error(), "see docs/rating.md#tactics") {
				t.Errorf("%s: %v, want it to say +%s was removed", spec, err, sfx)
			}
		}
	}
}

// "@N" is capped as --visits of ladder and ship and the visits keys are
// (issue 20, item 6: PATH@2000000 was taken and searched for hours).
func TestVisitsCap(t *testing.T) {
	for _, spec := range []string{sample + "@2000000", sample + "@1000001+pass", sample + "@0", sample + "@-5:fp32"} {
		if _, err := Parse(spec, Env{}); err == nil || !strings.Contains(err.Error(), "visits after @ must be an integer in 1..1000000") {
			t.Errorf("%s: %v, want the range of visits", spec, err)
		}
	}
	if _, err := Parse(sample+"@1000000", Env{}); err != nil {
		t.Errorf("@1000000, the cap: %v", err)
	}
}

// ":BACKEND" runs the network on that backend; the suffixes' errors say
// what is wrong.
func TestBackendAndSuffixErrors(t *testing.T) {
	p := open(t, sample+"@3+pass:fp32", Env{Games: 1, Backend: "nosuch"})
	if p.Visits != 3 || p.Label != "sample-v1.ckpt@3+pass:fp32" || p.net.net.Backend() != "fp32" {
		t.Errorf("player %q visits %d backend %s", p.Label, p.Visits, p.net.net.Backend())
	}
	for bad, want := range map[string]string{
		sample + "@+pass": "visits after @", sample + "@3+pas": `unknown suffix "+pas"`, sample + "@3+pass+pass": "+pass given twice",
		sample + "@3+threads2+threads2": "+threads given twice", sample + "@3:": "empty backend",
	} {
		if _, err := Parse(bad, Env{}); err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want one line saying %s", bad, err, want)
		}
	}
	if err := openErr(sample+"@3:fp16", Env{}); err == nil {
		t.Error("backend fp16: no error")
	}
	if _, err := Parse("nosuchplayer", Env{}); err == nil || !strings.Contains(err.Error(), "or a checkpoint file, PATH[@VISITS|@tSECONDS]") {
		t.Errorf("nosuchplayer: %v", err)
	}
}

// Reference players parse as arena reads them and keep their names.
func TestReferenceSpec(t *testing.T) {
	for _, spec := range []string{"random", "alphabeta:3", "classic:5", "classic:t0.25", "classic:n1000"} {
		s, err := Parse(spec, Env{})
		if err != nil || s.IsNetwork() || s.String() != spec {
			t.Errorf("%s: %+v, %v", spec, s, err)
			continue
		}
		p, err := s.Player(Env{})
		if _, isNet := p.(*networkPlayer); err != nil || p.Name() != spec || isNet {
			t.Errorf("%s: player %v, %v", spec, p, err)
		}
	}
}

// String writes a spec that reads back as the same player.
func TestSpecString(t *testing.T) {
	for _, s := range []Spec{
		{Model: sample, Search: Engine()},
		{Model: sample, Search: Plain(800)},
		{Model: sample, Search: func() Search { s := Plain(0); s.Time, s.Pass, s.Threads = time.Second, true, 2; return s }()},
		{Model: sample, Search: func() Search { s := Engine(); s.Visits, s.Hybrids = 64, tactics.Hybrids{Priors: 2}; return s }(), Backend: "fp32"},
		{Model: sample, Search: func() Search { s := Plain(100); s.CPuct, s.PolicyTemp, s.Batch = 2.5, 1.4, 8; return s }()},
	} {
		back, err := Parse(s.String(), Env{})
		if err != nil || back.Search != s.Search || back.Backend != s.Backend {
			t.Errorf("%+v: String %q reads back as %+v, %v", s, s.String(), back, err)
		}
	}
	// The Ladder default writes as the plain spec it is: its cpuct, 1.5,
	// is PUCT's default, written as none.
	d := configs.Default()
	if got := (Spec{Model: "x.ckpt", Search: Ladder(d.SelfPlay, d.Ladder)}).String(); got != "x.ckpt@800+plain" {
		t.Errorf("the Ladder default's spec is %q, want x.ckpt@800+plain", got)
	}
}
