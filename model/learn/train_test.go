package learn

import (
	"math"
	"math/rand"
	"strings"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"dama/model"
	"dama/model/modeltest"
)

func f64s(x []float32) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = float64(v)
	}
	return out
}

// TestGradientCheck compares the graph's gradients (float64 variant) with
// central finite differences of the loss for entries of every kind of
// tensor on the tiny preset.
func TestGradientCheck(t *testing.T) {
	gradientCheck(t, 7)
}

// bindInputs loads samples into gr's inputs, in gr's dtype.
func bindInputs(t *testing.T, gr *graph, samples []Sample) {
	t.Helper()
	B := len(samples)
	enc := make([]float32, B*model.InputSize)
	mask := make([]float32, B*model.PolicySize)
	pt := make([]float32, B*model.PolicySize)
	vt := make([]float32, B*model.ValueSize)
	if err := loadBatch(samples, enc, mask, pt, vt); err != nil {
		t.Fatal(err)
	}
	type let struct {
		n     *G.Node
		shape []int
		data  []float32
	}
	lets := []let{{gr.x, gr.inputShape(), gr.input(make([]float32, len(enc)), enc)}, {gr.mask, []int{B, model.PolicySize}, mask}, {gr.ptarget, []int{B, model.PolicySize}, pt}, {gr.vtarget, []int{B, model.ValueSize}, vt}}
	for _, l := range lets {
		var back any = l.data
		if gr.dt == tensor.Float64 {
			back = f64s(l.data)
		}
		if err := G.Let(l.n, tensor.New(tensor.WithShape(l.shape...), tensor.WithBacking(back))); err != nil {
			t.Fatal(err)
		}
	}
}

func gradientCheck(t *testing.T, seed int64) {
	rng := rand.New(rand.NewSource(seed))
	cfg, _ := model.Preset("tiny")
	net := model.NewNetwork(cfg, rng)
	modeltest.PerturbStats(net, rng)
	const B = 3
	samples := randomSamples(rng, B)
	gr, err := buildGraph(net, B, tensor.Float64, true, 0.1, 1e-3)
	if err != nil {
		t.Fatal(err)
	}
	bindInputs(t, gr, samples)
	vm := G.NewTapeMachine(gr.g, G.BindDualValues(gr.learn...))
	defer vm.Close()
	run := func() float64 {
		t.Helper()
		if err := vm.RunAll(); err != nil {
			t.Fatal(err)
		}
		defer vm.Reset()
		return gr.cost.Value().Data().(float64)
	}
	run()
	grads := make([][]float64, len(gr.learn))
	for k, n := range gr.learn {
		g, err := n.Grad()
		if err != nil {
			t.Fatal(err)
		}
		grads[k] = append([]float64(nil), g.Data().([]float64)...)
	}
	checked, worst := 0, 0.0
	for k, n := range gr.learn {
		w := n.Value().Data().([]float64)
		// Two random entries and the one with the largest gradient (most
		// entries of the dense layers to the 1024 logits have none).
		largest := 0
		for i, g := range grads[k] {
			if math.Abs(g) > math.Abs(grads[k][largest]) {
				largest = i
			}
		}
		for _, i := range []int{rng.Intn(len(w)), rng.Intn(len(w)), largest} {
			const h = 1e-5
			old := w[i]
			w[i] = old + h
			lp := run()
			w[i] = old - h
			lm := run()
			w[i] = old
			num := (lp - lm) / (2 * h)
			ana := grads[k][i]
			err := math.Abs(num-ana) / math.Max(1e-4, math.Abs(num)+math.Abs(ana))
			worst = math.Max(worst, err)
			if err > 1e-3 {
				t.Errorf("%s[%d]: analytic gradient %.8g, numeric %.8g (relative error %.2g)", n.Name(), i, ana, num, err)
			}
			checked++
		}
	}
	t.Logf("checked %d gradient entries over %d tensors, worst relative error %.2g", checked, len(gr.learn), worst)
}

