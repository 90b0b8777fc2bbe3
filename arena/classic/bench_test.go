package classic

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"dama/internal/cputime"
	"dama/rules"
)

// benchCases are the positions BenchmarkSearch searches, each at a depth
// that takes a few tens of milliseconds.
var benchCases = []struct {
	name, fen string
	depth     int
}{
	{"start", rules.StartFEN, 11},
	{"middle", "W:W17,21,22,23,25,26,27,29,30,31:B2,3,5,6,7,9,10,11,13,14", 13},
	{"kings", "W:WK10,K22,26,27:BK2,K31,12", 9},
}

// BenchmarkSearch searches each position to its fixed depth with a fresh
// engine (a cleared table) on one locked thread, and reports nodes per
// second of wall time and of the thread's CPU time.
func BenchmarkSearch(b *testing.B) {
	for _, c := range benchCases {
		b.Run(c.name, func(b *testing.B) {
			p, err := rules.ParseFEN(c.fen)
			if err != nil {
				b.Fatal(err)
			}
			g := rules.NewGame(p)
			e := New(Options{})
			b.ReportAllocs()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			cpu := cputime.StartThread()
			var nodes int64
			for b.Loop() {
				e.Clear()
				r, err := e.Search(context.Background(), g, Limits{Depth: c.depth}, rand.New(rand.NewPCG(1, 1)))
				if err != nil {
					b.Fatal(err)
				}
				nodes += r.Nodes
			}
			cpu.Report(b, float64(nodes), "nodes/s")
			b.ReportMetric(float64(nodes)/float64(b.N), "nodes/op")
		})
	}
}

// BenchmarkDepth measures one move's search at each odd depth from the
// start and from a middle-game position (fresh table each time), reporting
// milliseconds of thread CPU time per move and nodes per CPU second: the
// figures behind the depth table in docs/rating.md. The CPU time includes clearing
// the 16 MiB table before each search (about a millisecond); run it with
// -benchtime 20x or more so that the thread clock's coarse ticks average
// out at low depths.
func BenchmarkDepth(b *testing.B) {
	for _, c := range benchCases[:2] {
		p, err := rules.ParseFEN(c.fen)
		if err != nil {
			b.Fatal(err)
		}
		for d := 3; d <= 15; d += 2 {
			b.Run(fmt.Sprintf("%s/d=%d", c.name, d), func(b *testing.B) {
				g := rules.NewGame(p)
				e := New(Options{})
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				e.Clear() // the first clear also faults the table's pages in
				c0, ok := cputime.Thread()
				if !ok {
					b.Skip("thread CPU time is not measured on this system")
				}
				var nodes int64
				for b.Loop() {
					e.Clear()
					r, err := e.Search(context.Background(), g, Limits{Depth: d}, rand.New(rand.NewPCG(1, 1)))
					if err != nil {
						b.Fatal(err)
					}
					nodes += r.Nodes
				}
				c1, _ := cputime.Thread()
				cpu := c1 - c0
				b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "ms-cpu/move")
				b.ReportMetric(float64(nodes)/cpu.Seconds(), "nodes/s-cpu")
				b.ReportMetric(float64(nodes)/float64(b.N), "nodes/move")
			})
		}
	}
}
