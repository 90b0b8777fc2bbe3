package cbengine

import (
	"math"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"dama/checkerboard"
	"dama/engine"
	"dama/rules"
)

func TestLimits(t *testing.T) {
	u := uint32(60000) << 16
	past32767 := int(int32(u)) // as a C int holds it: negative
	for _, c := range []struct {
		name                  string
		maxtime               float64
		info, moreinfo, visit int
		want                  engine.Limits
	}{
		{"maxtime", 1.5, 0, 0, 0, engine.Limits{Time: 1500 * time.Millisecond}},
		{"exact time", 2, checkerboard.InfoExactTime, 0, 0, engine.Limits{Time: 2 * time.Second, WholeTime: true}},
		{"reset bit alone", 0.25, checkerboard.InfoResetMoves, 0, 0, engine.Limits{Time: 250 * time.Millisecond}},
		{"visits too", 1, 0, 0, 300, engine.Limits{Visits: 300, Time: time.Second}},
		{"no time", 0, 0, 0, 0, engine.Limits{}},
		{"negative", -1, 0, 0, 0, engine.Limits{}},
		{"NaN", math.NaN(), 0, 0, 0, engine.Limits{}},
		{"infinite", math.Inf(1), 0, 0, 0, engine.Limits{}},
		{"clock in ms", 9, 1 << 2, 5000<<16 | 100, 0, engine.Limits{Left: 5 * time.Second, Inc: 100 * time.Millisecond}},
		{"clock in 10 ms", 9, 2 << 2, 300<<16 | 5, 0, engine.Limits{Left: 3 * time.Second, Inc: 50 * time.Millisecond}},
		{"clock in 100 ms", 9, 3<<2 | checkerboard.InfoResetMoves, 600<<16 | 20, 0, engine.Limits{Left: time.Minute, Inc: 2 * time.Second}},
		// moreinfo's upper half is unsigned: 60000 units is not negative.
		{"clock past 32767", 9, 1 << 2, past32767, 0, engine.Limits{Left: time.Minute}},
		{"clock fallen", 9, 1 << 2, 0, 0, engine.Limits{Left: time.Millisecond}},
	} {
		if got := Limits(c.maxtime, c.info, c.moreinfo, c.visit); got != c.want {
			t.Errorf("%s: Limits(%g, %d, %#x, %d) = %+v, want %+v", c.name, c.maxtime, c.info, c.moreinfo, c.visit, got, c.want)
		}
	}
}

// fast returns an engine with the uniform evaluator at 20 visits a move.
func fast(t *testing.T) *Engine {
	t.Helper()
	e := New()
	for _, cmd := range []string{"set model random", "set visits 20"} {
		if r, ok := e.Command(cmd); !ok {
			t.Fatalf("%s: %s", cmd, r)
		}
	}
	t.Cleanup(e.Close)
	return e
}

