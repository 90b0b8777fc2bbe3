package rules

import (
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"dama/internal/cputime"
)

// rate reports n per wall-clock second as unit, and per second of the
// benchmark thread's CPU time as unit-cpu (steadier on a shared machine).
func rate(b *testing.B, n float64, unit string, cpu0 time.Duration, cpuOK bool) {
	b.ReportMetric(n/b.Elapsed().Seconds(), unit)
	if cpu1, ok := cputime.Thread(); ok && cpuOK && cpu1 > cpu0 {
		b.ReportMetric(n/(cpu1-cpu0).Seconds(), unit+"-cpu")
	}
}

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
	cpu0, ok := cputime.Thread()
	var nodes uint64
	for b.Loop() {
		nodes += count(p, depth)
	}
	rate(b, float64(nodes), "nodes/s", cpu0, ok)
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
	cpu0, ok := cputime.Thread()
	var moves int
	i := 0
	for b.Loop() {
		moves += len(ps[i&4095].Legal(buf))
		i++
	}
	rate(b, float64(i), "positions/s", cpu0, ok)
	b.ReportMetric(float64(moves)/b.Elapsed().Seconds(), "moves/s")
}
