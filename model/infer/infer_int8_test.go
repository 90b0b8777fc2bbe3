package infer

import (
	"context"
	"math"
	"math/rand"
	"runtime"
	"strings"
	"testing"

	"dama/mcts"
	"dama/model"
	"dama/model/kernel"
	"dama/model/modeltest"
)

// The int8 backend against fp32 on random positions of randomly
// initialised networks, calibrated on their own games: the worst
// differences measured are 0.015 (priors), 0.021 (WDL) and a mean |dE| of
// 0.0044 (workstation); the tolerances leave room for other seeds. (The
// trained shipped model on its own games: checkpoints/int8_test.go and the
// README's accuracy table.)
const (
	int8PriorTol = 0.05 // largest |prior difference| of a legal move
	int8WDLTol   = 0.05 // largest |W, D or L difference|
	int8MeanTol  = 0.01 // mean |expected score difference|
)

func TestInt8MatchesFP32(t *testing.T) {
	for _, name := range []string{"tiny", "small", "workstation"} {
		t.Run(name, func(t *testing.T) {
			// The portable kernel is slow, and so is arm64 under qemu-user
			// (CI), where tiny and small already drive the SDOT kernel.
			if name == "workstation" && testing.Short() && (!kernel.I8Native() || runtime.GOARCH != "amd64") {
				t.Skip("the portable or emulated int8 kernel is slow: workstation only without -short")
			}
			cfg, _ := model.Preset(name)
			rng := rand.New(rand.NewSource(31))
			net := model.NewNetwork(cfg, rng)
			modeltest.PerturbStats(net, rng)
			fp, err := newFP32Backend(net)
			if err != nil {
				t.Fatal(err)
			}
			ib, err := newInt8Backend(net)
			if err != nil {
				t.Fatal(err)
			}
			qs := modeltest.RandomPositions(rng, 64)
			const B = 16
			rf, ri := fp.NewRunner(B), ib.NewRunner(B)
			input := make([]float32, B*model.InputSize)
			pf, pi := make([]float32, B*model.PolicySize), make([]float32, B*model.PolicySize)
			wf, wi := make([]float32, B*model.ValueSize), make([]float32, B*model.ValueSize)
			var worstP, worstV, sumE float64
			agree := 0
			for start := 0; start < len(qs); start += B {
				for i := 0; i < B; i++ {
					q := qs[start+i]
					model.Encode(input[i*model.InputSize:(i+1)*model.InputSize], q.Pos, q.Repetitions, q.QuietPlies)
				}
				rf.Forward(input, B, pf, wf)
				ri.Forward(input, B, pi, wi)
				for i := 0; i < B; i++ {
					q := qs[start+i]
					a, b := make([]float32, len(q.Legal)), make([]float32, len(q.Legal))
					legalSoftmax(a, pf[i*model.PolicySize:(i+1)*model.PolicySize], q.Pos, q.Legal)
					legalSoftmax(b, pi[i*model.PolicySize:(i+1)*model.PolicySize], q.Pos, q.Legal)
					if argmax(a) == argmax(b) {
						agree++
					}
					for j := range a {
						worstP = math.Max(worstP, math.Abs(float64(a[j]-b[j])))
					}
					va := softmax3([3]float32(wf[i*3 : i*3+3]))
					vb := softmax3([3]float32(wi[i*3 : i*3+3]))
					for k := range va {
						worstV = math.Max(worstV, math.Abs(float64(va[k]-vb[k])))
					}
					sumE += math.Abs(float64(va[0]+va[1]/2) - float64(vb[0]+vb[1]/2))
				}
			}
			meanE := sumE / float64(len(qs))
			t.Logf("%s: worst prior difference %.4f, worst WDL difference %.4f, mean |dE| %.5f, best move agrees in %d of %d", name, worstP, worstV, meanE, agree, len(qs))
			if worstP > int8PriorTol || worstV > int8WDLTol || meanE > int8MeanTol {
				t.Errorf("int8 differs from fp32 by %.4f (priors), %.4f (WDL), %.5f (mean dE); tolerances %.2f, %.2f, %.2f", worstP, worstV, meanE, int8PriorTol, int8WDLTol, int8MeanTol)
			}
			if worstP == 0 && worstV == 0 {
				t.Error("int8 gives exactly the fp32 outputs: it is not running in int8")
			}
		})
	}
}

// Calibration is deterministic and sets the step of every int8 layer; the
// input convolution stays float32.
func TestInt8Calibration(t *testing.T) {
	net := modeltest.TinyNet(t, 5)
	a, err := newInt8Backend(net)
	if err != nil {
		t.Fatal(err)
	}
	b, err := newInt8Backend(net)
	if err != nil {
		t.Fatal(err)
	}
	ia, ib := a.(*int8Backend), b.(*int8Backend)
	for i, l := range ia.inf.layers {
		if ia.ranges[i] != ib.ranges[i] {
			t.Errorf("layer %s: calibrated %v then %v", l.Name, ia.ranges[i], ib.ranges[i])
		}
		want := l.In >= 0
		if (ia.packed[i] != nil) != want {
			t.Errorf("layer %s (%s) runs in int8: %v, want %v", l.Name, l.Kind, ia.packed[i] != nil, want)
		}
		if want && (!(ia.ranges[i] > 0) || ia.packed[i].InScale() != ia.ranges[i]/255) {
			t.Errorf("layer %s: calibrated range %v, input step %v", l.Name, ia.ranges[i], ia.packed[i].InScale())
		}
	}
}

// Where the CPU lacks AVX512_VNNI and FEAT_DotProd (forced here), "int8" is refused with a
// clear error, and "auto" never picks it; where it has it, "int8" can be
// forced and an evaluator runs it.
func TestInt8Selection(t *testing.T) {
	saved := int8Available
	defer func() { int8Available = saved }()
	int8Available = func() bool { return false }
	if _, err := ResolveBackend("int8"); err == nil || !strings.Contains(err.Error(), "AVX512_VNNI") {
		t.Errorf("int8 on a CPU without AVX512_VNNI: error %v, want one naming AVX512_VNNI", err)
	}
	int8Available = func() bool { return true }
	if got, _ := ResolveBackend("auto"); got == "int8" {
		t.Error("auto chose int8")
	}
	int8Available = saved
	if !kernel.I8Native() {
		t.Skip("this CPU has neither AVX512_VNNI nor FEAT_DotProd: the forced int8 evaluator is not available")
	}
	ev, err := OpenEvaluator(modeltest.TinyNet(t, 3), EvaluatorOptions{Backend: "int8"})
	if err != nil {
		t.Fatal(err)
	}
	defer ev.Close()
	if ev.Backend() != "int8" {
		t.Errorf("evaluator runs %s, want int8", ev.Backend())
	}
	q := modeltest.RandomPositions(rand.New(rand.NewSource(4)), 1)[0]
	var got mcts.Evaluation
	if err := ev.Evaluate(context.Background(), q, &got); err != nil {
		t.Fatal(err)
	}
	want := reference(t, modeltest.TinyNet(t, 3), q)
	for k := range want.WDL {
		if math.Abs(float64(got.WDL[k]-want.WDL[k])) > int8WDLTol {
			t.Errorf("int8 evaluator WDL %v, fp32 %v", got.WDL, want.WDL)
		}
	}
}
