package suite

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"dama/rules"
	"dama/tb"
	"dama/tb/tbtest"
)

// TestTableProof: the proof search with the 2-piece tables at its leaves
// proves wins and losses of 3-piece positions, and each one is a win or a
// loss by the 3-piece tables (exact), which it does not see.
func TestTableProof(t *testing.T) {
	_, leaves := tbtest.Tables(t, 2)
	_, truth := tbtest.Tables(t, 3)
	rng := rand.New(rand.NewPCG(3, 5))
	tp := tableProof{t: leaves}
	won, lost, tried := 0, 0, 0
	for tried < 400 {
		pos, ok := randomThree(rng)
		if !ok || !pos.HasMoves() {
			continue
		}
		tried++
		e, err := truth.Probe(pos)
		if err != nil {
			t.Fatal(err)
		}
		want := e.Under(0)
		if tp.proves(pos, 0, 9, 1<<16, tb.Win) {
			won++
			if want != tb.Win {
				t.Errorf("%s: proven won, a %v by the tables", pos.FEN(), want)
			}
		}
		if tp.proves(pos, 0, 9, 1<<16, tb.Loss) {
			lost++
			if want != tb.Loss {
				t.Errorf("%s: proven lost, a %v by the tables", pos.FEN(), want)
			}
		}
	}
	t.Logf("tried %d won %d lost %d", tried, won, lost)
	if won < 20 || lost < 20 {
		t.Errorf("of %d positions %d proven won and %d lost: the test shows little", tried, won, lost)
	}
	// A position on the line a third time is a draw, whatever the tables
	// say of it.
	p3, _ := rules.ParseFEN("W:WK1,K6:BK32")
	other, _ := rules.ParseFEN("B:WK1,K6:BK32")
	tp.line = []rules.Position{p3, other, p3, other, p3}
	if v, ok := tp.settled(p3, 4); !ok || v != tb.Draw {
		t.Errorf("a third repetition: %v %v, want a draw", v, ok)
	}
	tp.line = tp.line[:4]
	if v, ok := tp.settled(p3, 4); ok {
		t.Errorf("a second occurrence of three pieces, tables of two: settled as a %v", v)
	}
	// Without a node left, nothing beyond the leaves is proven.
	for {
		pos, ok := randomThree(rng)
		if !ok || !pos.HasMoves() {
			continue
		}
		if tp.proves(pos, 0, 9, 0, tb.Win) || tp.proves(pos, 0, 9, 0, tb.Loss) {
			t.Errorf("%s: proven with no nodes", pos.FEN())
		}
		break
	}
}

// randomThree returns a random position of three pieces, two of the side
// to move's colour or one (ok false where the squares clash or a man
// stands on its promotion row).
func randomThree(rng *rand.Rand) (rules.Position, bool) {
	sq := rng.Perm(32)[:3]
	piece := func(s int, white bool) string {
		n := s + 1
		if rng.IntN(2) == 0 || (white && n <= 4) || (!white && n >= 29) {
			return fmt.Sprintf("K%d", n)
		}
		return fmt.Sprint(n)
	}
	side := "W"
	if rng.IntN(2) == 0 {
		side = "B"
	}
	var fen string
	if rng.IntN(2) == 0 {
		fen = fmt.Sprintf("%s:W%s,%s:B%s", side, piece(sq[0], true), piece(sq[1], true), piece(sq[2], false))
	} else {
		fen = fmt.Sprintf("%s:W%s:B%s,%s", side, piece(sq[0], true), piece(sq[1], false), piece(sq[2], false))
	}
	pos, err := rules.ParseFEN(fen)
	return pos, err == nil
}
