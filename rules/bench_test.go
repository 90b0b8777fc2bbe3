package rules

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkPerft plays every move down to the last ply (no bulk counting).
func BenchmarkPerft(b *testing.B) {
	p := Start()
	const depth = 7
	b.ReportAllocs()
	var nodes uint64
	for b.Loop() {
		nodes += Perft(p, depth)
	}
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
}

// BenchmarkPerftBulk counts the last ply's moves without playing them.
func BenchmarkPerftBulk(b *testing.B) {
	p := Start()
	const depth = 8
	b.ReportAllocs()
	var nodes uint64
	for b.Loop() {
		nodes += PerftBulk(p, depth)
	}
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
}

// benchPositions returns positions from seeded random games, a mix of
// opening, middle game and king endings.
func benchPositions(n int) []Position {
	rng := rand.New(rand.NewPCG(1, 2))
	var out []Position
	buf := make([]Move, 0, MaxMoves)
	for len(out) < n {
		p := Start()
		for ply := 0; ply < 200 && len(out) < n; ply++ {
			ms := p.Legal(buf)
			if len(ms) == 0 {
				break
			}
			out = append(out, p)
			p = p.Play(ms[rng.IntN(len(ms))])
		}
	}
	return out
}

// BenchmarkGenerate measures Legal alone over positions from random games.
func BenchmarkGenerate(b *testing.B) {
	ps := benchPositions(4096)
	buf := make([]Move, 0, MaxMoves)
	b.ReportAllocs()
	var moves int
	i := 0
	for b.Loop() {
		moves += len(ps[i&4095].Legal(buf))
		i++
	}
	b.ReportMetric(float64(i)/b.Elapsed().Seconds(), "positions/s")
	b.ReportMetric(float64(moves)/b.Elapsed().Seconds(), "moves/s")
}
