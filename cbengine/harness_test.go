package cbengine

import (
	"bufio"
	"context"
	"fmt"
	"io"
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

	"dama/rules"
)

// The harness tests build the library (cmd/dama-cb, -buildmode=c-shared)
// and the C harness (cmd/dama-cb/harness/harness.c), and play whole games
// through getmove as CheckerBoard does, checking every answer here with
// dama's move generator: the board returned is the position after a legal
// move, the CBmove describes that move, the result agrees with the rules,
// and the time is kept (within a generous bound: the machine is shared;
// the times are logged).

// harness is a running harness process.
type harness struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	name string
}

// startHarness runs argv (the harness and the library, or wine and them).
func startHarness(t *testing.T, ctx context.Context, env []string, argv ...string) *harness {
	t.Helper()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: %v", strings.Join(argv, " "), err)
	}
	h := &harness{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<16), name: filepath.Base(argv[len(argv)-1])}
	t.Cleanup(func() {
		fmt.Fprintln(h.in, "quit")
		h.in.Close()
		h.cmd.Wait()
	})
	if l := h.line(t); !strings.HasPrefix(l, "ready islegal=1") {
		t.Fatalf("harness: first line %q, want ready islegal=1", l)
	}
	return h
}

func (h *harness) line(t *testing.T) string {
	t.Helper()
	l, err := h.out.ReadString('\n')
	if err != nil {
		t.Fatalf("harness (%s): reading: %v (after %q)", h.name, err, l)
	}
	return strings.TrimRight(l, "\r\n")
}

func (h *harness) send(t *testing.T, format string, a ...any) {
	t.Helper()
	if _, err := fmt.Fprintf(h.in, format+"\n", a...); err != nil {
		t.Fatalf("harness (%s): writing: %v", h.name, err)
	}
}

// boardText writes a board as the harness reads it.
func boardText(b Board) string {
	var sb strings.Builder
	for x := range 8 {
		for y := range 8 {
			fmt.Fprintf(&sb, " %d", b[x][y])
		}
	}
	return sb.String()
}

// answer is what one getmove returned.
type answer struct {
	result           int
	elapsed, latency time.Duration // latency < 0: playnow was not set before the return
	board            Board
	move             Move
	str              string
}

// ints reads n integers from f.
func ints(t *testing.T, f []string, n int) []int32 {
	t.Helper()
	if len(f) < n {
		t.Fatalf("harness: %d numbers, want %d", len(f), n)
	}
	out := make([]int32, n)
	for i := range n {
		v, err := strconv.Atoi(f[i])
		if err != nil {
			t.Fatalf("harness: %q is no integer", f[i])
		}
		out[i] = int32(v)
	}
	return out
}

// readMove reads a CBmove's 3+4+24+24+12 numbers.
func readMove(t *testing.T, f []string) Move {
	v := ints(t, f, 67)
	m := Move{Jumps: v[0], NewPiece: v[1], OldPiece: v[2], From: Coor{v[3], v[4]}, To: Coor{v[5], v[6]}}
	for i := range MaxPath {
		m.Path[i] = Coor{v[7+2*i], v[8+2*i]}
		m.Del[i] = Coor{v[31+2*i], v[32+2*i]}
		m.DelPiece[i] = v[55+i]
	}
	return m
}

func ms(s string) time.Duration {
	f, _ := strconv.ParseFloat(s, 64)
	return time.Duration(f * float64(time.Millisecond))
}

// getmove calls getmove on b; playnow >= 0 sets *playnow after that long.
func (h *harness) getmove(t *testing.T, b Board, color int, maxtime float64, info, moreinfo int, playnow time.Duration) answer {
	t.Helper()
	stop := int64(-1)
	if playnow >= 0 {
		stop = playnow.Milliseconds()
	}
	h.send(t, "getmove %d %g %d %d %d%s", color, maxtime, info, moreinfo, stop, boardText(b))
	f := strings.Fields(h.line(t))
	if len(f) != 4+64+67 || f[0] != "move" {
		t.Fatalf("harness: %d fields (%q...), want move and %d numbers", len(f), f[:min(len(f), 4)], 3+64+67)
	}
	var a answer
	a.result = int(ints(t, f[1:], 1)[0])
	a.elapsed, a.latency = ms(f[2]), ms(f[3])
	bv := ints(t, f[4:], 64)
	for i, v := range bv {
		a.board[i/8][i%8] = v
	}
	a.move = readMove(t, f[68:])
	s := h.line(t)
	if !strings.HasPrefix(s, "str ") {
		t.Fatalf("harness: %q, want the str line", s)
	}
	a.str = s[4:]
	return a
}

