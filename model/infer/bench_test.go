package infer

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"sync"
	"testing"

	"dama/mcts"
	"dama/model"
	"dama/model/modeltest"
)

// benchConfigs are the networks the inference benchmark measures: the
// presets, plus an 8x64 tower that was the other workstation candidate.
func benchConfigs(b *testing.B, names ...string) []model.Config {
	var out []model.Config
	for _, n := range names {
		if n == "8x64" {
			c, _ := model.Preset("workstation")
			c.Name, c.Blocks, c.Filters = "8x64", 8, 64
			out = append(out, c)
			continue
		}
		c, err := model.Preset(n)
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, c)
	}
	return out
}

// BenchmarkInfer measures the pure-Go forward pass on one goroutine:
//
//	GOMAXPROCS=1 go test ./model/infer/ -run XXX -bench Infer -benchtime 300ms
func BenchmarkInfer(b *testing.B) {
	for _, cfg := range benchConfigs(b, "tiny", "small", "workstation", "8x64") {
		net, rng := modeltest.PerturbedNet(cfg, 1)
		inf, err := newInference(net)
		if err != nil {
			b.Fatal(err)
		}
		qs := modeltest.RandomPositions(rng, 128)
		for _, batch := range []int{1, 8, 32, 128} {
			b.Run(fmt.Sprintf("%s/batch=%d", cfg.Name, batch), func(b *testing.B) {
				ws := inf.newWorkspace(batch)
				modeltest.EncodeAll(ws.Input, qs[:batch])
				b.ReportAllocs()
				b.ResetTimer()
				cpu0 := modeltest.CPUTime()
				for i := 0; i < b.N; i++ {
					inf.forward(ws, batch)
				}
				if cpu := (modeltest.CPUTime() - cpu0).Seconds(); cpu > 0 {
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
//	GOMAXPROCS=1 go test ./model/infer/ -run XXX -bench Backend -benchtime 300ms
func BenchmarkBackend(b *testing.B) {
	for _, name := range BackendNames() {
		if _, err := ResolveBackend(name); err != nil || name == BackendAuto || strings.HasPrefix(name, "test-") {
			continue
		}
		for _, cfg := range benchConfigs(b, "tiny", "small", "workstation") {
			net, rng := modeltest.PerturbedNet(cfg, 1)
			qs := modeltest.RandomPositions(rng, 128)
			// Built by the first sub-benchmark that runs, so that a run
			// of a few (e.g. under qemu, scripts/arm64-counts.sh) does not
			// calibrate the int8 backend of every net.
			var be Backend
			for _, batch := range []int{1, 8, 32, 128} {
				b.Run(fmt.Sprintf("%s/%s/batch=%d", name, cfg.Name, batch), func(b *testing.B) {
					if be == nil {
						var err error
						if be, err = NewBackend(name, net); err != nil {
							b.Fatal(err)
						}
					}
					run := be.NewRunner(batch)
					input := make([]float32, batch*model.InputSize)
					policy, wdl := make([]float32, batch*model.PolicySize), make([]float32, batch*model.ValueSize)
					modeltest.EncodeAll(input, qs[:batch])
					b.ReportAllocs()
					b.ResetTimer()
					cpu0 := modeltest.CPUTime()
					for i := 0; i < b.N; i++ {
						run.Forward(input, batch, policy, wdl)
					}
					if cpu := (modeltest.CPUTime() - cpu0).Seconds(); cpu > 0 {
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
			net := model.NewNetwork(cfg, rng)
			qs := modeltest.RandomPositions(rng, 256)
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
						if err := ev.Evaluate(context.Background(), mcts.Query{Pos: q.Pos, Legal: q.Legal, Repetitions: q.Repetitions, QuietPlies: q.QuietPlies}, &out); err != nil {
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

// BenchmarkForwardCounts runs b.N forward passes of each backend this CPU
// runs on the workstation net at batch 1, 8 and 32, for instruction
// counters rather than clocks: scripts/arm64-counts.sh runs it under
// qemu-user, whose times mean nothing, with an instruction-count plugin.
// The int8 backend is built with fixed activation ranges instead of its
// calibration, which takes minutes under emulation and sets the scales,
// not the instructions that run.
func BenchmarkForwardCounts(b *testing.B) {
	cfg := benchConfigs(b, "workstation")[0]
	net, rng := modeltest.PerturbedNet(cfg, 1)
	qs := modeltest.RandomPositions(rng, 32)
	for _, name := range []string{fp32Name, bf16Name, int8Name} {
		for _, batch := range []int{1, 8, 32} {
			b.Run(fmt.Sprintf("%s/batch=%d", name, batch), func(b *testing.B) {
				if _, err := ResolveBackend(name); err != nil {
					b.Skip(err)
				}
				var be Backend
				var err error
				if name == int8Name {
					var inf *inference
					if inf, err = newInference(net); err != nil {
						b.Fatal(err)
					}
					ranges := make([]float32, len(inf.layers))
					for i := range ranges {
						ranges[i] = 4
					}
					be, err = newInt8WithRanges(inf, ranges)
				} else {
					be, err = NewBackend(name, net)
				}
				if err != nil {
					b.Fatal(err)
				}
				run := be.NewRunner(batch)
				input := make([]float32, batch*model.InputSize)
				policy, wdl := make([]float32, batch*model.PolicySize), make([]float32, batch*model.ValueSize)
				modeltest.EncodeAll(input, qs[:batch])
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					run.Forward(input, batch, policy, wdl)
				}
			})
		}
	}
}
