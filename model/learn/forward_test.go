package learn

import (
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"dama/model"
	"dama/model/modeltest"
)

// compareForward runs net through the pure-Go backend and through the
// Gorgonia graph in eval mode on the same input and returns the largest
// absolute difference of the logits.
func compareForward(t *testing.T, net *model.Network, input []float32, batch int) float64 {
	t.Helper()
	pol0, wdl0 := fp32Forward(t, net, input, batch)
	pol, wdl, err := gorgoniaForward(net, input, batch)
	if err != nil {
		t.Fatal(err)
	}
	worst := 0.0
	for i := range pol {
		worst = math.Max(worst, math.Abs(float64(pol[i]-pol0[i])))
	}
	for i := range wdl {
		worst = math.Max(worst, math.Abs(float64(wdl[i]-wdl0[i])))
	}
	return worst
}

func TestForwardMatchesGraph(t *testing.T) {
	rng := rand.New(rand.NewSource(21))
	const B = 8
	for _, name := range []string{"tiny", "small"} {
		cfg, _ := model.Preset(name)
		net := model.NewNetwork(cfg, rng)
		modeltest.PerturbStats(net, rng)
		// Random inputs (not only valid encodings).
		in := make([]float32, B*model.InputSize)
		for i := range in {
			in[i] = float32(rng.NormFloat64())
		}
		if d := compareForward(t, net, in, B); d > 1e-4 {
			t.Errorf("%s, random inputs: logits differ by %g", name, d)
		} else {
			t.Logf("%s, random inputs: largest logit difference %.2g", name, d)
		}
		// Encoded positions.
		modeltest.EncodeAll(in, modeltest.RandomPositions(rng, B))
		if d := compareForward(t, net, in, B); d > 1e-4 {
			t.Errorf("%s, positions: logits differ by %g", name, d)
		}
	}
}

// After training, the running statistics the Gorgonia trainer kept are the
// ones the folded forward pass uses.
func TestForwardMatchesTrainedGraph(t *testing.T) {
	rng := rand.New(rand.NewSource(22))
	const B = 8
	tr, err := NewTrainer(&model.Checkpoint{Net: modeltest.TinyNet(t, 22)}, TrainOptions{Batch: B, LR: 1e-2})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	data := randomSamples(rng, 4*B)
	for i := 0; i < 8; i++ {
		if _, err := tr.Step(data[(i%4)*B : (i%4+1)*B]); err != nil {
			t.Fatal(err)
		}
	}
	net := tr.Network()
	in := make([]float32, B*model.InputSize)
	for i := range in {
		in[i] = float32(rng.NormFloat64())
	}
	if d := compareForward(t, net, in, B); d > 1e-4 {
		t.Errorf("trained network: logits differ by %g", d)
	}
}

// evalLosses gives the trainer's losses when the batch statistics equal the
// running ones: check it against the Gorgonia training graph with
// BNMomentum 1 (running statistics := last batch's) by evaluating the same
// batch after a step with learning rate ~0.
func TestEvalLosses(t *testing.T) {
	rng := rand.New(rand.NewSource(24))
	const B = 16
	data := randomSamples(rng, B)
	net := modeltest.TinyNet(t, 24)
	tr, ls := trainSteps(t, net, TrainOptions{Batch: B, LR: 1e-9, BNMomentum: 1}, data, 1)
	want := ls[0]
	// The running variance is unbiased (n/(n-1) times the batch's), so the
	// match is close but not exact.
	got, err := evalLosses(tr.Network(), data)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got.Policy-want.Policy) > 1e-3 || math.Abs(got.Value-want.Value) > 1e-3 || math.Abs(got.Entropy-want.Entropy) > 1e-3 {
		t.Errorf("evalLosses %+v, trainer %+v", got, want)
	}
	t.Logf("eval %.5f/%.5f, trainer %.5f/%.5f", got.Policy, got.Value, want.Policy, want.Value)
	bad := append([]Sample(nil), data...)
	bad[3].Policy = bad[3].Policy[:1]
	if _, err := evalLosses(net, bad); err == nil || !strings.Contains(err.Error(), "sample 3") {
		t.Errorf("bad sample: %v", err)
	}
}

// input returns encoded positions (NHWC, as Encode writes them) in the
// layout of the graph's input: enc itself, or transposed to NCHW in dst
// for a float64 graph.
func (gr *graph) input(dst, enc []float32) []float32 {
	if gr.dt == tensor.Float32 {
		return enc
	}
	for b := 0; b < gr.batch; b++ {
		in := enc[b*model.InputSize : (b+1)*model.InputSize]
		out := dst[b*model.InputSize : (b+1)*model.InputSize]
		for p := 0; p < model.Squares; p++ {
			for c := 0; c < model.NumPlanes; c++ {
				out[c*model.Squares+p] = in[p*model.NumPlanes+c]
			}
		}
	}
	return dst
}

// gorgoniaForward evaluates net with Gorgonia in eval mode (running
// statistics) on batch NHWC-encoded positions; it returns the policy and
// value logits. It is the reference the pure-Go forward pass is checked
// against.
func gorgoniaForward(net *model.Network, input []float32, batch int) (policy, wdl []float32, err error) {
	gr, err := buildGraph(net, batch, tensor.Float32, false, 0.1, 0)
	if err != nil {
		return nil, nil, err
	}
	vm := G.NewTapeMachine(gr.g, G.EvalMode())
	defer vm.Close()
	if err := gr.setStats(net); err != nil {
		return nil, nil, err
	}
	x := gr.input(make([]float32, batch*model.InputSize), input[:batch*model.InputSize])
	if err := G.Let(gr.x, tensor.New(tensor.WithShape(gr.inputShape()...), tensor.WithBacking(x))); err != nil {
		return nil, nil, err
	}
	if err := vm.RunAll(); err != nil {
		return nil, nil, fmt.Errorf("learn: forward pass: %w", err)
	}
	policy = append([]float32(nil), gr.policy.Value().Data().([]float32)...)
	wdl = append([]float32(nil), gr.value.Value().Data().([]float32)...)
	return policy, wdl, nil
}
