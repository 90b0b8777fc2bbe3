package checkpoints

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"dama/mcts"
	"dama/model/infer"
	"dama/rules"
)

// The int8 backend against fp32 on real positions: the shipped (trained)
// model's own games, moves drawn from its fp32 priors (seeded; a different
// seed from the backend's calibration games). It guards the backend, not
// issue 12's bar (top move >= 99%): the model shipped on 5 December 2026
// agrees in 98.54% of 14,487 positions of its self-play games (the two
// models before it 98.58% and 98.70% on the same positions; an older one
// measured 99.31% on its own: docs/performance.md, Inference backends), so
// a top-move bar of 98% on these 532 positions fails by chance about one
// time in six. The bar is 97% (a kernel or calibration fault agrees far
// less), mean |dE| <= 0.01 and max <= 0.05.
func TestShippedInt8MatchesFP32(t *testing.T) {
	if _, err := infer.ResolveBackend("int8"); err != nil {
		t.Skip("this CPU has neither AVX2 nor FEAT_DotProd: int8 is refused here (its portable kernel is tested in dama/model/infer)")
	}
	ck, err := Shipped()
	if errors.Is(err, ErrNoModel) {
		t.Skip("no model shipped")
	}
	if err != nil {
		t.Fatal(err)
	}
	fp, err := infer.OpenEvaluator(ck.Net, infer.EvaluatorOptions{Backend: infer.BackendFP32})
	if err != nil {
		t.Fatal(err)
	}
	defer fp.Close()
	i8, err := infer.OpenEvaluator(ck.Net, infer.EvaluatorOptions{Backend: "int8"})
	if err != nil {
		t.Fatal(err)
	}
	defer i8.Close()
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(5, 6))
	var qs []mcts.Query
	var ev mcts.Evaluation
	for len(qs) < 400 {
		g := rules.NewGame(rules.Start())
		for ply := 0; ply < 200; ply++ {
			legal := g.Legal(nil)
			if len(legal) == 0 {
				break
			}
			q := mcts.Query{Pos: g.Position(), Legal: legal, Repetitions: g.Repetitions(), QuietPlies: g.QuietPlies()}
			qs = append(qs, q)
			ev.Priors = make([]float32, len(legal))
			if err := fp.Evaluate(ctx, q, &ev); err != nil {
				t.Fatal(err)
			}
			x, k := rng.Float32(), 0
			for k < len(legal)-1 && x >= ev.Priors[k] {
				x -= ev.Priors[k]
				k++
			}
			g.PlayUnchecked(legal[k])
		}
	}
	r, err := infer.Compare(ctx, i8, fp, qs, 8)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("int8 against fp32: %s", r)
	if r.TopMoveShare() < 0.97 || r.MeanDE > 0.01 || r.MaxDE > 0.05 {
		t.Errorf("int8 misses the bar: %s", r)
	}
}