func fen(t *testing.T, s string) rules.Position {
	t.Helper()
	p, err := rules.ParseFEN(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// move asks e for a move in p and checks that it is one.
func move(t *testing.T, e *Engine, p rules.Position, info int) (rules.Position, int, string) {
	t.Helper()
	b := checkerboard.BoardOf(p)
	var mv checkerboard.Move
	var line string
	r := e.GetMove(&b, checkerboard.ColorValue(p.Side()), 10, info, 0, nil, func(s string) { line = s }, &mv)
	m, err := checkerboard.Check(p, b, mv)
	if err != nil {
		t.Fatalf("getmove (%d, %q): %v", r, line, err)
	}
	return p.Play(m), r, line
}

func TestGetMoveFollowsTheGame(t *testing.T) {
	e := fast(t)
	p1, _, line := move(t, e, rules.Start(), checkerboard.InfoResetMoves)
	if !strings.Contains(line, "visits 20") || !strings.Contains(line, " pv ") {
		t.Errorf("search line %q, want its visits and pv", line)
	}
	if e.game.Ply() != 1 {
		t.Fatalf("after the first move the game has %d plies", e.game.Ply())
	}
	// The opponent replies: the engine follows.
	p2 := p1.Play(p1.Legal(nil)[0])
	move(t, e, p2, 0)
	if e.game.Ply() != 3 || e.game.PositionAt(0) != rules.Start() {
		t.Fatalf("after a reply the game has %d plies from %s", e.game.Ply(), e.game.Start().FEN())
	}
	// Moves taken back to the start: the game goes back with them.
	move(t, e, rules.Start(), 0)
	if e.game.Ply() != 1 {
		t.Errorf("after a take-back the game has %d plies, want 1", e.game.Ply())
	}
	// The same position again with CB_RESET_MOVES: a new game.
	move(t, e, rules.Start(), checkerboard.InfoResetMoves)
	if e.game.Ply() != 1 {
		t.Errorf("after a reset the game has %d plies, want 1", e.game.Ply())
	}
	// A position that follows nothing: a new game from it.
	p := fen(t, "W:W21,22,23:B10,11,12")
	move(t, e, p, 0)
	if e.game.Start() != p || e.game.Ply() != 1 {
		t.Errorf("after an unrelated position the game starts at %s with %d plies", e.game.Start().FEN(), e.game.Ply())
	}
}

// The game's history gives repetitions and the 40-move count: a
// position on the board for the third time is a draw, which getmove says.
func TestGetMoveKnowsRepetitions(t *testing.T) {
	e := fast(t)
	p0 := fen(t, "W:WK29:BK4")
	e.mu.Lock()
	e.follow(p0, true)
	p := p0
	for range 2 {
		for _, s := range []string{"29-25", "4-8", "25-29", "8-4"} {
			m, err := rules.ParseMove(p, s)
			if err != nil {
				t.Fatal(err)
			}
			p = p.Play(m)
			e.follow(p, false)
		}
	}
	ply, quiet, reps := e.game.Ply(), e.game.QuietPlies(), e.game.Repetitions()
	e.mu.Unlock()
	if ply != 8 || quiet != 8 || reps != 2 {
		t.Fatalf("after two rounds: %d plies, %d quiet, %d repetitions; want 8, 8, 2", ply, quiet, reps)
	}
	if _, r, _ := move(t, e, p0, 0); r != checkerboard.ResultDraw {
		t.Errorf("in a position drawn by repetition getmove returned %d, want %d", r, checkerboard.ResultDraw)
	}
	// Reset: the history is gone.
	move(t, e, p0, checkerboard.InfoResetMoves)
	if e.game.Ply() != 1 || e.game.Repetitions() != 0 {
		t.Errorf("after a reset: %d plies, %d repetitions", e.game.Ply(), e.game.Repetitions())
	}
}

func TestGetMoveResults(t *testing.T) {
	e := fast(t)
	// The move takes the last black piece: a win.
	if _, r, _ := move(t, e, fen(t, "W:W22:B18"), checkerboard.InfoResetMoves); r != checkerboard.ResultWin {
		t.Errorf("a winning capture: result %d, want %d", r, checkerboard.ResultWin)
	}
	// No legal move: a loss, the board as it was.
	for _, f := range []string{"B:W5,10:B1", "W:W5:B1,2"} {
		p := fen(t, f)
		b := checkerboard.BoardOf(p)
		var mv checkerboard.Move
		var line string
		if r := e.GetMove(&b, checkerboard.ColorValue(p.Side()), 1, 0, 0, nil, func(s string) { line = s }, &mv); r != checkerboard.ResultLoss || b != checkerboard.BoardOf(p) || mv != (checkerboard.Move{}) {
			t.Errorf("%s without a move: result %d, board changed %v, move %+v", p.FEN(), r, b != checkerboard.BoardOf(p), mv)
		}
		if !strings.Contains(line, "no legal move") {
			t.Errorf("%s: line %q", p.FEN(), line)
		}
	}
	// A bad board: unknown, the board as it was, a line that says why.
	b := checkerboard.BoardOf(rules.Start())
	b[0][0] = 12
	before := b
	var mv checkerboard.Move
	var line string
	if r := e.GetMove(&b, checkerboard.White, 1, 0, 0, nil, func(s string) { line = s }, &mv); r != checkerboard.ResultUnknown || b != before {
		t.Errorf("a bad board: result %d, changed %v", r, b != before)
	}
	if !strings.Contains(line, "board[0][0] (square 1) = 12") {
		t.Errorf("a bad board: line %q", line)
	}
	if r := e.GetMove(&b, 7, 1, 0, 0, nil, func(s string) { line = s }, &mv); r != checkerboard.ResultUnknown || !strings.Contains(line, "color 7") {
		t.Errorf("a bad colour: result %d, line %q", r, line)
	}
}

// playnow stops a search of an hour at once.
func TestGetMovePlayNow(t *testing.T) {
	e := fast(t)
	e.Command("set visits 0")
	b := checkerboard.BoardOf(rules.Start())
	var mv checkerboard.Move
	polls := 0
	start := time.Now()
	r := e.GetMove(&b, checkerboard.White, 3600, checkerboard.InfoResetMoves, 0, func() bool { polls++; return polls > 3 }, nil, &mv)
	// Generous: the test fails only if playnow was not heeded.
	if d := time.Since(start); d > time.Minute {
		t.Fatalf("playnow: getmove took %v", d)
	}
	if r != checkerboard.ResultUnknown || b == checkerboard.BoardOf(rules.Start()) || mv.From == mv.To {
		t.Errorf("playnow: result %d, move %+v", r, mv)
	}
}

// The shipped model plays as the engine does.
func TestGetMoveShipped(t *testing.T) {
	if testing.Short() {
		t.Skip("opens the shipped model (seconds): not with -short")
	}
	e := New()
	defer e.Close()
	e.Command("set visits 50")
	_, r, line := move(t, e, rules.Start(), checkerboard.InfoResetMoves)
	if r != checkerboard.ResultUnknown || !strings.Contains(line, "visits 50") {
		t.Errorf("result %d, line %q", r, line)
	}
	if !strings.Contains(e.about(), "shipped model (") {
		t.Errorf("about: %q", e.about())
	}
	// Threads and memory make a new searcher, not a new network.
	net := e.net
	e.Command("set threads 2")
	e.Command("set hashsize 32")
	move(t, e, rules.Start(), checkerboard.InfoResetMoves)
	if e.net != net {
		t.Error("set threads opened the network again")
	}
	if o := e.searcher; o == nil {
		t.Fatal("no searcher")
	}
	e.Command("set model random")
	move(t, e, rules.Start(), checkerboard.InfoResetMoves)
	if e.net == net || !strings.Contains(e.about(), "uniform evaluator") {
		t.Errorf("set model random: %q", e.about())
	}
}

func TestCommand(t *testing.T) {
	e := New()
	e.Version = "v1.2"
	for _, c := range []struct {
		cmd, reply string
		ok         bool
	}{
		{"name", "dama v1.2", true},
		{"get gametype", "22", true},
		{"GET GameType", "22", true},
		{"get protocolversion", "2", true},
		{"get hashsize", "", true}, // the default, checked below
		{"set hashsize 64", "hashsize 64", true},
		{"get hashsize", "64", true},
		{"set hashsize 0", "set hashsize 0: want an integer in 1..1048576", false},
		{"set hashsize lots", "set hashsize lots: want an integer in 1..1048576", false},
		{"get threads", "1", true},
		{"set threads 2", "threads 2", true},
		{"get threads", "2", true},
		{"set threads 257", "set threads 257: want an integer in 1..256", false},
		{"get visits", "0", true},
		{"set visits 400", "visits 400", true},
		{"get visits", "400", true},
		{"set visits -1", "set visits -1: want an integer in 0..1000000000", false},
		{"get tables", "none", true},
		{"set tables /no/such/folder", "set tables /no/such/folder:", false},
		{"set tables none", "tables none", true},
		{"get model", "shipped", true},
		{"set model /no/such.ckpt", "set model /no/such.ckpt:", false},
		{"get model", "shipped", true},
		{"set model Random", "model Random", true},
		{"get model", "random", true},
		{"get backend", "auto", true},
		{"set backend fp32", "backend fp32", true},
		{"get backend", "fp32", true},
		{"set backend gpu", "set backend gpu: want auto or one of", false},
		{"set backend auto", "backend auto", true},
		{"get backend", "auto", true},
		{"get book", "?", false},
		{"set book 1", "?", false},
		{"set threads", "set threads: no value", false},
		{"get", "?", false},
		{"get gametype now", "?", false},
		{"", "?", false},
		{"launch", "?", false},
	} {
		reply, ok := e.Command(c.cmd)
		if ok != c.ok || !strings.HasPrefix(reply, c.reply) {
			t.Errorf("Command(%q) = %q, %v; want %q..., %v", c.cmd, reply, ok, c.reply, c.ok)
		}
	}
	e2 := New()
	if reply, _ := e2.Command("get hashsize"); reply != strconv.Itoa(engine.TreeMB(0)) {
		t.Errorf("default hashsize %q, want %d", reply, engine.TreeMB(0))
	}
	if reply, _ := e2.Command("name"); reply != "dama dev" {
		t.Errorf("name without a version: %q", reply)
	}
	for _, cmd := range []string{"help", "about"} {
		if reply, ok := e.Command(cmd); !ok || len(reply) >= checkerboard.MaxReply || len(reply) < 100 {
			t.Errorf("%s: %d bytes (ok %v), want some, under %d: %q", cmd, len(reply), ok, checkerboard.MaxReply, reply)
		}
	}
}

func TestIsLegal(t *testing.T) {
	e := New()
	p := fen(t, "W:WK21,31:B10,18,27")
	b := checkerboard.BoardOf(p)
	var mv checkerboard.Move
	if !e.IsLegal(&b, checkerboard.White, 31, 6, &mv) {
		t.Fatal("31x6 not legal")
	}
	m, _ := rules.ParseMove(p, "31x22x13x6")
	if mv != checkerboard.MoveOf(p, m) {
		t.Errorf("31x6: %+v", mv)
	}
	for _, c := range [][2]int{{21, 17}, {31, 22}, {10, 14}, {0, 40}} {
		if e.IsLegal(&b, checkerboard.White, c[0], c[1], &mv) || mv != (checkerboard.Move{}) {
			t.Errorf("%d-%d legal (%+v)", c[0], c[1], mv)
		}
	}
	// The colour asked about is the side to move.
	if !e.IsLegal(&b, checkerboard.Black, 10, 14, &mv) || mv.OldPiece != checkerboard.Black|checkerboard.Man {
		t.Errorf("black 10-14 not legal: %+v", mv)
	}
	if b != checkerboard.BoardOf(p) {
		t.Error("islegal changed the board")
	}
}

// Commands are answered while a search runs, and apply from the next move.
func TestCommandDuringSearch(t *testing.T) {
	e := fast(t)
	e.Command("set visits 0")
	var stop atomic.Bool
	searching := make(chan struct{})
	done := make(chan int)
	go func() {
		b := checkerboard.BoardOf(rules.Start())
		var mv checkerboard.Move
		once := false
		done <- e.GetMove(&b, checkerboard.White, 3600, checkerboard.InfoResetMoves, 0, func() bool {
			if !once {
				once = true
				close(searching)
			}
			return stop.Load()
		}, nil, &mv)
	}()
	<-searching
	for _, cmd := range []string{"name", "about", "get hashsize", "set visits 30", "set threads 2", "help"} {
		if reply, ok := e.Command(cmd); !ok {
			t.Errorf("%s during a search: %q", cmd, reply)
		}
	}
	stop.Store(true)
	if r := <-done; r != checkerboard.ResultUnknown {
		t.Errorf("result %d", r)
	}
	if _, _, line := move(t, e, rules.Start(), checkerboard.InfoResetMoves); !strings.Contains(line, "visits 30") {
		t.Errorf("after set visits 30 during a search: %q", line)
	}
}
