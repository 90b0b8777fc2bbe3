package checkerboard

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"dama/rules"
)

// c is the Coor of square s, worked out from CheckerBoard's formula by
// this test's own arithmetic.
func c(s int) Coor {
	y := (s - 1) / 4
	return Coor{int32(2*((s-1)%4) + y%2), int32(y)}
}

// want is a CBmove in squares.
type want struct {
	move       string // the move in FID notation, as rules parses it
	jumps      int
	oldp, newp int32
	from, to   int
	between    []int // Path[1..jumps-1]
	del        []int
	delp       []int32
}

func (w want) cb() Move {
	m := Move{Jumps: int32(w.jumps), OldPiece: w.oldp, NewPiece: w.newp, From: c(w.from), To: c(w.to)}
	for i, s := range w.between {
		m.Path[i+1] = c(s)
	}
	for i, s := range w.del {
		m.Del[i] = c(s)
		m.DelPiece[i] = w.delp[i]
	}
	return m
}

func TestMoveOf(t *testing.T) {
	const (
		wm = White | Man
		wk = White | King
		bm = Black | Man
		bk = Black | King
	)
	for _, tc := range []struct {
		fen string
		w   want
	}{
		// Steps from each corner of the board and beside it.
		{"W:W22:B1", want{move: "22-18", oldp: wm, newp: wm, from: 22, to: 18}},
		{"W:WK1:B28", want{move: "1-5", oldp: wk, newp: wk, from: 1, to: 5}},
		{"B:WK1:BK32", want{move: "32-28", oldp: bk, newp: bk, from: 32, to: 28}},
		{"B:W29:B4", want{move: "4-8", oldp: bm, newp: bm, from: 4, to: 8}},
		{"W:W29:B4", want{move: "29-25", oldp: wm, newp: wm, from: 29, to: 25}},
		// Promotion by a step, each side.
		{"W:W5:B28", want{move: "5-1", oldp: wm, newp: wk, from: 5, to: 1}},
		{"B:W5:B28", want{move: "28-32", oldp: bm, newp: bk, from: 28, to: 32}},
		// A man takes one man; black takes towards higher numbers.
		{"W:W22:B18,1", want{move: "22x13", jumps: 1, oldp: wm, newp: wm, from: 22, to: 13, del: []int{18}, delp: []int32{bm}}},
		{"B:W15,32:B11", want{move: "11x20", jumps: 1, oldp: bm, newp: bm, from: 11, to: 20, del: []int{15}, delp: []int32{wm}}},
		// The man takes three (FID: most pieces before a king capturing).
		{"W:WK21,31:B10,18,27", want{move: "31x22x13x6", jumps: 3, oldp: wm, newp: wm, from: 31, to: 6,
			between: []int{22, 13}, del: []int{27, 18, 10}, delp: []int32{bm, bm, bm}}},
		// Promotion by a capture, which ends the move.
		{"W:W10:B6,1", want{move: "10x3", jumps: 1, oldp: wm, newp: wk, from: 10, to: 3, del: []int{6}, delp: []int32{bm}}},
		// A white king takes a king then a man, backwards.
		{"W:WK10:BK14,23,1", want{move: "10x19x28", jumps: 2, oldp: wk, newp: wk, from: 10, to: 28,
			between: []int{19}, del: []int{14, 23}, delp: []int32{bk, bm}}},
		// A black king takes from the corner square 32.
		{"B:W28,19,5:BK32", want{move: "32x23x14", jumps: 2, oldp: bk, newp: bk, from: 32, to: 14,
			between: []int{23}, del: []int{28, 19}, delp: []int32{wm, wm}}},
		// A black king from square 1 takes a king.
		{"B:WK5,32:BK1", want{move: "1x10", jumps: 1, oldp: bk, newp: bk, from: 1, to: 10, del: []int{5}, delp: []int32{wk}}},
	} {
		p, err := rules.ParseFEN(tc.fen)
		if err != nil {
			t.Fatalf("%s: %v", tc.fen, err)
		}
		m, err := rules.ParseMove(p, tc.w.move)
		if err != nil {
			t.Fatalf("%s %s: %v", tc.fen, tc.w.move, err)
		}
		got, w := MoveOf(p, m), tc.w.cb()
		// Path[0] and Path[Jumps] (Path[1] of a step) are From and To.
		w.Path[0] = w.From
		w.Path[max(w.Jumps, 1)] = w.To
		if got != w {
			t.Errorf("%s %s:\n got %+v\nwant %+v", tc.fen, tc.w.move, got, w)
		}
		checkApply(t, p, m, got)
	}
}

