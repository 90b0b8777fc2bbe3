package main

import (
	"testing"

	"dama/arena"
)

// TestPlainStrength: the card's sentence names the strongest rung scored
// at least even against (with enough games), the rung above it, and the
// search, forced moves passed included.
func TestPlainStrength(t *testing.T) {
	rung := func(name string, p arena.Pentanomial) arena.RungResult {
		return arena.RungResult{Rung: arena.Rung{Player: name}, Pairs: p}
	}
	lr := arena.LadderResult{Rungs: []arena.RungResult{
		rung("classic:5", arena.Pentanomial{0, 0, 1, 1, 8}),  // 10 pairs, 92.5%
		rung("classic:7", arena.Pentanomial{0, 1, 2, 1, 0}),  // 4 pairs, 50%: 8 games
		rung("classic:9", arena.Pentanomial{0, 0, 0, 0, 2}),  // 100%, but only 4 games
		rung("classic:11", arena.Pentanomial{1, 2, 1, 0, 0}), // 25%
	}}
	cases := []struct {
		l    shipLadder
		want string
	}{
		{shipLadder{Visits: 800}, "at 800 visits it scores 50% against classic:7 (8 games) and 100% against classic:9 (4 games)."},
		{shipLadder{Visits: 400, PassForced: true}, "at 400 visits (forced moves passed) it scores 50% against classic:7 (8 games) and 100% against classic:9 (4 games)."},
	}
	for _, c := range cases {
		if got := plainStrength(lr, &c.l); got != c.want {
			t.Errorf("plainStrength(%+v):\n got %q\nwant %q", c.l, got, c.want)
		}
	}
	lose := arena.LadderResult{Rungs: []arena.RungResult{rung("random", arena.Pentanomial{4, 0, 0, 0, 0})}}
	if got := plainStrength(lose, &shipLadder{Visits: 800}); got != "" {
		t.Errorf("no rung scored at least even, yet %q", got)
	}
}