// command calls enginecommand.
func (h *harness) command(t *testing.T, cmd string) (int, string) {
	t.Helper()
	h.send(t, "cmd %s", cmd)
	l := h.line(t)
	var r int
	var rest string
	if _, err := fmt.Sscanf(l, "reply %d", &r); err != nil {
		t.Fatalf("harness: %q, want reply", l)
	}
	if i := strings.Index(l[6:], " "); i >= 0 {
		rest = l[6+i+1:]
	}
	return r, rest
}

// refBoard is the board of p by this test's own arithmetic (c).
func refBoard(p rules.Position) Board {
	var b Board
	val := map[rules.Piece]int32{rules.WhiteMan: White | Man, rules.WhiteKing: White | King, rules.BlackMan: Black | Man, rules.BlackKing: Black | King}
	for s := 1; s <= 32; s++ {
		if pc := p.At(rules.Square(s)); pc != rules.Empty {
			b[c(s).X][c(s).Y] = val[pc]
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

// referee checks one answer to getmove on p (the game g before the move)
// and plays the move on g. It returns the move played.
func referee(t *testing.T, g *rules.Game, a answer) rules.Move {
	t.Helper()
	p := g.Position()
	if !strings.HasPrefix(a.str, "depth ") {
		t.Errorf("%s: str %q, want a search line", p.FEN(), a.str)
	}
	var played []rules.Move
	for _, m := range p.Legal(nil) {
		if refBoard(p.Play(m)) == a.board {
			played = append(played, m)
		}
	}
	if len(played) != 1 {
		t.Fatalf("%s: the board returned is the position after %d legal moves (%v), want 1:\n%v", p.FEN(), len(played), played, a.board)
	}
	m := played[0]
	checkMove(t, p, m, a.move)
	if err := g.Play(m); err != nil {
		t.Fatal(err)
	}
	o := g.Outcome()
	switch {
	case o.Result == rules.Draw && a.result != ResultDraw:
		t.Errorf("%s %s: the game is drawn (%s), getmove returned %d, want %d", p.FEN(), m, o.Reason, a.result, ResultDraw)
	case o.Over() && o.Result != rules.Draw && a.result != ResultWin:
		t.Errorf("%s %s: the move wins (%s), getmove returned %d, want %d", p.FEN(), m, o.Reason, a.result, ResultWin)
	case a.result < ResultDraw || a.result > ResultUnknown:
		t.Errorf("%s %s: result %d", p.FEN(), m, a.result)
	}
	return m
}

// checkMove checks that cm describes m, a move of p, by this test's own
// arithmetic: squares, pieces, the path and the captured pieces in order.
func checkMove(t *testing.T, p rules.Position, m rules.Move, cm Move) {
	t.Helper()
	b, after := refBoard(p), refBoard(p.Play(m))
	path := m.Path()
	w := Move{Jumps: int32(m.NumCaptured()), From: c(int(m.From())), To: c(int(m.To())),
		OldPiece: b[c(int(m.From())).X][c(int(m.From())).Y], NewPiece: after[c(int(m.To())).X][c(int(m.To())).Y]}
	for i, s := range m.CapturedInOrder() {
		w.Del[i] = c(int(s))
		w.DelPiece[i] = b[c(int(s)).X][c(int(s)).Y]
	}
	got := cm
	for i := 1; i < len(path)-1; i++ {
		w.Path[i] = c(int(path[i]))
	}
	// Path[0] and Path[Jumps] are not CheckerBoard's: compare the rest.
	got.Path[0], w.Path[0] = Coor{}, Coor{}
	if n := max(m.NumCaptured(), 1); n < MaxPath {
		got.Path[n], w.Path[n] = Coor{}, Coor{}
	}
	if got != w {
		t.Errorf("%s %s: CBmove\n got %+v\nwant %+v", p.FEN(), m, cm, w)
	}
	checkApply(t, p, m, cm)
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
		for info := InfoResetMoves; !g.Outcome().Over() && g.Ply() < maxPlies; info = 0 {
			p := g.Position()
			if vsRandom && p.Side() == randomSide {
				ms := g.Legal(nil)
				g.PlayUnchecked(ms[r.IntN(len(ms))])
				continue
			}
			if clocked {
				// Units of 10 ms (info bits 2-3 = 2): left and increment.
				mi := int(min(left/(10*time.Millisecond), 0xffff))<<16 | int(inc/(10*time.Millisecond))
				a := h.getmove(t, refBoard(p), ColorValue(p.Side()), 1, info|2<<2, mi, -1)
				referee(t, g, a)
				st.clocked = append(st.clocked, a.elapsed)
				left = max(left-a.elapsed, 0) + inc
				if left == inc {
					t.Errorf("game %d ply %d: the engine used all its clock (%v for the move)", game, g.Ply(), a.elapsed)
				}
			} else {
				a := h.getmove(t, refBoard(p), ColorValue(p.Side()), maxtime, info, 0, -1)
				referee(t, g, a)
				st.perMaxtime[maxtime] = append(st.perMaxtime[maxtime], a.elapsed)
				// Generous: a loaded machine, a GUI that says "don't exceed it too much".
				if limit := 20*time.Duration(maxtime*float64(time.Second)) + 5*time.Second; a.elapsed > limit {
					t.Errorf("game %d ply %d: %v for a move of maxtime %gs", game, g.Ply(), a.elapsed, maxtime)
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
		a := h.getmove(t, refBoard(p), ColorValue(p.Side()), 60, InfoResetMoves*b2i(i == 0), 0, 100*time.Millisecond)
		referee(t, g, a)
		st.moves++
		if a.latency < 0 || a.elapsed > 30*time.Second {
			t.Errorf("playnow set after 100ms: getmove took %v (latency %v)", a.elapsed, a.latency)
		}
		st.latencies = append(st.latencies, a.latency)
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
		t.Logf("%s: maxtime %gs: %s", what, k, spread(st.perMaxtime[k]))
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
		h.send(t, "islegal %d %d %d%s", White, c.from, c.to, boardText(refBoard(p)))
		f := strings.Fields(h.line(t))
		if f[0] != "legal" || f[1] != strconv.Itoa(c.r) {
			t.Errorf("islegal %d-%d: %v, want %d", c.from, c.to, f[:2], c.r)
			continue
		}
		if c.r == 1 {
			m, _ := rules.ParseMove(p, "31x22x13x6")
			checkMove(t, p, m, readMove(t, f[2:]))
		}
	}
	// A board that is no position: the board comes back as it was.
	b := refBoard(rules.Start())
	b[1][0] = White | Man
	a := h.getmove(t, b, White, 0.05, InfoResetMoves, 0, -1)
	if a.result != ResultUnknown || a.board != b || !strings.Contains(a.str, "board[1][0] = 5 on a square not played on") || a.move != (Move{}) {
		t.Errorf("a bad board: result %d, str %q, board changed %v, move %+v", a.result, a.str, a.board != b, a.move)
	}
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
	build(t, nil, cc, "-O2", "-Wall", "-o", bin, "cmd/dama-cb/harness/harness.c", "-ldl", "-lpthread")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	h := startHarness(t, ctx, nil, bin, lib)
	checkCommands(t, h)
	playGames(t, h, 3).report(t, "libdama-cb.so")
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
	build(t, nil, mingw, "-O2", "-Wall", "-o", exe, "cmd/dama-cb/harness/harness.c")
	// Wine 8 lacks bcryptprimitives.dll, which the Go runtime loads from
	// system32: a stand-in goes into the test's own Wine prefix.
	prefix := filepath.Join(dir, "wine")
	env := []string{"WINEPREFIX=" + prefix, "WINEDEBUG=-all"}
	build(t, env, wine, "wineboot", "-i")
	build(t, nil, mingw, "-O2", "-shared", "-o", filepath.Join(prefix, "drive_c", "windows", "system32", "bcryptprimitives.dll"),
		"cmd/dama-cb/harness/bcryptprimitives.c", "-ladvapi32")
	// The prefix is removed once Wine's server, which outlives the
	// harness a few seconds, has stopped.
	t.Cleanup(func() { stopWineServer(env) })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	h := startHarness(t, ctx, env, wine, exe, dll)
	checkCommands(t, h)
	playGames(t, h, 3).report(t, "dama-cb.dll under wine")
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
