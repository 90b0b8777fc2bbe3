package infer

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"testing"

	"dama/mcts"
	"dama/model"
	"dama/model/modeltest"
)

// reducedDiff measures how far a reduced-precision backend differs from
// fp32 on 64 random positions of the seeded network of a preset (with
// batch norms worth folding).
type reducedDiff struct {
	worstP, worstV float64 // largest |prior difference| of a legal move, of W, D or L
	meanE          float64 // mean |expected score difference|
	agree, n       int     // positions whose best move agrees, of n
}

func (d reducedDiff) String() string {
	return fmt.Sprintf("worst prior difference %.4f, worst WDL difference %.4f, mean |dE| %.5f, best move agrees in %d of %d",
		d.worstP, d.worstV, d.meanE, d.agree, d.n)
}

// diffFromFP32 builds the network of preset name (seed 31) for fp32 and
// newBackend and runs both on the same batches.
func diffFromFP32(t *testing.T, name string, newBackend func(*model.Network) (Backend, error)) reducedDiff {
	t.Helper()
	cfg, _ := model.Preset(name)
	net, rng := modeltest.PerturbedNet(cfg, 31)
	const B = 16
	var runners [2]Runner // fp32, then newBackend's
	for k, build := range []func(*model.Network) (Backend, error){newFP32Backend, newBackend} {
		b, err := build(net)
		if err != nil {
			t.Fatal(err)
		}
		runners[k] = b.NewRunner(B)
	}
	rf, rr := runners[0], runners[1]
	qs := modeltest.RandomPositions(rng, 64)
	input := make([]float32, B*model.InputSize)
	pf, pr := make([]float32, B*model.PolicySize), make([]float32, B*model.PolicySize)
	wf, wr := make([]float32, B*model.ValueSize), make([]float32, B*model.ValueSize)
	d := reducedDiff{n: len(qs)}
	var sumE float64
	for start := 0; start < len(qs); start += B {
		modeltest.EncodeAll(input, qs[start:start+B])
		rf.Forward(input, B, pf, wf)
		rr.Forward(input, B, pr, wr)
		for i := 0; i < B; i++ {
			q := qs[start+i]
			a, b := make([]float32, len(q.Legal)), make([]float32, len(q.Legal))
			legalSoftmax(a, pf[i*model.PolicySize:(i+1)*model.PolicySize], q.Pos, q.Legal)
			legalSoftmax(b, pr[i*model.PolicySize:(i+1)*model.PolicySize], q.Pos, q.Legal)
			if argmax(a) == argmax(b) {
				d.agree++
			}
			for j := range a {
				d.worstP = math.Max(d.worstP, math.Abs(float64(a[j]-b[j])))
			}
			va := softmax3([3]float32(wf[i*3 : i*3+3]))
			vb := softmax3([3]float32(wr[i*3 : i*3+3]))
			for k := range va {
				d.worstV = math.Max(d.worstV, math.Abs(float64(va[k]-vb[k])))
			}
			sumE += math.Abs(float64(va[0]+va[1]/2) - float64(vb[0]+vb[1]/2))
		}
	}
	d.meanE = sumE / float64(len(qs))
	return d
}

// checkForcedEvaluator opens an evaluator of a tiny network forced to
// backend and checks it runs that backend and gives fp32's WDL within tol.
func checkForcedEvaluator(t *testing.T, backend string, tol float64) {
	t.Helper()
	ev, err := OpenEvaluator(modeltest.TinyNet(t, 3), EvaluatorOptions{Backend: backend})
	if err != nil {
		t.Fatal(err)
	}
	defer ev.Close()
	if ev.Backend() != backend {
		t.Errorf("evaluator runs %s, want %s", ev.Backend(), backend)
	}
	q := modeltest.RandomPositions(rand.New(rand.NewSource(4)), 1)[0]
	var got mcts.Evaluation
	if err := ev.Evaluate(context.Background(), q, &got); err != nil {
		t.Fatal(err)
	}
	want := reference(t, modeltest.TinyNet(t, 3), q)
	for k := range want.WDL {
		if math.Abs(float64(got.WDL[k]-want.WDL[k])) > tol {
			t.Errorf("%s evaluator WDL %v, fp32 %v", backend, got.WDL, want.WDL)
		}
	}
}
