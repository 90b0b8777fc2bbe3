package classic

import (
	"math/rand/v2"
	"testing"

	"dama/internal/evaltest"
	"dama/rules"
)

// only returns weights with material and the one term set by f.
func only(f func(*Weights)) *Weights {
	w := &Weights{Man: 100, King: 150}
	f(w)
	return w
}

func evalFEN(t *testing.T, w *Weights, fen string) int {
	t.Helper()
	return w.Evaluate(evaltest.Position(t, fen))
}

// TestEvalTerms checks each term's sign on positions that differ in that
// term only: better is scored higher than worse for the side to move.
func TestEvalTerms(t *testing.T) {
	cases := []struct {
		term          string
		w             *Weights
		better, worse string
	}{
		{"material: a man up", only(func(*Weights) {}), "W:W21,22:B1", "W:W21:B1,2"},
		{"material: a king beats a man", only(func(*Weights) {}), "W:WK21:B3", "W:W21:BK3"},
		{"advancement", only(func(w *Weights) { w.AdvanceMid, w.AdvanceEnd = 2, 6 }), "W:W13:B4", "W:W25:B4"},
		{"back rank", only(func(w *Weights) { w.BackRank = 8 }), "W:W30,21-27:B1-8", "W:W28,21-27:B1-8"},
		{"centre man", only(func(w *Weights) { w.CentreMan = 5 }), "W:W18:B4", "W:W21:B4"},
		{"centre king", only(func(w *Weights) { w.CentreKing = 8 }), "W:WK18:B4", "W:WK21:B4"},
		{"king mobility", only(func(w *Weights) { w.KingMobility = 3 }), "W:WK18:B1", "W:WK29:B1"},
		{"king mobility blocked", only(func(w *Weights) { w.KingMobility = 3 }), "W:WK29:B1", "W:WK29,25,26:B1,2,3"},
		{"runaway man", only(func(w *Weights) { w.Runaway = 50 }), "W:W9,K32:B13", "W:W9,K32:B5"},
		{"runaway near promotion", only(func(w *Weights) { w.Runaway = 50 }), "W:W5:B28", "W:W25:B28"},
		{"trade down when ahead", only(func(w *Weights) { w.Trade = 4 }), "W:W21,22:B1", "W:W21-26:B1-5"},
		{"drive the lone king to the edge", only(func(w *Weights) { w.Corner = 6; w.KingMobility = 0 }), "W:WK18,K19:BK1", "W:WK1,K2:BK18"},
	}
	for _, c := range cases {
		b, w := evalFEN(t, c.w, c.better), evalFEN(t, c.w, c.worse)
		if b <= w {
			t.Errorf("%s: %s scores %d, not above %s at %d", c.term, c.better, b, c.worse, w)
		}
	}
}

// TestEvalPhaseAndKings checks the terms that scale rather than order:
// advancement counts more with fewer pieces, and a man facing a king is no
// runaway.
func TestEvalPhaseAndKings(t *testing.T) {
	w := only(func(w *Weights) { w.AdvanceMid, w.AdvanceEnd = 2, 6 })
	end := evalFEN(t, w, "W:W13:B4") - evalFEN(t, w, "W:W25:B4")
	mid := evalFEN(t, w, "W:W13,26-32:B1-8") - evalFEN(t, w, "W:W25,26-32:B1-8")
	if end <= mid || mid <= 0 {
		t.Errorf("advancing a man 3 rows: +%d in the ending, +%d with 16 pieces; want more in the ending, both positive", end, mid)
	}
	run := only(func(w *Weights) { w.Runaway = 50 })
	mat := only(func(*Weights) {})
	if a, b := evalFEN(t, run, "W:W5:BK28"), evalFEN(t, mat, "W:W5:BK28"); a != b {
		t.Errorf("a man against a king: runaway term gives %d, want %d (no bonus)", a, b)
	}
	if a, b := evalFEN(t, run, "W:W5:B28"), evalFEN(t, mat, "W:W5:B28"); a != b {
		t.Errorf("two runaway men, White's 1 row from the end, Black's too: %d, want %d (they cancel)", a, b)
	}
}

// TestEvalDrawishEndings: equal king endings are scaled towards 0.
func TestEvalDrawishEndings(t *testing.T) {
	w := DefaultWeights
	// One king each: whatever the placement, a dead draw.
	one := evalFEN(t, &w, "W:WK18:BK1")
	if raw := w.positional(&sides{kings: [2]uint32{bit(18), bit(1)}}, rules.White, 2) - w.positional(&sides{kings: [2]uint32{bit(18), bit(1)}}, rules.Black, 2); abs(one) >= abs(raw) || abs(one) > 2 {
		t.Errorf("1 king against 1: score %d, want near 0 (unscaled %d)", one, raw)
	}
	if two := evalFEN(t, &w, "W:WK18,K19:BK1"); two < w.King {
		t.Errorf("2 kings against 1: score %d, want at least a king (%d)", two, w.King)
	}
}

// TestEvalSymmetric: a position and its mirror (colours swapped, board
// turned) score the same for the side to move.
func TestEvalSymmetric(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	buf := make([]rules.Move, 0, rules.MaxMoves)
	for game := 0; game < 40; game++ {
		p := rules.Start()
		for ply := 0; ply < 150; ply++ {
			ms := p.Legal(buf)
			if len(ms) == 0 {
				break
			}
			if a, b := DefaultWeights.Evaluate(p), DefaultWeights.Evaluate(p.Flip()); a != b {
				t.Fatalf("%s scores %d, its mirror %s %d", p.FEN(), a, p.Flip().FEN(), b)
			}
			p = p.Play(ms[rng.IntN(len(ms))])
		}
	}
}
