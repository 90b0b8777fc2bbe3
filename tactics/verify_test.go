package tactics

import (
	"context"
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

func TestVerifierShareAndDepth(t *testing.T) {
	v, err := NewVerifier(8)
	if err != nil {
		t.Fatal(err)
	}
	if got := v.TimeShare(rules.Start()); got != DefaultVerifyShare {
		t.Errorf("start position: share %v, want %v", got, DefaultVerifyShare)
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