// TestToyFit trains the tiny net on a small fixed data set: the loss must
// fall by at least half.
func TestToyFit(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	net := modeltest.TinyNet(t, 11)
	const B = 8
	data := randomSamples(rng, B)
	for i := range data {
		// One-hot policy targets (a chosen move), so the best loss is near 0.
		clear(data[i].Policy)
		data[i].Policy[rng.Intn(len(data[i].Policy))] = 1
	}
	const steps = 50
	tr, ls := trainSteps(t, net, TrainOptions{Batch: B, LR: 1e-2, WeightDecay: 1e-5}, data, steps)
	first, last := ls[0], ls[steps-1]
	t.Logf("loss %.4f -> %.4f (policy %.4f -> %.4f, value %.4f -> %.4f, entropy %.3f -> %.3f)",
		first.Total, last.Total, first.Policy, last.Policy, first.Value, last.Value, first.Entropy, last.Entropy)
	if last.Total > 0.5*first.Total {
		t.Errorf("loss fell from %.4f to %.4f only", first.Total, last.Total)
	}
	if tr.StepCount() != steps {
		t.Errorf("StepCount = %d, want %d", tr.StepCount(), steps)
	}
	// Batch norm running statistics moved away from their initial values
	// and are part of the checkpoint.
	ck := tr.Checkpoint()
	if m := ck.Net.Tensor("input/bn/mean").Data; m[0] == 0 && m[1] == 0 {
		t.Errorf("running mean not updated: %v", m[:2])
	}
	if ck.Opt.Kind != "adam" || len(ck.Opt.Slots) == 0 || ck.Opt.Steps != steps || ck.Step != steps {
		t.Errorf("optimizer state %s, %d slots, %d steps; step %d", ck.Opt.Kind, len(ck.Opt.Slots), ck.Opt.Steps, ck.Step)
	}
}

// Resuming from a checkpoint continues exactly: two steps in one trainer
// equal one step, a checkpoint, and one step in a new trainer.
func TestTrainerResume(t *testing.T) {
	rng := rand.New(rand.NewSource(12))
	const B = 4
	data := randomSamples(rng, 2*B)
	opt := TrainOptions{Batch: B, LR: 1e-2}
	a, err := NewTrainer(&model.Checkpoint{Net: modeltest.TinyNet(t, 12)}, opt)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := a.Step(data[:B]); err != nil {
		t.Fatal(err)
	}
	b, err := NewTrainer(a.Checkpoint(), opt)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	la, err := a.Step(data[B:])
	if err != nil {
		t.Fatal(err)
	}
	lb, err := b.Step(data[B:])
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(la.Total-lb.Total) > 1e-6 {
		t.Errorf("resumed loss %v, uninterrupted %v", lb.Total, la.Total)
	}
	na, nb := a.Network(), b.Network()
	for i := range na.Tensors {
		for j, v := range na.Tensors[i].Data {
			if d := math.Abs(float64(v - nb.Tensors[i].Data[j])); d > 1e-6 {
				t.Fatalf("%s[%d]: resumed %v, uninterrupted %v", na.Tensors[i].Name, j, nb.Tensors[i].Data[j], v)
			}
		}
	}
}

