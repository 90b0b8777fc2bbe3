package export

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"dama/internal/cputime"
	"dama/model"
	"dama/model/infer"
)

// BenchmarkONNXRuntime compares, in one run, the model package's fp32
// backend (and bf16 and int8 where the CPU has them) with ONNX Runtime (one thread,
// through ortcheck/check.js as the export test runs it) on the same
// exported file and positions, in positions per CPU-second:
//
//	DAMA_ORTCHECK_DIR=$PWD/model/export/ortcheck GOMAXPROCS=1 go test ./model/export -run XXX -bench ONNXRuntime
func BenchmarkONNXRuntime(b *testing.B) {
	harness := ortHarness(b)
	script, err := filepath.Abs(filepath.Join(harness, "check.js"))
	if err != nil {
		b.Fatal(err)
	}
	ortRate := map[string]float64{} // by sub-benchmark: check.js runs once each
	// ns/op covers one pass of each backend; the metrics are per backend.
	for _, name := range []string{"tiny", "small", "workstation"} {
		cfg, err := model.Preset(name)
		if err != nil {
			b.Fatal(err)
		}
		net := model.NewNetwork(cfg, rand.New(rand.NewSource(1)))
		_, dir, modelPath := saveTempONNX(b, net)
		backends := map[string]infer.Backend{}
		for _, be := range []string{infer.BackendFP32, "bf16", "int8"} {
			if _, err := infer.ResolveBackend(be); err != nil {
				continue // bf16 or int8 on a CPU without AVX512_BF16, or int8 without AVX2
			}
			if backends[be], err = infer.NewBackend(be, net); err != nil {
				b.Fatal(err)
			}
		}
		for _, batch := range []int{1, 8, 32, 128} {
			b.Run(fmt.Sprintf("%s/batch=%d", name, batch), func(b *testing.B) {
				_, input := testPositions(batch, 5)
				inPath := filepath.Join(dir, "input.f32")
				if err := os.WriteFile(inPath, float32s(input), 0o644); err != nil {
					b.Fatal(err)
				}
				policy, wdl := make([]float32, batch*model.PolicySize), make([]float32, batch*model.ValueSize)
				runners := map[string]infer.Runner{}
				for be, bk := range backends {
					runners[be] = bk.NewRunner(batch)
					runners[be].Forward(input, batch, policy, wdl) // warm-up
				}
				rates := map[string]float64{}
				b.ResetTimer() // (it also deletes reported metrics: report below)
				for _, be := range []string{infer.BackendFP32, "bf16", "int8"} {
					run := runners[be]
					if run == nil {
						continue
					}
					cpu0, ok := cputime.Process()
					for i := 0; i < b.N; i++ {
						run.Forward(input, batch, policy, wdl)
					}
					if cpu1, _ := cputime.Process(); ok && cpu1 > cpu0 {
						rates[be] = float64(b.N*batch) / (cpu1 - cpu0).Seconds()
					}
				}
				b.StopTimer()
				for be, r := range rates {
					b.ReportMetric(r, be+"-positions/cpu-s")
				}
				if r, ok := ortRate[b.Name()]; ok {
					b.ReportMetric(r, "ort-positions/cpu-s")
					return
				}
				// ONNX Runtime: about a second of work.
				repeat := max(3, 20000/(batch*max(1, cfg.Blocks*cfg.Filters/16)))
				cmd := exec.Command("node", script, modelPath, inPath, strconv.Itoa(batch), dir, strconv.Itoa(repeat))
				cmd.Dir = harness
				out, err := cmd.Output()
				if err != nil {
					b.Fatalf("node check.js: %v", err)
				}
				var summary struct {
					Timing struct {
						PositionsPerCPUSecond float64 `json:"positionsPerCPUSecond"`
					} `json:"timing"`
				}
				if err := json.Unmarshal(out, &summary); err != nil || summary.Timing.PositionsPerCPUSecond <= 0 {
					b.Fatalf("check.js summary %q: %v", out, err)
				}
				ortRate[b.Name()] = summary.Timing.PositionsPerCPUSecond
				b.ReportMetric(summary.Timing.PositionsPerCPUSecond, "ort-positions/cpu-s")
			})
		}
	}
}
