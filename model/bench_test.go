package model

import (
	"context"
	"fmt"
	"math/rand"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"dama/internal/cputime"
	"dama/mcts"
)

// cpuTime returns the CPU time the process has used (0 where it cannot be
// measured, and the per-CPU-second metrics are left out): on a shared
// machine, work per CPU-second is steadier than work per wall-clock second.
func cpuTime() time.Duration {
	d, _ := cputime.Process()
	return d
}

// benchConfigs are the networks the inference benchmark measures: the
// presets, plus an 8x64 tower that was the other workstation candidate.
func benchConfigs(b *testing.B, names ...string) []Config {
	var out []Config
	for _, n := range names {
		if n == "8x64" {
			c, _ := Preset("workstation")
			c.Name, c.Blocks, c.Filters = "8x64", 8, 64
			out = append(out, c)
			continue
		}
		c, err := Preset(n)
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, c)
	}
	return out
}

// BenchmarkInfer measures the pure-Go forward pass on one goroutine:
//
//	GOMAXPROCS=1 go test ./model/ -run XXX -bench Infer -benchtime 300ms
func BenchmarkInfer(b *testing.B) {
	for _, cfg := range benchConfigs(b, "tiny", "small", "workstation", "8x64") {
		rng := rand.New(rand.NewSource(1))
		net := NewNetwork(cfg, rng)
		perturbStats(net, rng)
		inf, err := newInference(net)
		if err != nil {
			b.Fatal(err)
		}
		qs := randomPositions(rng, 128)
		for _, batch := range []int{1, 8, 32, 128} {
			b.Run(fmt.Sprintf("%s/batch=%d", cfg.Name, batch), func(b *testing.B) {
				ws := inf.newWorkspace(batch)
				for i := 0; i < batch; i++ {
					q := qs[i%len(qs)]
					Encode(ws.Input[i*InputSize:(i+1)*InputSize], q.pos, q.rep, q.quiet)
				}
				b.ReportAllocs()
				b.ResetTimer()
				cpu0 := cpuTime()
				for i := 0; i < b.N; i++ {
					inf.forward(ws, batch)
				}
				if cpu := (cpuTime() - cpu0).Seconds(); cpu > 0 {
					b.ReportMetric(float64(b.N*batch)/cpu, "positions/cpu-s")
				}
				s := b.Elapsed().Seconds()
				b.ReportMetric(float64(b.N*batch)/s, "positions/s")
				b.ReportMetric(float64(b.N*batch)*inf.flops/s/1e9, "GFLOP/s")
			})
		}
	}
}

// BenchmarkBackend measures each backend available on this CPU through
// the Backend interface, on one goroutine, at batch 1, 8, 32 and 128:
//
//	GOMAXPROCS=1 go test ./model/ -run XXX -bench Backend -benchtime 300ms
func BenchmarkBackend(b *testing.B) {
	for _, name := range BackendNames() {
		if _, err := ResolveBackend(name); err != nil || name == BackendAuto || strings.HasPrefix(name, "test-") {
			continue
		}
		for _, cfg := range benchConfigs(b, "tiny", "small", "workstation") {
			rng := rand.New(rand.NewSource(1))
			net := NewNetwork(cfg, rng)
			perturbStats(net, rng)
			be, err := NewBackend(name, net)
			if err != nil {
				b.Fatal(err)
			}
			qs := randomPositions(rng, 128)
			for _, batch := range []int{1, 8, 32, 128} {
				b.Run(fmt.Sprintf("%s/%s/batch=%d", name, cfg.Name, batch), func(b *testing.B) {
					run := be.NewRunner(batch)
					input := make([]float32, batch*InputSize)
					policy, wdl := make([]float32, batch*PolicySize), make([]float32, batch*ValueSize)
					for i := 0; i < batch; i++ {
						q := qs[i%len(qs)]
						Encode(input[i*InputSize:(i+1)*InputSize], q.pos, q.rep, q.quiet)
					}
					b.ReportAllocs()
					b.ResetTimer()
					cpu0 := cpuTime()
					for i := 0; i < b.N; i++ {
						run.Forward(input, batch, policy, wdl)
					}
					if cpu := (cpuTime() - cpu0).Seconds(); cpu > 0 {
						b.ReportMetric(float64(b.N*batch)/cpu, "positions/cpu-s")
					}
					b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "positions/s")
				})
			}
		}
	}
}

