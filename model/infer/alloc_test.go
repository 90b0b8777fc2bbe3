package infer

import (
	"testing"

	"dama/model"
	"dama/model/modeltest"
)

// A runner's forward pass allocates nothing, whichever backend it runs
// (bf16 and int8 on their portable kernels where the CPU lacks theirs).
func TestForwardNoAllocs(t *testing.T) {
	cfg, _ := model.Preset("tiny")
	net, rng := modeltest.PerturbedNet(cfg, 7)
	const B = 8
	input := make([]float32, B*model.InputSize)
	modeltest.EncodeAll(input, modeltest.RandomPositions(rng, B))
	policy, wdl := make([]float32, B*model.PolicySize), make([]float32, B*model.ValueSize)
	for _, tc := range []struct {
		name string
		new  func(*model.Network) (Backend, error)
	}{{fp32Name, newFP32Backend}, {bf16Name, newBF16Backend}, {int8Name, newInt8Backend}} {
		b, err := tc.new(net)
		if err != nil {
			t.Fatal(err)
		}
		r := b.NewRunner(B)
		if n := testing.AllocsPerRun(5, func() { r.Forward(input, B, policy, wdl) }); n != 0 {
			t.Errorf("%s: %v allocations per forward pass, want 0", tc.name, n)
		}
	}
}