// A trainer started on a trained network without its optimizer state (a
// shipped checkpoint) warms its fresh Adam up again, while one resumed with
// the state goes on at the full rate; both keep the step count.
func TestFreshOptimizerWarmsUp(t *testing.T) {
	rng := rand.New(rand.NewSource(15))
	const B = 4
	data := randomSamples(rng, B)
	opt := TrainOptions{Batch: B, LR: 1e-2, WarmupSteps: 4}
	a, err := NewTrainer(&model.Checkpoint{Net: modeltest.TinyNet(t, 15)}, opt)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	for range 6 {
		if _, err := a.Step(data); err != nil {
			t.Fatal(err)
		}
	}
	withState := a.Checkpoint()
	shipped := a.Checkpoint()
	shipped.Opt = model.OptimizerState{}
	for _, tc := range []struct {
		name string
		ck   *model.Checkpoint
		want []float64
	}{
		{"resumed with its state", withState, []float64{1e-2, 1e-2}},
		{"fresh optimizer", shipped, []float64{2.5e-3, 5e-3}},
	} {
		tr, err := NewTrainer(tc.ck, opt)
		if err != nil {
			t.Fatal(err)
		}
		for i, want := range tc.want {
			l, err := tr.Step(data)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(l.LR-want) > 1e-12 {
				t.Errorf("%s: step %d at rate %v, want %v", tc.name, i, l.LR, want)
			}
		}
		if tr.StepCount() != 8 {
			t.Errorf("%s: StepCount %d, want 8", tc.name, tr.StepCount())
		}
		tr.Close()
	}
}
func TestTrainerRejectsBadInput(t *testing.T) {
	rng := rand.New(rand.NewSource(13))
	tr, err := NewTrainer(&model.Checkpoint{Net: modeltest.TinyNet(t, 13)}, TrainOptions{Batch: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	data := randomSamples(rng, 3)
	if _, err := tr.Step(data); err == nil || !strings.Contains(err.Error(), "takes 2") {
		t.Errorf("3 samples for batch 2: error %v", err)
	}
	bad := append([]Sample(nil), data[:2]...)
	bad[1].Policy = append([]float32(nil), bad[1].Policy...)
	bad[1].Policy[0] += 0.5
	if _, err := tr.Step(bad); err == nil || !strings.Contains(err.Error(), "sample 1") {
		t.Errorf("bad policy sum: error %v", err)
	}
	bad[1] = data[1]
	bad[1].WDL = [3]float32{float32(math.NaN()), 0, 1}
	if _, err := tr.Step(bad); err == nil || !strings.Contains(err.Error(), "WDL") {
		t.Errorf("NaN WDL: error %v", err)
	}
	if tr.StepCount() != 0 {
		t.Errorf("rejected batches counted as steps: %d", tr.StepCount())
	}
	for _, tc := range []struct {
		opt   TrainOptions
		field string
	}{
		{TrainOptions{Batch: 1}, "Batch"},
		{TrainOptions{Batch: 8, LR: -1}, "LR"},
		{TrainOptions{Batch: 8, Optimizer: "rmsprop"}, "Optimizer"},
		{TrainOptions{Batch: 8, Schedule: "cosine"}, "TotalSteps"},
		{TrainOptions{Batch: 8, Schedule: "step"}, "DecaySteps"},
		{TrainOptions{Batch: 8, Schedule: "linear"}, "Schedule"},
		{TrainOptions{Batch: 8, Optimizer: "sgd", Momentum: -1}, "Momentum"},
	} {
		if err := tc.opt.Validate(); err == nil || !strings.Contains(err.Error(), tc.field) {
			t.Errorf("%+v: error %v, want one naming %s", tc.opt, err, tc.field)
		}
	}
}

func TestRateSchedules(t *testing.T) {
	for _, tc := range []struct {
		opt        TrainOptions
		step, done int64 // training step, optimizer steps before it
		want       float64
	}{
		{TrainOptions{LR: 0.1}, 1000, 1000, 0.1},
		{TrainOptions{LR: 0.1, WarmupSteps: 10}, 0, 0, 0.01},
		{TrainOptions{LR: 0.1, WarmupSteps: 10}, 4, 4, 0.05},
		{TrainOptions{LR: 0.1, WarmupSteps: 10}, 10, 10, 0.1},
		{TrainOptions{LR: 0.1, Schedule: "step", DecaySteps: 100}, 99, 99, 0.1},
		{TrainOptions{LR: 0.1, Schedule: "step", DecaySteps: 100}, 100, 100, 0.01},
		{TrainOptions{LR: 0.1, Schedule: "step", DecaySteps: 100, DecayFactor: 0.5}, 250, 250, 0.025},
		{TrainOptions{LR: 0.1, Schedule: "cosine", TotalSteps: 100}, 0, 0, 0.1},
		{TrainOptions{LR: 0.1, Schedule: "cosine", TotalSteps: 100}, 50, 50, 0.05},
		{TrainOptions{LR: 0.1, Schedule: "cosine", TotalSteps: 100, MinLR: 0.01}, 100, 100, 0.01},
		{TrainOptions{LR: 0.1, Schedule: "cosine", TotalSteps: 100, WarmupSteps: 10}, 60, 60, 0.05},
		// A fresh optimizer on a trained network warms up again; the
		// schedule stays where the training steps put it.
		{TrainOptions{LR: 0.1, WarmupSteps: 10}, 1000, 0, 0.01},
		{TrainOptions{LR: 0.1, WarmupSteps: 10}, 1000, 4, 0.05},
		{TrainOptions{LR: 0.1, WarmupSteps: 10}, 1000, 10, 0.1},
		{TrainOptions{LR: 0.1, Schedule: "step", DecaySteps: 100, WarmupSteps: 10}, 150, 0, 0.001},
		{TrainOptions{LR: 0.1, Schedule: "cosine", TotalSteps: 100, WarmupSteps: 10}, 60, 4, 0.025},
	} {
		if got := tc.opt.RateAt(tc.step, tc.done); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s schedule (warm-up %d) at step %d after %d optimizer steps: rate %v, want %v", tc.opt.Schedule, tc.opt.WarmupSteps, tc.step, tc.done, got, tc.want)
		}
	}
}

func TestSGDTrains(t *testing.T) {
	rng := rand.New(rand.NewSource(14))
	const B = 8
	data := randomSamples(rng, B)
	tr, err := NewTrainer(&model.Checkpoint{Net: modeltest.TinyNet(t, 14)}, TrainOptions{Batch: B, Optimizer: "sgd", LR: 0.01, Momentum: StandardMomentum})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	var first, last Losses
	for i := 0; i < 30; i++ {
		if last, err = tr.Step(data); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = last
		}
	}
	if !(last.Total < first.Total) {
		t.Errorf("SGD loss %v -> %v did not fall", first.Total, last.Total)
	}
	if ck := tr.Checkpoint(); ck.Opt.Kind != "sgd" || len(ck.Opt.Slots) != len(tr.gr.learn) {
		t.Errorf("SGD checkpoint has optimizer %q with %d slots", ck.Opt.Kind, len(ck.Opt.Slots))
	}
}

