package tactics

import (
	"context"
	"fmt"
	"testing"

	"dama/internal/evaltest"
	"dama/mcts"
	"dama/rules"
)

// benchPositions are middlegame and endgame positions of random games.
func benchPositions() []mcts.Query {
	var qs []mcts.Query
	for _, g := range randomGames(20, 9) {
		for i := 10; i < g.Ply(); i += 7 {
			p := g.PositionAt(i)
			qs = append(qs, mcts.Query{Pos: p, Legal: p.Legal(nil)})
		}
	}
	return qs
}

// BenchmarkHybrids measures what each hybrid costs a leaf: positions/s of
// the Minimax oracle, of the Combinations evaluator's search (around an
// evaluator that costs nothing), of the Priors evaluator's searches, and
// of the two stacked as the Hub searches with them (cmbD,ipD), at each
// depth, to set against the
// network's forward pass (about 30 µs a position for the small network).
func BenchmarkHybrids(b *testing.B) {
	qs := benchPositions()
	for _, d := range []int{2, 3, 4} {
		b.Run(fmt.Sprintf("minimax/depth=%d", d), func(b *testing.B) {
			o, _ := NewMinimax(d)
			proved := 0
			for i := 0; b.Loop(); i++ {
				if _, ok := o.Prove(qs[i%len(qs)]); ok {
					proved++
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "positions/s")
			b.ReportMetric(float64(proved)/float64(b.N), "proved/position")
		})
		b.Run(fmt.Sprintf("combinations/depth=%d", d), func(b *testing.B) {
			c, _ := NewCombinations(evaltest.Draw, d)
			e := mcts.Evaluation{Priors: make([]float32, rules.MaxMoves)}
			moved := 0
			for i := 0; b.Loop(); i++ {
				q := qs[i%len(qs)]
				e.Priors = e.Priors[:len(q.Legal)]
				if err := c.Evaluate(context.Background(), q, &e); err != nil {
					b.Fatal(err)
				}
				if e.WDL[1] != 1 {
					moved++
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "positions/s")
			b.ReportMetric(float64(moved)/float64(b.N), "moved/position")
		})
		b.Run(fmt.Sprintf("combinations+priors/depth=%d", d), func(b *testing.B) {
			ev, _, _ := Hybrids{Combinations: d, Priors: d}.Apply(&mcts.Options{}, evaltest.Draw)
			e := mcts.Evaluation{Priors: make([]float32, rules.MaxMoves)}
			for i := 0; b.Loop(); i++ {
				q := qs[i%len(qs)]
				e.Priors = e.Priors[:len(q.Legal)]
				if err := ev.Evaluate(context.Background(), q, &e); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "positions/s")
		})
		b.Run(fmt.Sprintf("priors/depth=%d", d), func(b *testing.B) {
			ip, _ := NewPriors(evaltest.Draw, d)
			win := make([]bool, rules.MaxMoves)
			raised := 0
			for i := 0; b.Loop(); i++ {
				q := qs[i%len(qs)]
				if ip.Winning(q, win[:len(q.Legal)]) {
					raised++
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "positions/s")
			b.ReportMetric(float64(raised)/float64(b.N), "raised/position")
		})
	}
}
