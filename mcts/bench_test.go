package mcts

import (
	"context"
	"testing"

	"dama/rules"
)

// instantEval answers at once with uniform priors and a draw.
type instantEval struct{}

func (instantEval) Evaluate(_ context.Context, q Query, out *Evaluation) error {
	for i := range out.Priors {
		out.Priors[i] = 1 / float32(len(q.Legal))
	}
	out.WDL = [3]float32{0.3, 0.4, 0.3}
	return nil
}

// BenchmarkSearch measures the search alone: fresh 1600-visit searches of
// the start position with an evaluator that costs nothing.
func BenchmarkSearch(b *testing.B) {
	for _, par := range []int{1, 8} {
		b.Run("parallel="+string(rune('0'+par)), func(b *testing.B) {
			g := rules.NewGame(rules.Start())
			s := New(instantEval{}, Options{Parallel: par, FPUReduction: StandardFPUReduction})
			const visits = 1600
			b.ReportAllocs()
			playouts := 0
			for b.Loop() {
				s.Reset()
				res, err := s.Run(context.Background(), g, Limit{Visits: visits}, nil)
				if err != nil {
					b.Fatal(err)
				}
				playouts += res.Playouts
			}
			b.ReportMetric(float64(playouts)/b.Elapsed().Seconds(), "playouts/s")
		})
	}
}
