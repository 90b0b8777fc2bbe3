package infer

import (
	"math"
	"math/rand"
	"testing"

	"dama/model"
	"dama/model/modeltest"
)

// TestPlanBuffers checks the inference plan reuses activation buffers: a
// tower of any depth needs three, plus the heads' hidden layer.
func TestPlanBuffers(t *testing.T) {
	for _, blocks := range []int{0, 1, 6} {
		c, _ := model.Preset("small")
		c.Blocks = blocks
		net := model.NewNetwork(c, rand.New(rand.NewSource(1)))
		inf, err := newInference(net)
		if err != nil {
			t.Fatal(err)
		}
		if len(inf.bufs) > 4 {
			t.Errorf("%d blocks: %d activation buffers, want at most 4", blocks, len(inf.bufs))
		}
	}
}

// TestInitialOutputsUniform checks a freshly initialised network (tiny,
// seed 1, as TestNewNetworkReproducible in package model builds it): its
// initial policy is near uniform and its value near 1/3 each.
func TestInitialOutputsUniform(t *testing.T) {
	a := modeltest.TinyNet(t, 1)
	rng := rand.New(rand.NewSource(3))
	q := modeltest.RandomPositions(rng, 1)[0]
	e := reference(t, a, q)
	for _, p := range e.WDL {
		if p < 0.2 || p > 0.5 {
			t.Errorf("initial WDL %v far from uniform", e.WDL)
		}
	}
	for _, p := range e.Priors {
		if u := 1 / float32(len(e.Priors)); p < u/2 || p > 2*u {
			t.Errorf("initial priors %v far from uniform", e.Priors)
			break
		}
	}
}

// A batch gives each position the same result as evaluating it alone.
func TestForwardBatchIndependent(t *testing.T) {
	rng := rand.New(rand.NewSource(23))
	net := modeltest.TinyNet(t, 23)
	modeltest.PerturbStats(net, rng)
	inf, err := newInference(net)
	if err != nil {
		t.Fatal(err)
	}
	const B = 5
	ws, one := inf.newWorkspace(B), inf.newWorkspace(1)
	modeltest.EncodeAll(ws.Input, modeltest.RandomPositions(rng, B))
	inf.forward(ws, B)
	for i := 0; i < B; i++ {
		copy(one.Input, ws.Input[i*model.InputSize:(i+1)*model.InputSize])
		inf.forward(one, 1)
		for j := 0; j < model.PolicySize; j++ {
			if math.Abs(float64(one.Policy[j]-ws.Policy[i*model.PolicySize+j])) > 1e-5 {
				t.Fatalf("position %d logit %d: alone %v, in a batch %v", i, j, one.Policy[j], ws.Policy[i*model.PolicySize+j])
			}
		}
	}
}
