package tactics

import (
	"context"
	"math/rand/v2"
	"testing"

	"dama/arena/classic"
	"dama/rules"
)

// TestVerifier: on the project suite's first positions the verifier at
// the proving depth replaces the shallow search's move by the best one
// and keeps the best one; its counts say so.
func TestVerifier(t *testing.T) {
	s, err := ReadSuite(projectSuite)
	if err != nil {
		t.Fatal(err)
	}
	v, err := NewVerifier(s.ProvingDepth)
	if err != nil {
		t.Fatal(err)
	}
	const n = 6
	for i, p := range s.Positions[:n] {
		pos, best, err := p.Parsed()
		if err != nil {
			t.Fatal(err)
		}
		shallow, err := rules.ParseMove(pos, p.Shallow)
		if err != nil {
			t.Fatal(err)
		}
		g := rules.NewGame(pos)
		if m, err := v.CheckMove(context.Background(), g, shallow, 0); err != nil || m != best[0] {
			t.Errorf("position %d (%s): %s checked gives %s (%v), want %s", i+1, p.FEN, shallow, m, err, best[0])
		}
		if m, err := v.CheckMove(context.Background(), g, best[0], 0); err != nil || m != best[0] {
			t.Errorf("position %d (%s): the best move %s checked gives %s (%v)", i+1, p.FEN, best[0], m, err)
		}
	}
	if st := v.Stats(); st.Checked != 2*n || st.Replaced != n || st.Nodes == 0 || st.MeanDepth < 1 {
		t.Errorf("stats %+v, want %d checked, %d replaced", st, 2*n, n)
	}
}

// Quiet is what its comment says, checked against the move generator on
// the positions of random games: no move of the side to move captures, no
// reply to any of its moves does, and the other side, were it to move,
// could not capture either.
func TestQuiet(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 0))
	var quiet, near int
	for game := 0; game < 60; game++ {
		g := rules.NewGame(rules.Start())
		for !g.Outcome().Over() && g.Ply() < 200 {
			p := g.Position()
			moves := p.Legal(nil)
			want := true
			for _, m := range moves {
				if m.IsCapture() {
					want = false
				}
				for _, r := range p.Play(m).Legal(nil) {
					if r.IsCapture() {
						want = false
					}
				}
			}
			if want {
				// The other side to move: the same pieces, the other
				// colour's turn.
				other, err := rules.ParseFEN(otherSide(p.FEN()))
				if err != nil {
					t.Fatal(err)
				}
				for _, m := range other.Legal(nil) {
					if m.IsCapture() {
						want = false
					}
				}
			}
			if got := Quiet(p); got != want {
				t.Fatalf("%s: Quiet %v, want %v", p.FEN(), got, want)
			}
			if want {
				quiet++
			} else {
				near++
			}
			g.PlayUnchecked(moves[rng.IntN(len(moves))])
		}
	}
	if quiet == 0 || near == 0 {
		t.Errorf("%d quiet positions and %d with a capture near: want both", quiet, near)
	}
}

// otherSide returns fen with the other side to move.
func otherSide(fen string) string {
	if fen[0] == 'W' {
		return "B" + fen[1:]
	}
	return "W" + fen[1:]
}

func TestVerifierShareAndDepth(t *testing.T) {
	v, err := NewVerifier(8)
	if err != nil {
		t.Fatal(err)
	}
	if got := v.TimeShare(rules.Start()); got != DefaultVerifyQuietShare {
		t.Errorf("start position (quiet): share %v, want the quiet share %v", got, DefaultVerifyQuietShare)
	}
	// The first position of a random game where a capture is near.
	rng := rand.New(rand.NewPCG(5, 0))
	g0 := rules.NewGame(rules.Start())
	for Quiet(g0.Position()) {
		moves := g0.Legal(nil)
		g0.PlayUnchecked(moves[rng.IntN(len(moves))])
	}
	if got := v.TimeShare(g0.Position()); got != DefaultVerifyShare {
		t.Errorf("%s (not quiet): share %v, want %v", g0.Position().FEN(), got, DefaultVerifyShare)
	}
	kings, err := rules.ParseFEN("W:WK6,21:B9,10")
	if err != nil {
		t.Fatal(err)
	}
	if got := v.TimeShare(kings); got != DefaultVerifyKingShare {
		t.Errorf("%s: share %v, want the king share %v", kings.FEN(), got, DefaultVerifyKingShare)
	}
	for _, d := range []int{0, -1, classic.MaxDepth + 1} {
		if _, err := NewVerifier(d); err == nil {
			t.Errorf("depth %d accepted", d)
		}
	}
	g := rules.NewGame(rules.Start())
	foreign, err := rules.ParseFEN("B:W9,K25:B2,K21,K22")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.CheckMove(context.Background(), g, foreign.Legal(nil)[0], 0); err == nil {
		t.Error("an illegal move was checked without an error")
	}
}
