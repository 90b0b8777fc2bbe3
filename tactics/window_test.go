package tactics

import (
	"slices"
	"testing"

	"dama/internal/evaltest"
	"dama/mcts"
)

// TestWindowedSearchesExact: Winning and Gain search with windows around
// their thresholds (a null window first, an aspiration window), which must
// leave their answers those of the plain minimax at every depth and
// threshold, the cap included (a threshold above it too).
func TestWindowedSearchesExact(t *testing.T) {
	raised, moved, n := 0, 0, 0
	for _, g := range randomGames(6, 11) {
		for i := 8; i <= g.Ply(); i += 6 {
			p := g.PositionAt(i)
			legal := p.Legal(nil)
			if len(legal) == 0 {
				continue
			}
			q := mcts.Query{Pos: p, Legal: legal}
			b := minimax(p, 0, 0)
			for depth := 2; depth <= 3; depth++ {
				r := minimax(p, depth, 0)
				scores, best := make([]int, len(legal)), -winScore-1
				for j, m := range legal {
					scores[j] = -minimax(p.Play(m), depth-1, 1)
					best = max(best, scores[j])
				}
				for _, th := range []int{30, 100, 250, 700} {
					n++
					want := min(max(r-b, -400), 400)
					switch {
					case r >= winBound:
						want = 400
					case r <= -winBound:
						want = -400
					case b >= winBound || b <= -winBound:
						want = 0
					}
					c := &Combinations{Depth: depth, Threshold: th}
					if got := c.Gain(q); got != want {
						t.Fatalf("%s depth %d threshold %d: gain %d, want %d", p.FEN(), depth, th, got, want)
					}
					if want >= th || want <= -th {
						moved++
					}
					ip := &Priors{Depth: depth, Threshold: th}
					win := make([]bool, len(legal))
					wantWin := best >= b+th && b < winBound && b > -winBound
					if got := ip.Winning(q, win); got != wantWin {
						t.Fatalf("%s depth %d threshold %d: winning %v, want %v (best %d, quiescence %d)", p.FEN(), depth, th, got, wantWin, best, b)
					} else if got {
						raised++
						for j := range win {
							if win[j] != (scores[j] == best) {
								t.Fatalf("%s depth %d threshold %d: move %v marked %v, score %d best %d", p.FEN(), depth, th, legal[j], win[j], scores[j], best)
							}
						}
					}
				}
			}
		}
	}
	if raised == 0 || moved == 0 || raised == n || moved == n {
		t.Errorf("%d cases, %d raised, %d moved: the test shows nothing", n, raised, moved)
	}
	t.Logf("%d cases, %d raised, %d moved", n, raised, moved)
}

// TestStackedHybridsShareASearch: informed priors right around a
// combination search of the same depth share its search (Priors.stacked);
// each evaluation equals that of the two one after the other, at depths
// 2-4 and two thresholds.
func TestStackedHybridsShareASearch(t *testing.T) {
	inner := evaltest.Material{Steep: 1}
	raised, moved := 0, 0
	for depth := 2; depth <= 4; depth++ {
		for _, th := range []int{0, 250} {
			c := &Combinations{Inner: inner, Depth: depth, Threshold: th}
			shared := &Priors{Inner: c, Depth: depth, Threshold: th}
			if shared.stacked() != c {
				t.Fatalf("depth %d: Priors around Combinations of its depth is not stacked", depth)
			}
			apart := &Priors{Inner: struct{ mcts.Evaluator }{c}, Depth: depth, Threshold: th}
			if apart.stacked() != nil || (&Priors{Inner: c, Depth: depth + 1}).stacked() != nil {
				t.Fatal("stacked on what is not a Combinations evaluator of the same depth")
			}
			for _, g := range randomGames(4, 12) {
				for i := 6; i <= g.Ply(); i += 5 {
					p := g.PositionAt(i)
					got, want := evaluate(t, shared, p), evaluate(t, apart, p)
					base := evaluate(t, inner, p)
					if got.WDL != want.WDL || !slices.Equal(got.Priors, want.Priors) {
						t.Fatalf("%s depth %d threshold %d: shared %v %v, one after the other %v %v", p.FEN(), depth, th, got.WDL, got.Priors, want.WDL, want.Priors)
					}
					if !slices.Equal(got.Priors, base.Priors) {
						raised++
					}
					if got.WDL != base.WDL {
						moved++
					}
				}
			}
		}
	}
	if raised == 0 || moved == 0 {
		t.Errorf("%d priors raised, %d values moved: the test compares nothing", raised, moved)
	}
}
