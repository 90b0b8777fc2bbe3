//go:build unix

package main

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"dama/engine"
	"dama/mcts"
	"dama/model"
	"dama/model/infer"
	"dama/player"
	"dama/rules"
)

// cpuTime is the process's user and system CPU time so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkShippedThreads measures the Hub engine's search with the
// shipped model, 1 and 2 search threads, each running its own forward
// passes ("direct", as dama hub does) or handing them to as many batcher
// goroutines ("queued"), --parallel 4, no cache: fresh 400-visit searches of the
// start position. visits/s is per wall-clock second (the scaling, given
// free cores), visits/cpu-s per second of the process's CPU time (the
// cost of threads); compare the threads within one run:
//
//	go test ./cmd/dama -run XXX -bench ShippedThreads -benchtime 20x
func BenchmarkShippedThreads(b *testing.B) {
	ck, err := player.LoadModel(player.Shipped)
	if err != nil {
		b.Fatal(err)
	}
	for _, direct := range []bool{true, false} {
		for _, threads := range []int{1, 2} {
			mode := map[bool]string{true: "direct", false: "queued"}[direct]
			b.Run(fmt.Sprintf("%s/threads=%d", mode, threads), func(b *testing.B) {
				benchShippedThreads(b, ck, threads, direct)
			})
		}
	}
}

func benchShippedThreads(b *testing.B, ck *model.Checkpoint, threads int, direct bool) {
	{
		{
			q, err := infer.OpenEvaluator(ck.Net, infer.EvaluatorOptions{MaxBatch: 4, Workers: threads})
			if err != nil {
				b.Fatal(err)
			}
			defer q.Close()
			// queued: the evaluator without its batch view, so that
			// NewSearcher cannot take it.
			var ev mcts.Evaluator = struct{ mcts.Evaluator }{q}
			if direct {
				ev = q.Direct()
			}
			s := engine.NewSearcher(ev, mcts.Options{Parallel: 4, Threads: threads, FPUReduction: mcts.StandardFPUReduction, PassForced: true})
			g := rules.NewGame(rules.Start())
			visits := 0
			cpu0 := cpuTime(b)
			for b.Loop() {
				s.Reset()
				res, err := s.Think(context.Background(), g, engine.Limits{Visits: 400}, nil)
				if err != nil {
					b.Fatal(err)
				}
				visits += res.Playouts
			}
			b.ReportMetric(float64(visits)/b.Elapsed().Seconds(), "visits/s")
			b.ReportMetric(float64(visits)/(cpuTime(b)-cpu0).Seconds(), "visits/cpu-s")
		}
	}
}
