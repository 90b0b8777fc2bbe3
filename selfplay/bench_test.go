package selfplay

import (
	"context"
	"testing"

	"dama/internal/evaltest"
)

// BenchmarkPlay plays whole games at the default settings on one goroutine
// with an evaluator that costs next to nothing: the cost of search and
// recording alone.
func BenchmarkPlay(b *testing.B) {
	pl, err := newPlayer(evaltest.Material{}, testConfig(0, nil))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	positions, games := 0, 0
	for b.Loop() {
		g, err := pl.Play(context.Background(), GameSeed(1, games))
		if err != nil {
			b.Fatal(err)
		}
		positions += len(g.Plies)
		games++
	}
	b.ReportMetric(float64(positions)/b.Elapsed().Seconds(), "positions/s")
	b.ReportMetric(float64(games)/b.Elapsed().Hours(), "games/h")
}
