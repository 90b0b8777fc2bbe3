package infer

import (
	"math"
	"math/rand"
	"runtime"
	"testing"

	"dama/model"
	"dama/model/kernel"
	"dama/model/modeltest"
)

// The int8 backend gives the same outputs, bit for bit, at every int8
// kernel level this CPU runs (the portable kernel included): the kernels'
// int32 sums and float32 epilogues are identical, so the accuracy measured
// at one level (its gate: top-move agreement, W/D/L error, arena) holds at
// every level. Under CI's GODEBUG masks this compares the levels of the
// CPU the masks leave.
func TestInt8SameAtEveryLevel(t *testing.T) {
	if len(kernel.I8Levels()) < 2 {
		t.Skipf("one int8 level here (%s): nothing to compare", kernel.I8Level())
	}
	best := kernel.I8Level()
	defer func() {
		if err := kernel.SetI8Level(best); err != nil {
			t.Fatal(err)
		}
	}()
	for _, name := range []string{"tiny", "workstation"} {
		t.Run(name, func(t *testing.T) {
			// Calibrating the workstation net is slow under qemu-user (CI).
			if name == "workstation" && testing.Short() && runtime.GOARCH != "amd64" {
				t.Skip("slow under emulation: workstation only without -short")
			}
			cfg, _ := model.Preset(name)
			rng := rand.New(rand.NewSource(41))
			net := model.NewNetwork(cfg, rng)
			modeltest.PerturbStats(net, rng)
			ib, err := newInt8Backend(net)
			if err != nil {
				t.Fatal(err)
			}
			const B = 8
			input := make([]float32, B*model.InputSize)
			for i, q := range modeltest.RandomPositions(rng, B) {
				model.Encode(input[i*model.InputSize:(i+1)*model.InputSize], q.Pos, q.Repetitions, q.QuietPlies)
			}
			var want []float32
			for _, level := range kernel.I8Levels() {
				if err := kernel.SetI8Level(level); err != nil {
					t.Fatal(err)
				}
				policy, wdl := make([]float32, B*model.PolicySize), make([]float32, B*model.ValueSize)
				ib.NewRunner(B).Forward(input, B, policy, wdl)
				got := append(policy, wdl...)
				if want == nil {
					want = got
					continue
				}
				for i := range want {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
						t.Fatalf("level %s: output %d = %v, level %s gives %v", level, i, got[i], kernel.I8Levels()[0], want[i])
					}
				}
			}
			t.Logf("levels %v agree", kernel.I8Levels())
		})
	}
}
