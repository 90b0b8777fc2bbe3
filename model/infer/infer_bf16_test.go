package infer

import (
	"context"
	"math"
	"math/rand"
	"testing"

	"dama/mcts"
	"dama/model"
	"dama/model/kernel"
	"dama/model/modeltest"
)

// The bf16 backend against fp32 on random positions of randomly
// initialised networks (bfloat16 keeps 8 bits of mantissa): the worst
// differences measured are below 0.006 (workstation WDL); the tolerances leave room for
// other seeds.
const (
	bf16PriorTol = 0.01 // largest |prior difference| of a legal move
	bf16WDLTol   = 0.01 // largest |W, D or L difference|
)

func TestBF16MatchesFP32(t *testing.T) {
	for _, name := range []string{"tiny", "small", "workstation"} {
		t.Run(name, func(t *testing.T) {
			if name == "workstation" && testing.Short() && !kernel.BF16Native() {
				t.Skip("the portable bf16 kernel is slow: workstation only without -short")
			}
			cfg, _ := model.Preset(name)
			rng := rand.New(rand.NewSource(31))
			net := model.NewNetwork(cfg, rng)
			modeltest.PerturbStats(net, rng)
			fp, err := newFP32Backend(net)
			if err != nil {
				t.Fatal(err)
			}
			bf, err := newBF16Backend(net)
			if err != nil {
				t.Fatal(err)
			}
			qs := modeltest.RandomPositions(rng, 64)
			const B = 16
			rf, rb := fp.NewRunner(B), bf.NewRunner(B)
			input := make([]float32, B*model.InputSize)
			pf, pb := make([]float32, B*model.PolicySize), make([]float32, B*model.PolicySize)
			wf, wb := make([]float32, B*model.ValueSize), make([]float32, B*model.ValueSize)
			var worstP, worstV float64
			agree := 0
			for start := 0; start < len(qs); start += B {
				for i := 0; i < B; i++ {
					q := qs[start+i]
					model.Encode(input[i*model.InputSize:(i+1)*model.InputSize], q.Pos, q.Repetitions, q.QuietPlies)
				}
				rf.Forward(input, B, pf, wf)
				rb.Forward(input, B, pb, wb)
				for i := 0; i < B; i++ {
					q := qs[start+i]
					a, b := make([]float32, len(q.Legal)), make([]float32, len(q.Legal))
					legalSoftmax(a, pf[i*model.PolicySize:(i+1)*model.PolicySize], q.Pos, q.Legal)
					legalSoftmax(b, pb[i*model.PolicySize:(i+1)*model.PolicySize], q.Pos, q.Legal)
					best := func(p []float32) int {
						k := 0
						for j := range p {
							if p[j] > p[k] {
								k = j
							}
						}
						return k
					}
					if best(a) == best(b) {
						agree++
					}
					for j := range a {
						worstP = math.Max(worstP, math.Abs(float64(a[j]-b[j])))
					}
					va := softmax3([3]float32(wf[i*3 : i*3+3]))
					vb := softmax3([3]float32(wb[i*3 : i*3+3]))
					for k := range va {
						worstV = math.Max(worstV, math.Abs(float64(va[k]-vb[k])))
					}
				}
			}
			t.Logf("%s: worst prior difference %.4f, worst WDL difference %.4f, best move agrees in %d of %d", name, worstP, worstV, agree, len(qs))
			if worstP > bf16PriorTol || worstV > bf16WDLTol {
				t.Errorf("bf16 differs from fp32 by %.4f (priors) and %.4f (WDL), tolerances %.2f and %.2f", worstP, worstV, bf16PriorTol, bf16WDLTol)
			}
			if worstP == 0 && worstV == 0 {
				t.Error("bf16 gives exactly the fp32 outputs: it is not running in bfloat16")
			}
		})
	}
}

// Where the CPU lacks AVX512_BF16 (forced here), "bf16" is refused with a
// clear error and "auto" falls back to fp32; where it has it, "bf16" can be
// forced and an evaluator runs it.
func TestBF16Selection(t *testing.T) {
	saved := bf16Available
	defer func() { bf16Available = saved }()
	bf16Available = func() bool { return false }
	if _, err := ResolveBackend("bf16"); err == nil {
		t.Error("bf16 accepted on a CPU without AVX512_BF16")
	}
	if got, err := ResolveBackend("auto"); err != nil || got != "fp32" {
		t.Errorf("auto without AVX512_BF16 = %q, %v; want fp32", got, err)
	}
	bf16Available = saved
	if got, err := ResolveBackend("auto"); err != nil || (got == "bf16") != kernel.BF16Preferred() {
		t.Errorf("auto = %q, %v; want bf16 exactly where the CPU has AVX512_BF16 (here: %v)", got, err, kernel.BF16Preferred())
	}
	if !kernel.BF16Native() {
		t.Skip("this CPU has no AVX512_BF16: the forced bf16 evaluator is not available")
	}
	ev, err := OpenEvaluator(modeltest.TinyNet(t, 3), EvaluatorOptions{Backend: "bf16"})
	if err != nil {
		t.Fatal(err)
	}
	defer ev.Close()
	if ev.Backend() != "bf16" {
		t.Errorf("evaluator runs %s, want bf16", ev.Backend())
	}
	q := modeltest.RandomPositions(rand.New(rand.NewSource(4)), 1)[0]
	var got mcts.Evaluation
	if err := ev.Evaluate(context.Background(), q, &got); err != nil {
		t.Fatal(err)
	}
	want := reference(t, modeltest.TinyNet(t, 3), q)
	for k := range want.WDL {
		if math.Abs(float64(got.WDL[k]-want.WDL[k])) > bf16WDLTol {
			t.Errorf("bf16 evaluator WDL %v, fp32 %v", got.WDL, want.WDL)
		}
	}
}
