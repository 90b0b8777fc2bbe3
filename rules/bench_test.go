package rules

import (
	"math/rand/v2"
	"runtime"
	"testing"

	"dama/internal/cputime"
)

// BenchmarkPerft plays every move down to the last ply (no bulk counting).
func BenchmarkPerft(b *testing.B) { benchPerft(b, Perft, 7) }

// BenchmarkPerftBulk counts the last ply's moves without playing them.
func BenchmarkPerftBulk(b *testing.B) { benchPerft(b, PerftBulk, 8) }

// benchPerft runs count from the start position on one locked thread and
// reports nodes per second of wall and of CPU time.
func benchPerft(b *testing.B, count func(Position, int) uint64, depth int) {
	p := Start()
	b.ReportAllocs()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cpu := cputime.StartThread()
	var nodes uint64
	for b.Loop() {
		nodes += count(p, depth)
	}
	cpu.Report(b, float64(nodes), "nodes/s")
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
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cpu := cputime.StartThread()
	var moves int
	i := 0
	for b.Loop() {
		moves += len(ps[i&4095].Legal(buf))
		i++
	}
	cpu.Report(b, float64(i), "positions/s")
	b.ReportMetric(float64(moves)/b.Elapsed().Seconds(), "moves/s")
}
