package cbengine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"dama/arena"
	"dama/checkerboard"
	"dama/rules"
)

// The harness tests build the library (cmd/dama-cb, -buildmode=c-shared)
// and the C harness (cmd/dama-cb/harness/harness.c), and play whole games
// through getmove as CheckerBoard does, checking every answer here with
// dama's move generator: the board returned is the position after a legal
// move, the CBmove describes that move, the result agrees with the rules,
// and the time is kept (within a generous bound: the machine is shared;
// the times are logged).

// harness wraps the client of the harness for the test.
type harness struct{ *checkerboard.Harness }

// startHarness starts the harness, closed at the end of the test.
func startHarness(t *testing.T, ctx context.Context, env []string, argv ...string) *harness {
	t.Helper()
	h, err := checkerboard.StartHarness(ctx, env, os.Stderr, argv...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return &harness{h}
}

func (h *harness) getmove(t *testing.T, b checkerboard.Board, color int, maxtime float64, info, moreinfo int, playnow time.Duration) checkerboard.Answer {
	t.Helper()
	a, err := h.GetMove(b, color, maxtime, info, moreinfo, playnow)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func (h *harness) command(t *testing.T, cmd string) (int, string) {
	t.Helper()
	ok, reply, err := h.Command(cmd)
	if err != nil {
		t.Fatal(err)
	}
	return b2i(ok), reply
}

// refBoard is the board of p by the interface's formula, worked out
// here: square n at y = (n-1)/4, x = 2·((n-1)%4) + y%2; 1 white, 2 black,
// OR-ed with 4 a man, 8 a king.
func refBoard(p rules.Position) checkerboard.Board {
	var b checkerboard.Board
	val := map[rules.Piece]int32{rules.WhiteMan: 1 | 4, rules.WhiteKing: 1 | 8, rules.BlackMan: 2 | 4, rules.BlackKing: 2 | 8}
	for n := 1; n <= 32; n++ {
		if pc := p.At(rules.Square(n)); pc != rules.Empty {
			y := (n - 1) / 4
			b[2*((n-1)%4)+y%2][y] = val[pc]
		}
	}
	return b
}

// stats gathers what the games measured.
type stats struct {
	games, moves int
	perMaxtime   map[float64][]time.Duration // time of each move by its maxtime
	clocked      []time.Duration
	latencies    []time.Duration
}

// referee checks one answer to getmove in the game g (Check: a legal
// move, described by the CBmove; the result agrees with the rules) and
// plays the move on g.
func referee(t *testing.T, g *rules.Game, a checkerboard.Answer) rules.Move {
	t.Helper()
	p := g.Position()
	if !strings.HasPrefix(a.Str, "depth ") {
		t.Errorf("%s: str %q, want a search line", p.FEN(), a.Str)
	}
	if refBoard(p) != checkerboard.BoardOf(p) {
		t.Fatalf("%s: the board by the formula differs from BoardOf", p.FEN())
	}
	m, err := checkerboard.Check(p, a.Board, a.Move)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Play(m); err != nil {
		t.Fatal(err)
	}
	o := g.Outcome()
	switch {
	case o.Result == rules.Draw && a.Result != checkerboard.ResultDraw:
		t.Errorf("%s %s: the game is drawn (%s), getmove returned %d, want %d", p.FEN(), m, o.Reason, a.Result, checkerboard.ResultDraw)
	case o.Over() && o.Result != rules.Draw && a.Result != checkerboard.ResultWin:
		t.Errorf("%s %s: the move wins (%s), getmove returned %d, want %d", p.FEN(), m, o.Reason, a.Result, checkerboard.ResultWin)
	case a.Result < checkerboard.ResultDraw || a.Result > checkerboard.ResultUnknown:
		t.Errorf("%s %s: result %d", p.FEN(), m, a.Result)
	}
	return m
}

// playGames plays the harness's games and checks every answer: the
// engine against itself at fixed move times, against random legal moves
// (so that it follows a game it did not play alone), on an incremental
// clock, and searches stopped by playnow.
func playGames(t *testing.T, h *harness, games int) stats {
	st := stats{perMaxtime: map[float64][]time.Duration{}}
	r := rand.New(rand.NewPCG(48, 1))
	const maxPlies = 400
	for game := range games {
		g := rules.NewGame(rules.Start())
		// The engine plays both sides of game 0, White in game 1 and
		// Black in game 2; random legal moves the other side.
		random := map[int]rules.Color{1: rules.Black, 2: rules.White}
		randomSide, vsRandom := random[game%3]
		maxtime := []float64{0.05, 0.1}[game%2]
		clocked := game%3 == 2
		left, inc := 3*time.Second, 50*time.Millisecond
		for info := checkerboard.InfoResetMoves; !g.Outcome().Over() && g.Ply() < maxPlies; info = 0 {
			p := g.Position()
			if vsRandom && p.Side() == randomSide {
				ms := g.Legal(nil)
				g.PlayUnchecked(ms[r.IntN(len(ms))])
				continue
			}
			if clocked {
				// Units of 10 ms (info bits 2-3 = 2): left and increment.
				mi := int(min(left/(10*time.Millisecond), 0xffff))<<16 | int(inc/(10*time.Millisecond))
				a := h.getmove(t, refBoard(p), checkerboard.ColorValue(p.Side()), 1, info|2<<2, mi, -1)
				referee(t, g, a)
				st.clocked = append(st.clocked, a.Elapsed)
				left = max(left-a.Elapsed, 0) + inc
				if left == inc {
					t.Errorf("game %d ply %d: the engine used all its clock (%v for the move)", game, g.Ply(), a.Elapsed)
				}
			} else {
				a := h.getmove(t, refBoard(p), checkerboard.ColorValue(p.Side()), maxtime, info, 0, -1)
				referee(t, g, a)
				st.perMaxtime[maxtime] = append(st.perMaxtime[maxtime], a.Elapsed)
				// Generous: a loaded machine, a GUI that says "don't exceed it too much".
				if limit := 20*time.Duration(maxtime*float64(time.Second)) + 5*time.Second; a.Elapsed > limit {
					t.Errorf("game %d ply %d: %v for a move of maxtime %gs", game, g.Ply(), a.Elapsed, maxtime)
				}
			}
			st.moves++
		}
		st.games++
		opp := "itself"
		if vsRandom {
			opp = "random moves as " + randomSide.String()
		}
		how := fmt.Sprintf("maxtime %gs", maxtime)
		if clocked {
			how = "clock 3s+0.05s"
		}
		t.Logf("game %d, against %s, %s: %d plies, %s (%s)", game, opp, how, g.Ply(), g.Outcome().Result, g.Outcome().Reason)
	}
	// playnow: a search of a minute stopped after 100 ms.
	g := rules.NewGame(rules.Start())
	for i := range 4 {
		p := g.Position()
		a := h.getmove(t, refBoard(p), checkerboard.ColorValue(p.Side()), 60, checkerboard.InfoResetMoves*b2i(i == 0), 0, 100*time.Millisecond)
		referee(t, g, a)
		st.moves++
		if a.Latency < 0 || a.Elapsed > 30*time.Second {
			t.Errorf("playnow set after 100ms: getmove took %v (latency %v)", a.Elapsed, a.Latency)
		}
		st.latencies = append(st.latencies, a.Latency)
	}
	return st
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// report logs what st measured.
func (st stats) report(t *testing.T, what string) {
	t.Logf("%s: %d games, %d moves checked", what, st.games, st.moves)
	keys := make([]float64, 0, len(st.perMaxtime))
	for k := range st.perMaxtime {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		over := 0
		for _, d := range st.perMaxtime[k] {
			if d > time.Duration(k*float64(time.Second)) {
				over++
			}
		}
		t.Logf("%s: maxtime %gs: %s, %d over maxtime", what, k, spread(st.perMaxtime[k]), over)
	}
	t.Logf("%s: incremental clock 3s+0.05s: %s", what, spread(st.clocked))
	t.Logf("%s: playnow latency: %s", what, spread(st.latencies))
}

// spread writes the count, mean and maximum of d.
func spread(d []time.Duration) string {
	if len(d) == 0 {
		return "none"
	}
	var sum, top time.Duration
	for _, x := range d {
		sum += x
		top = max(top, x)
	}
	return fmt.Sprintf("%d moves, mean %.1f ms, max %.1f ms", len(d), float64(sum.Microseconds())/1e3/float64(len(d)), float64(top.Microseconds())/1e3)
}

// checkCommands checks enginecommand and islegal through the harness.
func checkCommands(t *testing.T, h *harness) {
	for _, c := range []struct {
		cmd   string
		r     int
		reply string
	}{
		{"get gametype", 1, "22"},
		{"get protocolversion", 1, "2"},
		{"set hashsize 64", 1, "hashsize 64"},
		{"get hashsize", 1, "64"},
		{"get book", 0, "?"},
		{"launch rockets", 0, "?"},
		{"set threads 0", 0, "set threads 0: want an integer in 1..256"},
	} {
		if r, reply := h.command(t, c.cmd); r != c.r || reply != c.reply {
			t.Errorf("enginecommand %q = %d %q, want %d %q", c.cmd, r, reply, c.r, c.reply)
		}
	}
	if r, reply := h.command(t, "name"); r != 1 || !strings.HasPrefix(reply, "dama ") {
		t.Errorf("enginecommand name = %d %q", r, reply)
	}
	if r, reply := h.command(t, "help"); r != 1 || !strings.Contains(reply, "set threads") {
		t.Errorf("enginecommand help = %d %q", r, reply)
	}
	p, _ := rules.ParseFEN("W:WK21,31:B10,18,27")
	for _, c := range []struct{ from, to, r int }{{31, 6, 1}, {21, 17, 0}, {31, 22, 0}} {
		ok, mv, err := h.IsLegal(refBoard(p), checkerboard.White, c.from, c.to)
		if err != nil {
			t.Fatal(err)
		}
		if ok != (c.r == 1) {
			t.Errorf("islegal %d-%d: %v, want %d", c.from, c.to, ok, c.r)
			continue
		}
		if ok {
			m, _ := rules.ParseMove(p, "31x22x13x6")
			if got := checkerboard.MoveOf(p, m); mv != got {
				t.Errorf("islegal 31x6: %+v, want %+v", mv, got)
			}
		}
	}
	// A board that is no position: the board comes back as it was.
	b := refBoard(rules.Start())
	b[1][0] = checkerboard.White | checkerboard.Man
	a := h.getmove(t, b, checkerboard.White, 0.05, checkerboard.InfoResetMoves, 0, -1)
	if a.Result != checkerboard.ResultUnknown || a.Board != b || !strings.Contains(a.Str, "board[1][0] = 5 on a square not played on") || a.Move != (checkerboard.Move{}) {
		t.Errorf("a bad board: result %d, str %q, board changed %v, move %+v", a.Result, a.Str, a.Board != b, a.Move)
	}
}

// games is how many games the harness tests play: DAMA_CB_GAMES, else 3
// (a game each way: against itself, against random moves, on a clock).
func games(t *testing.T) int {
	t.Helper()
	v := os.Getenv("DAMA_CB_GAMES")
	if v == "" {
		return 3
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("DAMA_CB_GAMES=%q: want a positive integer", v)
	}
	return n
}

// goTool returns the go command, skipping the test without one.
func goTool(t *testing.T) string {
	t.Helper()
	g := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(g); err != nil {
		if g, err = exec.LookPath("go"); err != nil {
			t.Skip("no go tool to build the library:", err)
		}
	}
	return g
}

// build runs a build command in the repository root.
func build(t *testing.T, env []string, argv ...string) {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = ".."
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(argv, " "), err, out)
	}
}

// TestHarness builds libdama-cb.so and the harness with the system's C
// compiler ($CC, else gcc) and plays games through it. Without a compiler
// it skips, unless DAMA_EXPECT_CC is set (CI), where it fails.
func TestHarness(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the CheckerBoard library (a minute): not with -short")
	}
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "gcc"
	}
	if _, err := exec.LookPath(cc); err != nil {
		if os.Getenv("DAMA_EXPECT_CC") != "" {
			t.Fatalf("DAMA_EXPECT_CC is set but there is no C compiler %q: %v", cc, err)
		}
		t.Skipf("no C compiler %q (install gcc) to build the CheckerBoard library and its harness: %v", cc, err)
	}
	goCmd, dir := goTool(t), t.TempDir()
	lib, bin := filepath.Join(dir, "libdama-cb.so"), filepath.Join(dir, "harness")
	build(t, []string{"CGO_ENABLED=1"}, goCmd, "build", "-buildmode=c-shared", "-o", lib, "./cmd/dama-cb")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	if err := checkerboard.BuildHarness(ctx, cc, bin, "-Wall", "-ldl", "-lpthread"); err != nil {
		t.Fatal(err)
	}
	h := startHarness(t, ctx, nil, bin, lib)
	checkCommands(t, h)
	playGames(t, h, games(t)).report(t, "libdama-cb.so")

	// The library as a player of an arena match (checkerboard.Player, each
	// game its own harness, every move refereed) against random moves.
	p, err := checkerboard.ParsePlayer("cb:" + lib + "@t0.05")
	if err != nil {
		t.Fatal(err)
	}
	p.Harness = bin
	random, err := arena.ParsePlayer("random")
	if err != nil {
		t.Fatal(err)
	}
	r, err := arena.Match(ctx, p, random, arena.MatchOptions{Games: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("arena: %s", r)
	if r.Games() != 2 || r.Losses > 0 {
		t.Errorf("cb:libdama-cb.so against random moves: %d games, %d lost", r.Games(), r.Losses)
	}
}

// TestHarnessWine cross-compiles dama-cb.dll and the harness with MinGW-w64
// and plays games through them under Wine (LoadLibrary). It runs where
// DAMA_CB_WINE is set (scripts/build-cb --wine), skipping without
// x86_64-w64-mingw32-gcc or wine.
func TestHarnessWine(t *testing.T) {
	if os.Getenv("DAMA_CB_WINE") == "" {
		t.Skip("set DAMA_CB_WINE=1 to run the Windows DLL under Wine")
	}
	const mingw = "x86_64-w64-mingw32-gcc"
	wine, err := exec.LookPath("wine")
	if err != nil {
		t.Skip("no wine (Debian: apt-get install wine64):", err)
	}
	if _, err := exec.LookPath(mingw); err != nil {
		t.Skip("no MinGW-w64 (Debian: apt-get install gcc-mingw-w64-x86-64):", err)
	}
	goCmd, dir := goTool(t), t.TempDir()
	dll, exe := filepath.Join(dir, "dama-cb.dll"), filepath.Join(dir, "harness.exe")
	build(t, []string{"CGO_ENABLED=1", "GOOS=windows", "GOARCH=amd64", "CC=" + mingw}, goCmd, "build", "-buildmode=c-shared", "-o", dll, "./cmd/dama-cb")
	if err := checkerboard.BuildHarness(context.Background(), mingw, exe, "-Wall"); err != nil {
		t.Fatal(err)
	}
	// Wine 8 lacks bcryptprimitives.dll, which the Go runtime loads from
	// system32: a stand-in goes into the test's own Wine prefix.
	prefix := filepath.Join(dir, "wine")
	env := []string{"WINEPREFIX=" + prefix, "WINEDEBUG=-all"}
	build(t, env, wine, "wineboot", "-i")
	build(t, nil, mingw, "-O2", "-shared", "-o", filepath.Join(prefix, "drive_c", "windows", "system32", "bcryptprimitives.dll"),
		"checkerboard/harness/bcryptprimitives.c", "-ladvapi32")
	// The prefix is removed once Wine's server, which outlives the
	// harness a few seconds, has stopped.
	t.Cleanup(func() { stopWineServer(env) })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	h := startHarness(t, ctx, env, wine, exe, dll)
	checkCommands(t, h)
	playGames(t, h, games(t)).report(t, "dama-cb.dll under wine")
}

// stopWineServer stops the Wine server of the prefix in env and waits for
// it (Debian has wineserver outside PATH).
func stopWineServer(env []string) {
	server, err := exec.LookPath("wineserver")
	if err != nil {
		server = "/usr/lib/wine/wineserver"
	}
	for _, arg := range []string{"-k", "-w"} {
		cmd := exec.Command(server, arg)
		cmd.Env = append(os.Environ(), env...)
		cmd.Run()
	}
}
