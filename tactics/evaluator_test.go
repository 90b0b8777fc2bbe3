package tactics

import (
	"context"
	"math"
	"testing"

	"dama/internal/evaltest"
	"dama/mcts"
	"dama/rules"
)

func evaluate(t *testing.T, ev mcts.Evaluator, p rules.Position) mcts.Evaluation {
	t.Helper()
	q := mcts.Query{Pos: p, Legal: p.Legal(nil)}
	e := mcts.Evaluation{Priors: make([]float32, len(q.Legal))}
	if err := ev.Evaluate(context.Background(), q, &e); err != nil {
		t.Fatal(err)
	}
	return e
}

// TestShiftWDL: no shift changes nothing, a shift moves W-L to
// tanh(atanh(W-L)+shift), and the result stays three probabilities.
func TestShiftWDL(t *testing.T) {
	for _, wdl := range [][3]float32{{0.3, 0.5, 0.2}, {0, 1, 0}, {0.9, 0.1, 0}, {0.05, 0.15, 0.8}, {1, 0, 0}} {
		same := ShiftWDL(wdl, 0)
		for i := range same {
			if math.Abs(float64(same[i]-wdl[i])) > 1e-3 && wdl[0] < 1 {
				t.Errorf("%v shifted by 0: %v", wdl, same)
			}
		}
		for _, sh := range []float64{-2, -0.8, 0.8, 2} {
			got := ShiftWDL(wdl, sh)
			sum := got[0] + got[1] + got[2]
			if math.Abs(float64(sum)-1) > 1e-5 || got[0] < 0 || got[1] < 0 || got[2] < 0 {
				t.Fatalf("%v shifted by %v: %v, not probabilities", wdl, sh, got)
			}
			v := math.Min(math.Max(float64(wdl[0]-wdl[2]), -0.999), 0.999)
			want := math.Tanh(math.Atanh(v) + sh)
			if d := float64(got[0]-got[2]) - want; math.Abs(d) > 1e-4 {
				t.Errorf("%v shifted by %v: W-L %v, want %v", wdl, sh, got[0]-got[2], want)
			}
		}
	}
}

// TestCombinationsGain: the gain is the depth-D material search's balance
// less the quiescence's (the reference minimax), capped, and the value
// moves only where it is at least a man; the priors are the inner
// evaluator's.
func TestCombinationsGain(t *testing.T) {
	c, err := NewCombinations(evaltest.Draw, 3)
	if err != nil {
		t.Fatal(err)
	}
	moved := 0
	for _, g := range randomGames(10, 3) {
		for i := 10; i <= g.Ply(); i += 4 {
			p := g.PositionAt(i)
			if !p.HasMoves() {
				continue
			}
			r, b := minimax(p, 3, 0), minimax(p, 0, 0)
			want := min(max(r-b, -400), 400)
			if r >= winBound {
				want = 400
			} else if r <= -winBound {
				want = -400
			} else if b >= winBound || b <= -winBound {
				want = 0
			}
			if got := c.Gain(mcts.Query{Pos: p}); got != want {
				t.Fatalf("%s: gain %d, want %d", p.FEN(), got, want)
			}
			e := evaluate(t, c, p)
			v := e.WDL[0] - e.WDL[2]
			if (v != 0) != (want >= 100 || want <= -100) {
				t.Errorf("%s: gain %d, value %v", p.FEN(), want, v)
			}
			if v != 0 {
				moved++
				if (v > 0) != (want > 0) {
					t.Errorf("%s: gain %d moved the value to %v", p.FEN(), want, v)
				}
			}
			if e.Priors[0] != 1/float32(len(e.Priors)) {
				t.Errorf("%s: priors %v, not the inner evaluator's", p.FEN(), e.Priors)
			}
		}
	}
	if moved == 0 {
		t.Error("no value moved: the test shows nothing")
	}
}

// TestCombinationsWinIn3: a forced win within the depth moves a drawn
// value almost to a win.
func TestCombinationsWinIn3(t *testing.T) {
	c, err := NewCombinations(evaltest.Draw, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, pz := range evaltest.WinIn3 {
		p, err := rules.ParseFEN(pz.FEN)
		if err != nil {
			t.Fatal(err)
		}
		if e := evaluate(t, c, p); e.WDL[0]-e.WDL[2] < 0.99 {
			t.Errorf("%s: value %v, want a near win", pz.FEN, e.WDL)
		}
	}
}
