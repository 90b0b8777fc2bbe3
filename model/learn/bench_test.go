package learn

import (
	"context"
	"math/rand"
	"runtime"
	"testing"

	"dama/mcts"
	"dama/model"
	"dama/model/infer"
	"dama/model/modeltest"
)

// BenchmarkTrain measures Gorgonia training steps at batch 256:
//
//	go test ./model/learn/ -run XXX -bench Train -benchtime 3x
func BenchmarkTrain(b *testing.B) {
	for _, name := range []string{"tiny", "small", "workstation"} {
		b.Run(name, func(b *testing.B) {
			cfg, _ := model.Preset(name)
			rng := rand.New(rand.NewSource(3))
			const batch = 256
			data := randomSamples(rng, batch)
			net := model.NewNetwork(cfg, rng)
			tr, err := NewTrainer(&model.Checkpoint{Net: net}, TrainOptions{Batch: batch, WeightDecay: 1e-4})
			if err != nil {
				b.Fatal(err)
			}
			defer tr.Close()
			if _, err := tr.Step(data); err != nil { // warm-up
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := modeltest.CPUTime()
			for i := 0; i < b.N; i++ {
				if _, err := tr.Step(data); err != nil {
					b.Fatal(err)
				}
			}
			if cpu := (modeltest.CPUTime() - cpu0).Seconds(); cpu > 0 {
				b.ReportMetric(float64(b.N*batch)/cpu, "samples/cpu-s")
			}
			b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "samples/s")
		})
	}
}

// BenchmarkMemory reports heap growth over 10,000 evaluator calls and 1,000
// training steps (batch 16) on the tiny preset; run it once:
//
//	go test ./model/learn/ -run XXX -bench Memory -benchtime 1x
func BenchmarkMemory(b *testing.B) {
	heap := func() uint64 {
		runtime.GC()
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	// growth runs f(warm), then returns the heap growth over f(n).
	growth := func(f func(n int), warm, n int) float64 {
		f(warm)
		h0 := heap()
		f(n)
		return float64(int64(heap()) - int64(h0))
	}
	tiny, err := model.Preset("tiny")
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		rng := rand.New(rand.NewSource(4))
		net := model.NewNetwork(tiny, rng)
		qs := modeltest.RandomPositions(rng, 500)
		ev := infer.NewEvaluator(net, infer.EvaluatorOptions{MaxBatch: 16, CacheSize: 0})
		var out mcts.Evaluation
		eval := func(n int) {
			for k := 0; k < n; k++ {
				q := qs[k%len(qs)]
				if err := ev.Evaluate(context.Background(), mcts.Query{Pos: q.Pos, Legal: q.Legal}, &out); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(growth(eval, 100, 10000), "infer-heap-growth-B")
		ev.Close()

		data := randomSamples(rng, 64)
		tr, err := NewTrainer(&model.Checkpoint{Net: net}, TrainOptions{Batch: 16})
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
		b.ReportMetric(growth(step, 10, 1000), "train-heap-growth-B")
		b.ReportMetric(float64(heap()), "heap-after-B")
		tr.Close()
	}
}
