package tactics

import (
	"testing"

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
