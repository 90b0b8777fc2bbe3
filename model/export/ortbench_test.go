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
)

// BenchmarkONNXRuntime compares, in one run, the model package's fp32
// backend with ONNX Runtime (one thread, through ortcheck/check.js as the
// export test runs it) on the same exported file and positions, in
// positions per CPU-second:
//
//	DAMA_ORTCHECK_DIR=$PWD/model/export/ortcheck GOMAXPROCS=1 go test ./model/export -run XXX -bench ONNXRuntime
func BenchmarkONNXRuntime(b *testing.B) {
	harness := ortHarness(b)
	script, err := filepath.Abs(filepath.Join(harness, "check.js"))
	if err != nil {
		b.Fatal(err)
	}
	ortRate := map[string]float64{} // by sub-benchmark: check.js runs once each
	for _, name := range []string{"tiny", "small", "workstation"} {
		cfg, err := model.Preset(name)
		if err != nil {
			b.Fatal(err)
		}
		net := model.NewNetwork(cfg, rand.New(rand.NewSource(1)))
		folded, err := Fold(net)
		if err != nil {
			b.Fatal(err)
		}
		dir := b.TempDir()
		modelPath := filepath.Join(dir, "net.onnx")
		if err := SaveONNX(modelPath, folded, Options{}); err != nil {
			b.Fatal(err)
		}
		fp32, err := model.NewBackend(model.BackendFP32, net)
		if err != nil {
			b.Fatal(err)
		}
		for _, batch := range []int{1, 8, 32, 128} {
			b.Run(fmt.Sprintf("%s/batch=%d", name, batch), func(b *testing.B) {
				_, input := testPositions(batch, 5)
				inPath := filepath.Join(dir, "input.f32")
				if err := os.WriteFile(inPath, float32s(input), 0o644); err != nil {
					b.Fatal(err)
				}
				run := fp32.NewRunner(batch)
				policy, wdl := make([]float32, batch*model.PolicySize), make([]float32, batch*model.ValueSize)
				run.Forward(input, batch, policy, wdl) // warm-up
				b.ResetTimer()
				cpu0, ok := cputime.Process()
				for i := 0; i < b.N; i++ {
					run.Forward(input, batch, policy, wdl)
				}
				cpu1, _ := cputime.Process()
				b.StopTimer()
				if ok && cpu1 > cpu0 {
					b.ReportMetric(float64(b.N*batch)/(cpu1-cpu0).Seconds(), "fp32-positions/cpu-s")
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
