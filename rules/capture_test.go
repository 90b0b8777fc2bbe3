package rules

import "testing"

// TestHasCapture checks HasCapture for both sides against Legal on positions
// from random games: for the side to move directly, for the other side on
// the same board with the turn passed.
func TestHasCapture(t *testing.T) {
	buf := make([]Move, 0, MaxMoves)
	for _, p := range benchPositions(3000) {
		for _, c := range []Color{White, Black} {
			q := p
			if q.side != c {
				q.side = c
				q.hash ^= zSide
			}
			ms := q.Legal(buf)
			want := len(ms) > 0 && ms[0].IsCapture()
			if got := p.HasCapture(c); got != want {
				t.Fatalf("%s: HasCapture(%s) = %v, want %v", p.FEN(), c, got, want)
			}
		}
	}
	p, err := ParseFEN("W:W22:B18")
	if err != nil {
		t.Fatal(err)
	}
	if !p.HasCapture(White) || !p.HasCapture(Black) {
		t.Errorf("W:W22:B18: each man can take the other")
	}
	p, _ = ParseFEN("W:W22:BK18,13")
	if p.HasCapture(White) {
		t.Errorf("W:W22:BK18,13: a man cannot take a king")
	}
}
