package main

import (
	"context"
	"io"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"dama/arena"
	"dama/engine"
	"dama/player"
	"dama/rules"
)

// sampleCkpt is a small checkpoint the tests play with.
const sampleCkpt = "../../model/testdata/sample-v1.ckpt"

// engineSpec returns the network player that hub (hub true), play or
// analyze would search with under args, read by their own flags.
func engineSpec(t *testing.T, hub bool, args ...string) player.Spec {
	t.Helper()
	fs := bareFlagSet("test")
	fs.SetOutput(io.Discard)
	ef := addEngineFlags(fs, hub)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	s, err := ef.Spec(nil)
	if err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return s
}

// shipped@t1.0 in dama arena plays what dama hub --time 1 plays (issue
// 46): the same search and limits, read by one package; and a network
// spec by visits plays the moves dama hub's search plays by the same
// visits, on the same network.
func TestArenaPlaysTheEngine(t *testing.T) {
	arenaSpec, err := player.Parse("shipped@t1.0", player.Env{})
	if err != nil {
		t.Fatal(err)
	}
	hub := engineSpec(t, true, "--time", "1")
	if arenaSpec.Search != hub.Search {
		t.Errorf("shipped@t1.0 searches %+v; dama hub --time 1 searches %+v", arenaSpec.Search, hub.Search)
	}
	if a, h := arenaSpec.Search.Options(), hub.Search.Options(); !reflect.DeepEqual(a, h) {
		t.Errorf("search options: arena %+v, hub %+v", a, h)
	}
	if a, h := arenaSpec.Search.Limits(), hub.Search.Limits(); a != h || h.Visits != 0 || h.Time != time.Second {
		t.Errorf("limits: arena %+v, hub %+v; want one second a move, no visit limit", a, h)
	}
	for spec, args := range map[string][]string{
		"shipped@64":                        {"--visits", "64"},
		"shipped@t0.25+threads2":            {"--time", "0.25", "--threads", "2"},
		"shipped@100+plain+pass+batch1+pt1": {"--visits", "100", "--batch", "1", "--policy-temp", "1", "--hybrids", "none"},
	} {
		cmd := engineSpec(t, false, args...)
		a, err := player.Parse(spec, player.Env{})
		if err != nil || a.Search != cmd.Search {
			t.Errorf("%s searches %+v (%v); analyze %s searches %+v", spec, a.Search, err, strings.Join(args, " "), cmd.Search)
		}
	}

	// The same moves, on a fixed seed: the arena player's search and the
	// Hub's (engine.Searcher, as dama hub runs it) from the same network.
	h := engineSpec(t, true, "--model", sampleCkpt, "--visits", "48", "--backend", "fp32")
	n, err := h.Open(player.Env{Cache: player.DefaultCache})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	spec, err := player.Parse(sampleCkpt+"@48:fp32", player.Env{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := spec.Player(player.Env{Cache: player.DefaultCache, Games: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer closePlayer(io.Discard, p)
	rng := rand.New(rand.NewPCG(46, 1))
	ctx := context.Background()
	for i := range 6 {
		g := rules.NewGame(rules.Start())
		for range 2 + i {
			moves := g.Legal(nil)
			g.PlayUnchecked(moves[rng.IntN(len(moves))])
		}
		res, err := engine.NewSearcher(n.Evaluator, n.Options).Think(ctx, g, n.Limits, nil)
		if err != nil {
			t.Fatal(err)
		}
		gp, err := p.Start(ctx, g, rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			t.Fatal(err)
		}
		m, err := gp.Move(ctx, g)
		gp.Close()
		if err != nil {
			t.Fatal(err)
		}
		if m != res.Move {
			t.Errorf("%s: the arena player played %s, the Hub's search %s", g.Position().FEN(), m, res.Move)
		}
	}
}

// A time given to analyze, play or hub without --visits is the limit:
// analyze --time searches for that time, not to the default visits
// (issue 46: --time 2 stopped at 800 visits after 0.12 s).
func TestEngineTimeIsTheLimit(t *testing.T) {
	start := time.Now()
	code, _, errs := runCmd(t, "analyze", "--model", "random", "--time", "0.3", "--batch", "1")
	took := time.Since(start)
	if code != 0 {
		t.Fatalf("analyze --time 0.3: exit %d, stderr %q", code, errs)
	}
	if took < 150*time.Millisecond { // 800 visits of the uniform evaluator take a few ms
		t.Errorf("analyze --time 0.3 took %v: it stopped before its time", took)
	}
	if s := engineSpec(t, false, "--time", "0.3"); s.Search.Visits != 0 {
		t.Errorf("--time 0.3: visits %d, want no visit limit", s.Search.Visits)
	}
	if s := engineSpec(t, false, "--time", "0.3", "--visits", "100"); s.Search.Visits != 100 {
		t.Errorf("--time 0.3 --visits 100: visits %d, want 100", s.Search.Visits)
	}
}

// Network players in arena, timed, with threads, with a batch, and the
// ladder's time errors.
func TestArenaNetworkPlayers(t *testing.T) {
	for _, tc := range []struct{ a, b, want string }{
		{sampleCkpt + "@t0.01+plain+pass", "classic:t0.01", "sample-v1.ckpt@t0.01+plain+pass vs classic:t0.01"},
		{sampleCkpt + "@40+threads2", "random", "sample-v1.ckpt@40+threads2 vs random"},
		{sampleCkpt + "@4+pass", sampleCkpt + "@4+plain", "sample-v1.ckpt@4+pass vs sample-v1.ckpt@4+plain"},
	} {
		code, out, errs := runCmd(t, "arena", "--a", tc.a, "--b", tc.b, "--games", "2", "--parallel", "1", "--quiet")
		if code != 0 || !strings.Contains(out, tc.want) {
			t.Errorf("arena --a %s --b %s: exit %d, stdout %q, stderr %q", tc.a, tc.b, code, out, errs)
		}
	}
	code, _, errs := runCmd(t, "arena", "--a", sampleCkpt+"@2000000", "--b", "random", "--games", "2")
	if code != 1 || !strings.Contains(errs, "1..1000000") || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
		t.Errorf("arena --a %s@2000000: exit %d, stderr %q; want a one-line error", sampleCkpt, code, errs)
	}
	for _, sfx := range []string{"ab", "abn", "abw", "abp", "abs"} {
		code, _, errs := runCmd(t, "arena", "--a", sampleCkpt+"@10+"+sfx+"12", "--b", "random", "--games", "2")
		if code != 1 || !strings.Contains(errs, "+"+sfx+" was removed") || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("arena --a ...+%s12: exit %d, stderr %q; want one line saying it was removed", sfx, code, errs)
		}
	}
}

func TestLadderTimeErrors(t *testing.T) {
	for v, want := range map[string]string{"-1": "flag -time: negative", "3601": "--time 3601", "1h0m1s": "--time 1h0m1s", "0.0001": "--time 0.0001", "NaN": "flag -time: want seconds", "+Inf": "flag -time: want seconds"} {
		code, _, errs := runCmd(t, "ladder", "--model", sampleCkpt, "--time", v, "--quiet")
		if code == 0 || !strings.Contains(errs, want) || !strings.Contains(errs, v) || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("ladder --time %s: exit %d, stderr %q; want a one-line error naming --time and %q", v, code, errs, want)
		}
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

// --clock cpu times each timed player by the CPU time of its move's
// thread; arena and tactics run with it, the ladder refuses a timed model
// with search threads in one line, and a bad clock is named.
func TestClockFlag(t *testing.T) {
	if err := arena.CheckCPUClock(); err != nil {
		t.Skip(err)
	}
	for _, args := range [][]string{
		{"arena", "--clock", "cpu", "--a", sampleCkpt + "@t0.01+pass", "--b", "classic:t0.01", "--games", "2", "--parallel", "2", "--quiet"},
		{"arena", "--clock", "cpu", "--a", sampleCkpt + "@t0.01+batch4", "--b", "random", "--games", "2", "--parallel", "1", "--quiet"},
		{"tactics", "--clock", "cpu", "--suite", "../../arena/tactics/suite.json", "--players", sampleCkpt + "@t0.01,classic:t0.01", "--parallel", "2"},
	} {
		if code, out, errs := runCmd(t, args...); code != 0 {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", strings.Join(args, " "), code, out, errs)
		}
	}
	code, _, errs := runCmd(t, "ladder", "--clock", "cpu", "--model", sampleCkpt, "--time", "0.01", "--threads", "2", "--quiet")
	if code == 0 || !strings.Contains(errs, "one search thread") || strings.Count(strings.TrimSpace(errs), "\n") > 1 {
		t.Errorf("ladder --clock cpu --threads 2: exit %d, stderr %q, want a refusal", code, errs)
	}
	code, _, errs = runCmd(t, "arena", "--clock", "cpus", "--a", "random", "--b", "random")
	if code == 0 || !strings.Contains(errs, "want wall or cpu") {
		t.Errorf("--clock cpus: exit %d, stderr %q", code, errs)
	}
}