// BenchmarkEvaluator measures the batched evaluator with 64 goroutines
// asking at once (no cache): encoding, queueing, one forward pass per batch
// and the legal-move softmax.
func BenchmarkEvaluator(b *testing.B) {
	for _, cfg := range benchConfigs(b, "tiny", "workstation") {
		b.Run(cfg.Name, func(b *testing.B) {
			rng := rand.New(rand.NewSource(2))
			net := NewNetwork(cfg, rng)
			qs := randomPositions(rng, 256)
			ev := NewEvaluator(net, EvaluatorOptions{MaxBatch: 64})
			defer ev.Close()
			const workers = 64
			b.ReportAllocs()
			b.ResetTimer()
			var wg sync.WaitGroup
			for w := 0; w < workers; w++ {
				wg.Add(1)
				go func(w int) {
					defer wg.Done()
					var out mcts.Evaluation
					for i := w; i < b.N; i += workers {
						q := qs[i%len(qs)]
						if err := ev.Evaluate(context.Background(), mcts.Query{Pos: q.pos, Legal: q.legal, Repetitions: q.rep, QuietPlies: q.quiet}, &out); err != nil {
							b.Error(err)
							return
						}
					}
				}(w)
			}
			wg.Wait()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "positions/s")
			b.ReportMetric(ev.Stats().MeanBatch, "batch")
		})
	}
}

// BenchmarkTrain measures Gorgonia training steps at batch 256, without
// and with (-aux) the reply head:
//
//	go test ./model/ -run XXX -bench Train -benchtime 3x
func BenchmarkTrain(b *testing.B) {
	for _, bench := range []string{"tiny", "tiny-aux", "small", "small-aux", "workstation", "workstation-aux"} {
		b.Run(bench, func(b *testing.B) {
			name, aux := strings.CutSuffix(bench, "-aux") // -aux: with the reply head, every sample targeted
			cfg, _ := Preset(name)
			cfg.AuxReply = aux
			rng := rand.New(rand.NewSource(3))
			const batch = 256
			data := randomSamples(rng, batch)
			net := NewNetwork(cfg, rng)
			if aux {
				withReplies(rng, data)
			}
			tr, err := NewTrainer(&Checkpoint{Net: net}, TrainOptions{Batch: batch, WeightDecay: 1e-4, AuxWeight: 0.15})
			if err != nil {
				b.Fatal(err)
			}
			defer tr.Close()
			if _, err := tr.Step(data); err != nil { // warm-up
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := cpuTime()
			for i := 0; i < b.N; i++ {
				if _, err := tr.Step(data); err != nil {
					b.Fatal(err)
				}
			}
			if cpu := (cpuTime() - cpu0).Seconds(); cpu > 0 {
				b.ReportMetric(float64(b.N*batch)/cpu, "samples/cpu-s")
			}
			b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "samples/s")
		})
	}
}

// BenchmarkMemory reports heap growth over 10,000 evaluator calls and 1,000
// training steps (batch 16) on the tiny preset; run it once:
//
//	go test ./model/ -run XXX -bench Memory -benchtime 1x
func BenchmarkMemory(b *testing.B) {
	heap := func() uint64 {
		runtime.GC()
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	for i := 0; i < b.N; i++ {
		rng := rand.New(rand.NewSource(4))
		net := NewNetwork(presets["tiny"], rng)
		qs := randomPositions(rng, 500)
		ev := NewEvaluator(net, EvaluatorOptions{MaxBatch: 16, CacheSize: 0})
		var out mcts.Evaluation
		eval := func(n int) {
			for k := 0; k < n; k++ {
				q := qs[k%len(qs)]
				if err := ev.Evaluate(context.Background(), mcts.Query{Pos: q.pos, Legal: q.legal}, &out); err != nil {
					b.Fatal(err)
				}
			}
		}
		eval(100)
		h0 := heap()
		eval(10000)
		h1 := heap()
		ev.Close()
		b.ReportMetric(float64(int64(h1)-int64(h0)), "infer-heap-growth-B")

		data := randomSamples(rng, 64)
		tr, err := NewTrainer(&Checkpoint{Net: net}, TrainOptions{Batch: 16})
		if err != nil {
			b.Fatal(err)
		}
		step := func(n int) {
			for k := 0; k < n; k++ {
				if _, err := tr.Step(data[(k%4)*16 : (k%4+1)*16]); err != nil {
					b.Fatal(err)
				}
			}
		}
		step(10)
		h2 := heap()
		step(1000)
		h3 := heap()
		tr.Close()
		b.ReportMetric(float64(int64(h3)-int64(h2)), "train-heap-growth-B")
		b.ReportMetric(float64(h3), "heap-after-B")
	}
}
