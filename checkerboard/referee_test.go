package checkerboard

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"dama/rules"
)

// Every legal move of random games passes the referee with its CBmove.
func TestCheckAccepts(t *testing.T) {
	for _, p := range randomPositions(rand.New(rand.NewPCG(5, 6)), 10) {
		for _, m := range p.Legal(nil) {
			got, err := Check(p, BoardOf(p.Play(m)), MoveOf(p, m))
			if err != nil || got != m {
				t.Fatalf("%s %s: Check = %s, %v", p.FEN(), m, got, err)
			}
		}
	}
}

// Each kind of wrong answer is refused, saying what is wrong.
func TestCheckRefuses(t *testing.T) {
	p, _ := rules.ParseFEN("W:WK21,31:B10,18,27")
	m, _ := rules.ParseMove(p, "31x22x13x6")
	good, after := MoveOf(p, m), BoardOf(p.Play(m))
	for _, c := range []struct {
		name  string
		board func(b *Board)
		move  func(m *Move)
		want  string
	}{
		{"the position as it was", func(b *Board) { *b = BoardOf(p) }, nil, "after 0 legal moves"},
		{"a piece too many", func(b *Board) { b[0][0] = Black | Man }, nil, "after 0 legal moves"},
		{"jumps", nil, func(m *Move) { m.Jumps = 2 }, "has 2 jumps"},
		{"from", nil, func(m *Move) { m.From = Coor{4, 4} }, "goes from"},
		{"newpiece", nil, func(m *Move) { m.NewPiece = White | King }, "lands 9"},
		{"oldpiece", nil, func(m *Move) { m.OldPiece = White | King }, "moves piece 9"},
		{"delpiece", nil, func(m *Move) { m.DelPiece[1] = Black | King }, "delpiece[1] = 10"},
		{"del order", nil, func(m *Move) {
			m.Del[0], m.Del[1] = m.Del[1], m.Del[0]
			m.DelPiece[0], m.DelPiece[1] = m.DelPiece[1], m.DelPiece[0]
		}, "not over del[0]"},
		{"del twice", nil, func(m *Move) { m.Del[1] = m.Del[0] }, "twice"},
		{"path", nil, func(m *Move) { m.Path[1] = Coor{1, 5} }, "not over del[0]"},
	} {
		b, mv := after, good
		if c.board != nil {
			c.board(&b)
		}
		if c.move != nil {
			c.move(&mv)
		}
		_, err := Check(p, b, mv)
		if !errors.Is(err, ErrAnswer) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want ErrAnswer with %q", c.name, err, c.want)
		}
	}
	// A step that is no step.
	q, _ := rules.ParseFEN("W:W22:B1")
	s, _ := rules.ParseMove(q, "22-18")
	mv := MoveOf(q, s)
	mv.Jumps, mv.Del[0] = 0, Coor{}
	if _, err := Check(q, BoardOf(q.Play(s)), mv); err != nil {
		t.Errorf("22-18: %v", err)
	}
}
