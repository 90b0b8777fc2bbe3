package tb

import (
	"math/rand/v2"
	"testing"

	"dama/rules"
)

// TestIndexRoundTrip unranks every index of a few signatures and ranks the
// positions back, for White to move and as the flip with Black to move.
func TestIndexRoundTrip(t *testing.T) {
	for _, m := range []Material{{0, 1, 0, 1}, {1, 0, 0, 1}, {1, 1, 1, 0}, {0, 2, 1, 0}, {2, 0, 1, 0}} {
		holes := 0
		for i := int64(0); i < m.Size(); i++ {
			p, ok := unindex(m, i)
			if !ok {
				holes++
				continue
			}
			if err := rules.CheckPieces(p); err != nil {
				t.Fatalf("%s index %d: %s: %v", m, i, p.FEN(), err)
			}
			for _, q := range []rules.Position{p, p.Flip()} {
				s := sidesOf(q)
				if got := s.material(); got != m {
					t.Fatalf("%s index %d: %s has material %s", m, i, q.FEN(), got)
				}
				if got := s.index(m); got != i {
					t.Fatalf("%s: %s ranks to %d, want %d", m, q.FEN(), got, i)
				}
			}
		}
		if m.Men > 0 && m.OppMen > 0 && holes == 0 {
			t.Errorf("%s: no holes, want some (men of both sides on one square)", m)
		}
	}
}

// TestIndexRandom ranks random positions of 5 pieces and unranks them back.
func TestIndexRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 20000; n++ {
		var board [rules.NumSquares]rules.Piece
		for placed := 0; placed < 5; {
			s := r.IntN(32)
			pc := rules.Piece(1 + r.IntN(4))
			if board[s] != rules.Empty || (pc == rules.WhiteMan && s < 4) || (pc == rules.BlackMan && s >= 28) {
				continue
			}
			board[s] = pc
			placed++
		}
		p := rules.NewPosition(board, rules.Color(r.IntN(2)))
		s := sidesOf(p)
		m := s.material()
		if !m.valid() {
			continue
		}
		i := s.index(m)
		if i < 0 || i >= m.Size() {
			t.Fatalf("%s: index %d outside [0,%d)", p.FEN(), i, m.Size())
		}
		q, ok := unindex(m, i)
		if !ok || sidesOf(q) != s {
			t.Fatalf("%s: index %d unranks to %s", p.FEN(), i, q.FEN())
		}
	}
}
