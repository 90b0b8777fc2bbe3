package mcts

import (
	"context"
	"slices"
	"testing"

	"dama/rules"
)

// Lines agrees with the Result of the same tree: the first line is the
// PV, each line's visits and Q are its root move's, most visited first,
// and every line is legal from the root.
func TestLines(t *testing.T) {
	g := game(t, rules.StartFEN)
	s := New(&materialEval{}, Options{})
	if l := s.Lines(3); l != nil {
		t.Fatalf("lines before any search: %v, want none", l)
	}
	res, err := s.Run(context.Background(), g, Limit{Visits: 400}, nil)
	if err != nil {
		t.Fatal(err)
	}
	all := s.Lines(0)
	visited := 0
	for _, v := range res.Visits {
		if v > 0 {
			visited++
		}
	}
	if len(all) != visited {
		t.Fatalf("Lines(0): %d lines, want the %d visited root moves", len(all), visited)
	}
	top := s.Lines(3)
	if len(top) != 3 {
		t.Fatalf("Lines(3): %d lines, want 3", len(top))
	}
	if got, want := top[0].Moves, res.PV; len(got) != len(want) || !slices.Equal(got, want) {
		t.Errorf("first line %v, want the PV %v", got, want)
	}
	for i, l := range top {
		if i > 0 && l.Visits > top[i-1].Visits {
			t.Errorf("line %d has %d visits, more than line %d's %d", i, l.Visits, i-1, top[i-1].Visits)
		}
		k := -1
		for j, m := range res.Moves {
			if m == l.Moves[0] {
				k = j
			}
		}
		if k < 0 || res.Visits[k] != l.Visits || res.Q[k] != l.Q {
			t.Errorf("line %d (%v): visits %d Q %v, want the root move's %v", i, l.Moves[0], l.Visits, l.Q, res)
		}
		if sum := l.WDL[0] + l.WDL[1] + l.WDL[2]; sum < 0.999 || sum > 1.001 || l.WDL[0]-l.WDL[2]-l.Q > 1e-4 || l.Q-(l.WDL[0]-l.WDL[2]) > 1e-4 {
			t.Errorf("line %d: W/D/L %v does not sum to 1 or give Q %v", i, l.WDL, l.Q)
		}
		p := g.Position()
		for _, m := range l.Moves {
			if _, err := rules.ParseMove(p, m.String()); err != nil {
				t.Fatalf("line %d %v: %v", i, l.Moves, err)
			}
			p = p.Play(m)
		}
	}
}
