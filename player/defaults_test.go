package player

import (
	"flag"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"dama/configs"
	"dama/engine"
	"dama/mcts"
	"dama/selfplay"
	"dama/tactics"
)

// engineOptions is the search the engine package says it plays, with one
// thread.
func engineOptions() mcts.Options {
	o := engine.SearchDefaults()
	o.Threads = 1
	return o
}

// loadPreset returns a configuration preset, failing the test where it
// does not load.
func loadPreset(t *testing.T, name string) configs.Config {
	t.Helper()
	c, err := configs.Load(name, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return *c
}

// Training, Gate and Ladder read the configuration keys into the search
// that self-play, gating and the ladder play with: the options they give
// are self-play's own mapping of the same keys (selfplay.SearchOptions,
// selfplay.MatchOptions), on the defaults and on each preset, with the
// keys changed too.
func TestConfigDefaults(t *testing.T) {
	changed := configs.Default()
	sp := &changed.SelfPlay
	sp.Visits, sp.LeavesInFlight, sp.CPuct, sp.FPUReduction, sp.PolicyTemp, sp.PassForced, sp.Hybrids = 321, 3, 2.25, 0.1, 1.6, true, "cmb2"
	changed.Arena.Visits, changed.Arena.MaxPlies, changed.Ladder.Visits = 77, 123, 99
	for name, c := range map[string]configs.Config{
		"default": configs.Default(), "quick": loadPreset(t, "quick"), "workstation": loadPreset(t, "workstation"), "changed": changed,
	} {
		tr, err := Training(c.SelfPlay)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		o, want := tr.Options(), selfplay.SearchOptions(c.SelfPlay)
		if o.CPuct != want.CPuct || o.FPUReduction != want.FPUReduction || o.PolicyTemperature != want.PolicyTemperature ||
			o.Parallel != want.Parallel || o.PassForced != want.PassForced || tr.Visits != c.SelfPlay.Visits {
			t.Errorf("%s: Training %+v gives %+v; self-play searches with %+v", name, tr, o, want)
		}
		if h, _ := tactics.ParseHybrids(c.SelfPlay.Hybrids); tr.Hybrids != h || tr.Tables != c.SelfPlay.Tables {
			t.Errorf("%s: Training hybrids %v tables %q; selfplay.hybrids %q, selfplay.tables %q", name, tr.Hybrids, tr.Tables, c.SelfPlay.Hybrids, c.SelfPlay.Tables)
		}
		g := Gate(c.SelfPlay, c.Arena)
		if o, want := g.Options(), selfplay.MatchOptions(c.SelfPlay, c.Arena.MaxPlies); !reflect.DeepEqual(o, want) || g.Visits != c.Arena.Visits {
			t.Errorf("%s: Gate %+v gives %+v; gating searched with %+v at arena.visits %d", name, g, o, want, c.Arena.Visits)
		}
		l := Ladder(c.SelfPlay, c.Ladder)
		if o, want := l.Options(), selfplay.MatchOptions(c.SelfPlay, 0); !reflect.DeepEqual(o, want) || l.Visits != c.Ladder.Visits {
			t.Errorf("%s: Ladder %+v gives %+v; the run's ladder searched with %+v at ladder.visits %d", name, l, o, want, c.Ladder.Visits)
		}
	}
	if _, err := Training(configs.SelfPlay{Hybrids: "mm4,ab12"}); err == nil || !strings.Contains(err.Error(), "selfplay.hybrids") {
		t.Errorf("Training with selfplay.hybrids ab: %v", err)
	}
	// dama ladder's default is the runs' ladder search under the default
	// configuration: plain PUCT at 800 visits, the search dama ladder
	// rated by before there was a player package (standard FPU, the
	// default cpuct, no forced moves passed, no hybrids).
	d := configs.Default()
	l := Ladder(d.SelfPlay, d.Ladder)
	if o := l.Options(); l.Visits != 800 || o.PassForced || o.Parallel > 1 || o.PolicyTemperature != 0 || o.FPUReduction != mcts.StandardFPUReduction || o.CPuct != mcts.DefaultCPuct || l.Hybrids != (tactics.Hybrids{}) {
		t.Errorf("Ladder(default) = %+v, options %+v; want plain PUCT at 800 visits", l, o)
	}
	if got := l.Describe(); got != "800 visits a move, plain PUCT" {
		t.Errorf("Ladder(default).Describe() = %q", got)
	}
	if LadderDefault() != l {
		t.Errorf("LadderDefault() = %+v, want Ladder(default) %+v", LadderDefault(), l)
	}
	// LadderNote: other limits keep the Ladder default; another switch
	// is named as a change.
	l.Visits = 64
	if got, want := l.LadderNote(), "search: 64 visits a move, plain PUCT (the Ladder default, as the runs' ladder ratings)"; got != want {
		t.Errorf("LadderNote() = %q, want %q", got, want)
	}
	l.Pass = true
	if got := l.LadderNote(); !strings.Contains(got, "(the Ladder default, plain PUCT, changed: +pass; ratings compare with the runs' only by the Ladder default)") {
		t.Errorf("LadderNote() with forced moves passed = %q, want the change named", got)
	}
}

// parseFlags binds the flags of names on a fresh flag set with def and
// parses args.
func parseFlags(t *testing.T, def Search, args []string, names ...string) (*Flags, error) {
	t.Helper()
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f := AddFlags(fs, def, names...)
	return f, fs.Parse(args)
}

var engineFlagNames = []string{"model", "visits", "time", "batch", "threads", "cache", "tree-mb", "backend", "pass-forced", "tb", "hybrids", "policy-temp"}

// The flags give the default's search where none is given, what each
// sets where it is, and a time set without --visits is the limit (issue
// 46: analyze --time 2 stopped at the default 800 visits after 0.12 s);
// with both, both are limits (the first reached ends the search). A time
// is seconds or a Go duration (issue 49: --time 1s was a parse error).
func TestFlagsSearch(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want func(*Search)
	}{
		{nil, func(*Search) {}},
		{[]string{"--time", "2"}, func(s *Search) { s.Visits, s.Time = 0, 2*time.Second }},
		{[]string{"--time", "2", "--visits", "100"}, func(s *Search) { s.Visits, s.Time = 100, 2*time.Second }},
		{[]string{"--visits", "0", "--time", "0.5"}, func(s *Search) { s.Visits, s.Time = 0, 500*time.Millisecond }},
		{[]string{"--visits", "50"}, func(s *Search) { s.Visits = 50 }},
		{[]string{"--time", "1s"}, func(s *Search) { s.Visits, s.Time = 0, time.Second }},
		{[]string{"--time", "250ms", "--visits", "800"}, func(s *Search) { s.Visits, s.Time = 800, 250*time.Millisecond }},
		{[]string{"--time", "2m"}, func(s *Search) { s.Visits, s.Time = 0, 2*time.Minute }},
		{[]string{"--time", "0", "--visits", "30"}, func(s *Search) { s.Visits, s.Time = 30, 0 }},
		{[]string{"--batch", "8", "--threads", "1", "--pass-forced=false", "--policy-temp", "1", "--hybrids", "none"}, func(s *Search) {
			s.Batch, s.Pass, s.PolicyTemp, s.Hybrids = 8, false, 1, tactics.Hybrids{}
		}},
		{[]string{"--hybrids", "cmb2", "--tree-mb", "64", "--tb", "auto:3"}, func(s *Search) { s.Hybrids, s.TreeMB, s.Tables = tactics.Hybrids{Combinations: 2}, 64, "auto:3" }},
	} {
		f, err := parseFlags(t, Engine(), tc.args, engineFlagNames...)
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		sp, err := f.Spec(nil)
		want := Engine()
		tc.want(&want)
		if err != nil || sp.Search != want {
			t.Errorf("%v: %+v, %v; want %+v", tc.args, sp.Search, err, want)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--visits", "0"}, "--visits 0 needs a --time limit"},
		{[]string{"--time", "1e-9"}, "--time"},
		{[]string{"--time", "NaN"}, "flag -time: want seconds (2, 0.5) or a duration"},
		{[]string{"--time", "1x"}, "flag -time: want seconds (2, 0.5) or a duration"},
		{[]string{"--time", "-1s"}, "flag -time: negative"},
		{[]string{"--time", "300h"}, "--time 300h: want 0 (no time limit) or 0.001..1000000 seconds"},
		{[]string{"--batch", "0"}, "--batch 0"},
		{[]string{"--threads", "0"}, "--threads"},
		{[]string{"--hybrids", "bogus"}, "--hybrids"},
		{[]string{"--hybrids", "mm4,abn"}, "abn was removed"},
		{[]string{"--backend", "fp16"}, "--backend"},
	} {
		f, err := parseFlags(t, Engine(), tc.args, engineFlagNames...)
		if err == nil {
			_, err = f.Spec(nil)
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: %v, want one line with %q", tc.args, err, tc.want)
		}
	}
	// The Ladder default's flags: plain, the flag defaults read back as it.
	d := configs.Default()
	f, _ := parseFlags(t, Ladder(d.SelfPlay, d.Ladder), nil, "visits", "time", "batch", "threads", "pass-forced", "policy-temp", "hybrids")
	if sp, err := f.Spec(nil); err != nil || sp.Search != Ladder(d.SelfPlay, d.Ladder) {
		t.Errorf("ladder flags untouched: %+v, %v", sp.Search, err)
	}
}

// Env reads --backend, --tb, --clock and --cache; the ranges of the
// numeric flags come from Settings.
func TestFlagsEnv(t *testing.T) {
	f, err := parseFlags(t, Search{}, []string{"--backend", "fp32", "--tb", "auto:3"}, "backend", "tb", "clock")
	if err != nil {
		t.Fatal(err)
	}
	e, err := f.Env(4, nil)
	if err != nil || e.Backend != "fp32" || e.Tables != "auto:3" || e.CPUClock || e.Cache != DefaultCache || e.Games != 4 {
		t.Errorf("Env = %+v, %v", e, err)
	}
	if _, err := parseFlags(t, Search{}, []string{"--clock", "cpus"}, "clock"); err == nil || !strings.Contains(err.Error(), "want wall or cpu") {
		t.Errorf("--clock cpus: %v", err)
	}
	f, _ = parseFlags(t, Engine(), nil, engineFlagNames...)
	got := map[string]bool{}
	for _, r := range f.Ranges() {
		got[r.Flag] = true
		if r.Hi <= r.Lo {
			t.Errorf("--%s: range %g..%g", r.Flag, r.Lo, r.Hi)
		}
	}
	for _, name := range []string{"visits", "time", "batch", "threads", "cache", "tree-mb", "policy-temp"} {
		if !got[name] {
			t.Errorf("--%s has no range", name)
		}
	}
}

// Settings lists each suffix, flag and key once, and the syntax and help
// texts name every suffix.
func TestSettingsTable(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range Settings() {
		for _, x := range []string{"name:" + s.Name, "flag:" + s.Flag, "suffix:" + s.Suffix} {
			if !strings.HasSuffix(x, ":") && seen[x] {
				t.Errorf("%s listed twice", x)
			}
			seen[x] = true
		}
		if s.Meaning == "" || s.Range == "" {
			t.Errorf("%s: no meaning or range", s.Name)
		}
		if strings.HasPrefix(s.Suffix, "+") && !strings.Contains(Syntax(), strings.Split(s.Suffix, ",")[0]) {
			t.Errorf("Syntax() lacks %s: %s", s.Suffix, Syntax())
		}
		if s.Suffix != "" && !strings.Contains(SuffixHelp(), s.Suffix) {
			t.Errorf("SuffixHelp() lacks %s", s.Suffix)
		}
	}
}

// AddEngineFlags declares the engine commands' flags with the Engine
// default, the Hub's notes only for the Hub; Open opens the network they
// name.
func TestAddEngineFlags(t *testing.T) {
	for _, hub := range []bool{false, true} {
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		f := AddEngineFlags(fs, hub)
		var names []string
		fs.VisitAll(func(fl *flag.Flag) { names = append(names, fl.Name) })
		if want := slices.Sorted(slices.Values(engineFlagNames)); !slices.Equal(names, want) {
			t.Errorf("hub %v: flags %v, want %v", hub, names, want)
		}
		if got := strings.Contains(fs.Lookup("visits").Usage, "used when the GUI sets no level"); got != hub {
			t.Errorf("hub %v: --visits help %q", hub, fs.Lookup("visits").Usage)
		}
		if err := fs.Parse([]string{"--model", sample, "--visits", "3"}); err != nil {
			t.Fatal(err)
		}
		n, err := f.Open(nil)
		if err != nil {
			t.Fatal(err)
		}
		if n.Limits.Visits != 3 {
			t.Errorf("opened with %d visits, want 3", n.Limits.Visits)
		}
		n.Close()
	}
}

// AddLadderFlags declares the ladder's player flags with the Ladder
// default, each search flag's help saying it is the model's search.
func TestAddLadderFlags(t *testing.T) {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f := AddLadderFlags(fs)
	if fs.Lookup("clock") == nil || fs.Lookup("cache") != nil || !strings.HasPrefix(fs.Lookup("visits").Usage, "the model's search: ") ||
		!strings.HasSuffix(fs.Lookup("threads").Usage, "; keep threads x --parallel at most the free cores") {
		t.Errorf("flags: clock %v, cache %v, visits %q", fs.Lookup("clock"), fs.Lookup("cache"), fs.Lookup("visits").Usage)
	}
	if err := fs.Parse([]string{"--model", sample}); err != nil {
		t.Fatal(err)
	}
	sp, err := f.Spec(nil)
	if err != nil || sp.Search != LadderDefault() || sp.Model != sample {
		t.Errorf("no search flags: %+v, %v; want the Ladder default", sp, err)
	}
}