// checkApply checks that a CBmove done on the board of p, as CheckerBoard
// does it, gives the board after m, and that its path is a chain of
// jumps over the captured squares.
func checkApply(t *testing.T, p rules.Position, m rules.Move, cm Move) {
	t.Helper()
	b := BoardOf(p)
	if b[cm.From.X][cm.From.Y] != cm.OldPiece {
		t.Errorf("%s %s: oldpiece %d, board has %d at from", p.FEN(), m, cm.OldPiece, b[cm.From.X][cm.From.Y])
	}
	b[cm.From.X][cm.From.Y] = Free
	for i := range cm.Jumps {
		d := cm.Del[i]
		if b[d.X][d.Y] != cm.DelPiece[i] {
			t.Errorf("%s %s: delpiece[%d] %d, board has %d", p.FEN(), m, i, cm.DelPiece[i], b[d.X][d.Y])
		}
		b[d.X][d.Y] = Free
		// The jump from the square before over d lands on the next.
		prev, next := cm.From, cm.To
		if i > 0 {
			prev = cm.Path[i]
		}
		if i < cm.Jumps-1 {
			next = cm.Path[i+1]
		}
		if prev.X+next.X != 2*d.X || prev.Y+next.Y != 2*d.Y || abs(prev.X-next.X) != 2 || abs(prev.Y-next.Y) != 2 {
			t.Errorf("%s %s: jump %d from %v to %v is not over %v", p.FEN(), m, i, prev, next, d)
		}
	}
	b[cm.To.X][cm.To.Y] = cm.NewPiece
	if want := BoardOf(p.Play(m)); b != want {
		t.Errorf("%s %s: the CBmove done gives\n%v\nwant\n%v", p.FEN(), m, b, want)
	}
	if cm.Jumps == 0 && (abs(cm.From.X-cm.To.X) != 1 || abs(cm.From.Y-cm.To.Y) != 1) {
		t.Errorf("%s %s: a step from %v to %v", p.FEN(), m, cm.From, cm.To)
	}
}

func abs(x int32) int32 {
	if x < 0 {
		return -x
	}
	return x
}

// Every legal move of the positions of random games, done as its CBmove
// says, gives the position after it.
func TestMoveOfRandomGames(t *testing.T) {
	n, caps := 0, 0
	for _, p := range randomPositions(rand.New(rand.NewPCG(3, 4)), 30) {
		for _, m := range p.Legal(nil) {
			checkApply(t, p, m, MoveOf(p, m))
			n++
			if m.IsCapture() {
				caps++
			}
		}
	}
	if caps == 0 {
		t.Fatal("no capture met")
	}
	t.Logf("%d moves, %d captures", n, caps)
}

func TestMoveString(t *testing.T) {
	p, _ := rules.ParseFEN("W:WK21,31:B10,18,27")
	m, _ := rules.ParseMove(p, "31x22x13x6")
	if got, want := MoveOf(p, m).String(), "31x22x13x6 (del 27,18,10)"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	p, _ = rules.ParseFEN("W:W22:B1")
	m, _ = rules.ParseMove(p, "22-18")
	if got := fmt.Sprint(MoveOf(p, m)); got != "22-18" {
		t.Errorf("String() = %q, want 22-18", got)
	}
}
