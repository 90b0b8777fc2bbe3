package infer

import (
	"context"
	"math"
	"math/rand"
	"testing"

	"dama/mcts"
	"dama/model/modeltest"
)

// shiftEval answers like a fixed evaluator, but on every position whose
// index (its QuietPlies field here) is odd it moves the top prior to the
// last legal move and lowers the win probability by dw.
type shiftEval struct {
	dw float32
}

func (s shiftEval) Evaluate(_ context.Context, q mcts.Query, e *mcts.Evaluation) error {
	e.Priors = make([]float32, len(q.Legal))
	for i := range e.Priors {
		e.Priors[i] = 0
	}
	e.Priors[0] = 1
	e.WDL = [3]float32{0.5, 0.5, 0}
	if q.QuietPlies%2 == 1 && s.dw != 0 {
		e.Priors[0], e.Priors[len(e.Priors)-1] = 0, 1
		e.WDL = [3]float32{0.5 - s.dw, 0.5 + s.dw, 0}
	}
	return nil
}

func TestCompareCounts(t *testing.T) {
	var qs []mcts.Query
	for i, q := range modeltest.RandomPositions(rand.New(rand.NewSource(5)), 400) {
		if len(q.Legal) < 2 {
			continue
		}
		mq := q
		mq.QuietPlies = i
		qs = append(qs, mq)
	}
	odd := 0
	for _, q := range qs {
		odd += q.QuietPlies % 2
	}
	r, err := Compare(context.Background(), shiftEval{}, shiftEval{dw: 0.1}, qs, 3)
	if err != nil {
		t.Fatal(err)
	}
	// An odd position differs in its top move and by dw/2 in expected score.
	if r.Positions != len(qs) || r.TopMove != len(qs)-odd {
		t.Errorf("got %d positions, %d agreeing; want %d and %d", r.Positions, r.TopMove, len(qs), len(qs)-odd)
	}
	if want := 0.05 * float64(odd) / float64(len(qs)); math.Abs(r.MeanDE-want) > 1e-6 || math.Abs(r.MaxDE-0.05) > 1e-6 || r.MaxPrior != 1 {
		t.Errorf("mean dE %g (want %g), max dE %g (want 0.05), max dprior %g (want 1)", r.MeanDE, want, r.MaxDE, r.MaxPrior)
	}
}

func TestCompareBF16OnRandomPositions(t *testing.T) {
	rng := rand.New(rand.NewSource(8))
	net := modeltest.TinyNet(t, 8)
	modeltest.PerturbStats(net, rng)
	var qs []mcts.Query
	for _, q := range modeltest.RandomPositions(rng, 200) {
		qs = append(qs, q)
	}
	fp := NewEvaluator(net, EvaluatorOptions{MaxBatch: 8, Backend: BackendFP32})
	defer fp.Close()
	same, err := Compare(context.Background(), fp, fp, qs, 4)
	if err != nil {
		t.Fatal(err)
	}
	if same.TopMove != len(qs) || same.MaxDE != 0 {
		t.Errorf("fp32 against itself: %v", same)
	}
	bfb, err := newBF16Backend(net) // the portable kernels where the CPU lacks AVX512_BF16
	if err != nil {
		t.Fatal(err)
	}
	bf := newBackendEvaluator(bfb, EvaluatorOptions{MaxBatch: 8})
	defer bf.Close()
	r, err := Compare(context.Background(), bf, fp, qs, 4)
	if err != nil {
		t.Fatal(err)
	}
	if r.Positions != len(qs) || r.MaxDE > bf16WDLTol || r.MaxPrior > bf16PriorTol || r.TopMoveShare() < 0.9 {
		t.Errorf("bf16 against fp32: %v", r)
	}
}

// TestCompareBackends: fp32 against itself on a tiny network agrees
// everywhere and meets the bar; an unknown backend is an error.
func TestCompareBackends(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	net := modeltest.TinyNet(t, 3)
	qs := modeltest.RandomPositions(rng, 50)
	r, names, err := CompareBackends(context.Background(), net, qs, BackendFP32, BackendFP32, 4)
	if err != nil {
		t.Fatal(err)
	}
	if names != [2]string{BackendFP32, BackendFP32} || r.TopMove != r.Positions || r.Positions == 0 || !r.MeetsBar() {
		t.Errorf("fp32 against fp32: %v, backends %v, meets the bar %v", r, names, r.MeetsBar())
	}
	if _, _, err := CompareBackends(context.Background(), net, qs, "bogus", BackendFP32, 4); err == nil {
		t.Error("an unknown backend compared")
	}
	for _, a := range []Agreement{{Positions: 100, TopMove: 98}, {Positions: 100, TopMove: 100, MeanDE: 0.02}, {Positions: 100, TopMove: 100, MaxDE: 0.06}} {
		if a.MeetsBar() {
			t.Errorf("%v meets the bar", a)
		}
	}
}
