package infer

import (
	"math"
	"math/rand"
	"testing"

	"dama/model"
	"dama/model/kernel"
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

// TestWinogradMatchesDirect checks the forward pass of a workspace whose
// 3x3 convolutions run as kernel.Conv3x3Packed (Winograd convolutions
// where the CPU has them) against one that keeps the direct product, on the
// workstation net with perturbed batch-norm statistics: logits within 1e-4,
// the tolerance the fp32 backend is held to against the Gorgonia graph and
// ONNX Runtime. Where the CPU has no Winograd convolution both are the
// direct product.
func TestWinogradMatchesDirect(t *testing.T) {
	cfg, err := model.Preset("workstation")
	if err != nil {
		t.Fatal(err)
	}
	net, rng := modeltest.PerturbedNet(cfg, 4)
	inf, err := newInference(net)
	if err != nil {
		t.Fatal(err)
	}
	const B = 32
	wino, direct := inf.newWorkspace(B), inf.newWorkspace(B)
	if wino.direct {
		t.Fatalf("a workspace of %d positions keeps the direct product", B)
	}
	direct.direct = true
	modeltest.EncodeAll(wino.Input, modeltest.RandomPositions(rng, B))
	copy(direct.Input, wino.Input)
	inf.forward(wino, B)
	inf.forward(direct, B)
	var worst float64
	for _, p := range [][2][]float32{{wino.Policy, direct.Policy}, {wino.WDL, direct.WDL}} {
		for j, got := range p[0] {
			d := math.Abs(float64(got - p[1][j]))
			if !(d <= 1e-4) {
				t.Fatalf("logit %d: %v with the Winograd convolutions, %v with the direct product", j, got, p[1][j])
			}
			worst = max(worst, d)
		}
	}
	t.Logf("largest logit difference %.2g", worst)
}

// TestWorkspaceOutputsIndependentOfBatch checks a workspace gives a
// position the same outputs bit for bit whatever the batch it is in (the
// algorithm of its convolutions is chosen once, from its largest batch,
// not per call), for workspaces on either side of
// kernel.WinogradMinBatch.
func TestWorkspaceOutputsIndependentOfBatch(t *testing.T) {
	rng := rand.New(rand.NewSource(24))
	cfg, _ := model.Preset("small")
	net, _ := modeltest.PerturbedNet(cfg, 24)
	inf, err := newInference(net)
	if err != nil {
		t.Fatal(err)
	}
	qs := modeltest.RandomPositions(rng, 13)
	minBatch := kernel.WinogradMinBatch(model.Rows, model.Cols)
	for _, maxBatch := range []int{max(1, minBatch-1), minBatch, 13} {
		ws := inf.newWorkspace(maxBatch)
		if ws.direct != (maxBatch < minBatch) {
			t.Errorf("maxBatch %d: direct %v", maxBatch, ws.direct)
		}
		n := min(maxBatch, len(qs))
		modeltest.EncodeAll(ws.Input, qs[:n])
		inf.forward(ws, n)
		policy, wdl := append([]float32(nil), ws.Policy[:n*model.PolicySize]...), append([]float32(nil), ws.WDL[:n*model.ValueSize]...)
		for i := 0; i < n; i++ {
			modeltest.EncodeAll(ws.Input, qs[i:i+1])
			inf.forward(ws, 1)
			for j, v := range ws.Policy[:model.PolicySize] {
				if w := policy[i*model.PolicySize+j]; math.Float32bits(v) != math.Float32bits(w) {
					t.Fatalf("maxBatch %d, position %d, logit %d: alone %v, in a batch of %d %v", maxBatch, i, j, v, n, w)
				}
			}
			for j, v := range ws.WDL[:model.ValueSize] {
				if w := wdl[i*model.ValueSize+j]; math.Float32bits(v) != math.Float32bits(w) {
					t.Fatalf("maxBatch %d, position %d, WDL %d: alone %v, in a batch of %d %v", maxBatch, i, j, v, n, w)
				}
			}
		}
	}
}
