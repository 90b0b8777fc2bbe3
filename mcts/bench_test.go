package mcts

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

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

// burnEval stands for a network: each evaluation does a fixed amount of
// CPU work on the calling goroutine (as a forward pass does: a loaded
// machine makes it slower, it does not shorten it), then answers
// uniformly. work 50 000 is about 50µs on a 3 GHz core.
type burnEval struct{ work int }

var burnSink atomic.Uint64

func (e burnEval) Evaluate(_ context.Context, q Query, out *Evaluation) error {
	x := uint64(1)
	for range e.work {
		x = x*6364136223846793005 + 1442695040888963407
	}
	burnSink.Add(x)
	return instantEval{}.Evaluate(context.Background(), q, out)
}

// sleepEval waits d per evaluation without using the CPU (as a remote
// or accelerator backend would), then answers uniformly.
type sleepEval struct{ d time.Duration }

func (e sleepEval) Evaluate(_ context.Context, q Query, out *Evaluation) error {
	time.Sleep(e.d)
	return instantEval{}.Evaluate(context.Background(), q, out)
}

// BenchmarkThreads measures visits per second of 1, 2 and 4 search
// threads, 800-visit searches of the start position (200 with
// "sleep=1ms"), one leaf per thread at a time: "work=50000" on an
// evaluator that works the CPU for about 50µs a position (compare the
// threads within one run: the ratio is the scaling, given as many free
// cores as threads), "sleep=1ms" on one that waits 1 ms without the CPU
// (the overlap of the threads' evaluations, whatever the cores), "work=0"
// on one that answers at once (the tree walk under the lock alone: the
// most visits per second any number of threads can reach).
func BenchmarkThreads(b *testing.B) {
	for _, tc := range []struct {
		name   string
		ev     Evaluator
		visits int
	}{
		{"work=50000", burnEval{work: 50_000}, 800},
		{"sleep=1ms", sleepEval{time.Millisecond}, 200},
		{"work=0", burnEval{}, 800},
	} {
		for _, threads := range []int{1, 2, 4} {
			b.Run(fmt.Sprintf("%s/threads=%d", tc.name, threads), func(b *testing.B) {
				g := rules.NewGame(rules.Start())
				s := New(tc.ev, Options{Threads: threads, FPUReduction: StandardFPUReduction})
				visits := 0
				for b.Loop() {
					s.Reset()
					res, err := s.Run(context.Background(), g, Limit{Visits: tc.visits}, nil)
					if err != nil {
						b.Fatal(err)
					}
					visits += res.Playouts
				}
				b.ReportMetric(float64(visits)/b.Elapsed().Seconds(), "visits/s")
			})
		}
	}
}