// graphGrads runs the training graph of net at dtype dt on samples and
// returns the loss and the gradient of every trainable tensor as float64.
func graphGrads(t *testing.T, net *model.Network, samples []Sample, dt tensor.Dtype) (float64, [][]float64) {
	t.Helper()
	gr, err := buildGraph(net, len(samples), dt, true, 0.1, 1e-3)
	if err != nil {
		t.Fatal(err)
	}
	bindInputs(t, gr, samples)
	vm := G.NewTapeMachine(gr.g, G.BindDualValues(gr.learn...))
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	var grads [][]float64
	for _, n := range gr.learn {
		g, err := n.Grad()
		if err != nil {
			t.Fatal(err)
		}
		switch d := g.Data().(type) {
		case []float64:
			grads = append(grads, append([]float64(nil), d...))
		case []float32:
			grads = append(grads, f64s(d))
		}
	}
	return scalarValue(gr.cost), grads
}

// The float32 graph, whose large products run on package kernel's SGEMM
// (fastBLAS, transposed operands included), gives the same gradients as the
// float64 graph on gonum's BLAS, up to float32 rounding.
func TestFloat32GradientsMatch(t *testing.T) {
	rng := rand.New(rand.NewSource(8))
	cfg, _ := model.Preset("tiny")
	net := model.NewNetwork(cfg, rng)
	modeltest.PerturbStats(net, rng)
	samples := randomSamples(rng, 8)
	l32, g32 := graphGrads(t, net, samples, tensor.Float32)
	l64, g64 := graphGrads(t, net, samples, tensor.Float64)
	if math.Abs(l32-l64) > 1e-4*math.Abs(l64) {
		t.Errorf("loss float32 %v, float64 %v", l32, l64)
	}
	specs := model.Layout(net.Config)
	k := 0
	for _, s := range specs {
		if !s.Kind.Trainable() {
			continue
		}
		var diff, norm float64
		for i := range g64[k] {
			d := g32[k][i] - g64[k][i]
			diff += d * d
			norm += g64[k][i] * g64[k][i]
		}
		if rel := math.Sqrt(diff / math.Max(norm, 1e-30)); rel > 1e-3 {
			t.Errorf("%s: float32 gradient differs from float64 by %.2g (relative)", s.Name, rel)
		}
		k++
	}
	if k != len(g64) {
		t.Errorf("%d gradients for %d trainable tensors", len(g64), k)
	}
}

// A policy target is normalised once, where the sample is made: the
// trainer scatters it unchanged (a target whose float32 sum is not exactly
// 1 keeps its bits) and refuses one that is not normalised instead of
// normalising it again (issue 11, point 5).
func TestPolicyTargetNormalisedOnce(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	// A target normalised in float32, whose float32 sum is not exactly 1.
	var s Sample
	for _, c := range randomSamples(rng, 256) {
		var sum float32
		for _, p := range c.Policy {
			sum += p
		}
		if len(c.Legal) >= 3 && sum != 1 && !sharesIndex(c) {
			s = c
			break
		}
	}
	if s.Legal == nil {
		t.Fatal("no sample with a target summing to other than 1 over three moves of distinct policy indices")
	}
	enc := make([]float32, model.InputSize)
	mask := make([]float32, model.PolicySize)
	pt := make([]float32, model.PolicySize)
	vt := make([]float32, model.ValueSize)
	if err := loadBatch([]Sample{s}, enc, mask, pt, vt); err != nil {
		t.Fatal(err)
	}
	for i, m := range s.Legal {
		k := model.PolicyIndex(s.Pos, m)
		if pt[k] != s.Policy[i] {
			t.Errorf("move %s: target %v, want the sample's %v unchanged", m, pt[k], s.Policy[i])
		}
	}

	visits := s
	visits.Policy = make([]float32, len(s.Legal))
	for i := range visits.Policy {
		visits.Policy[i] = float32(i + 1) // visit counts, not normalised
	}
	if err := loadBatch([]Sample{visits}, enc, mask, pt, vt); err == nil || !strings.Contains(err.Error(), "sum to") {
		t.Errorf("non-normalised target: error %v, want a refusal naming the sum", err)
	}
}

// sharesIndex reports whether two legal moves of s share a policy index.
func sharesIndex(s Sample) bool {
	seen := map[int]bool{}
	for _, m := range s.Legal {
		k := model.PolicyIndex(s.Pos, m)
		if seen[k] {
			return true
		}
		seen[k] = true
	}
	return false
}
