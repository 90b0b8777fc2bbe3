package mcts

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"dama/rules"
)

// geometricEval gives the i-th legal move a prior proportional to 2^-i and a
// draw for a value.
type geometricEval struct{}

func (geometricEval) Evaluate(_ context.Context, q Query, out *Evaluation) error {
	var sum float32
	for i := range out.Priors {
		out.Priors[i] = float32(math.Pow(2, -float64(i)))
		sum += out.Priors[i]
	}
	for i := range out.Priors {
		out.Priors[i] /= sum
	}
	out.WDL = [3]float32{0, 1, 0}
	return nil
}

// TestPolicyTemperature checks that the priors a search expands with are
// the evaluator's raised to 1/T and normalised: flatter above 1, sharper
// below, unchanged at 0 and 1, and uniform at an infinite temperature.
func TestPolicyTemperature(t *testing.T) {
	g := game(t, rules.StartFEN)
	n := len(g.Legal(nil))
	want := func(temp float64) []float64 {
		w := make([]float64, n)
		var sum float64
		for i := range w {
			w[i] = math.Pow(math.Pow(2, -float64(i)), 1/temp)
			sum += w[i]
		}
		for i := range w {
			w[i] /= sum
		}
		return w
	}
	for _, tc := range []struct{ opt, exp float64 }{
		{0, 1}, {1, 1}, {2, 2}, {0.5, 0.5}, {1.6, 1.6}, {math.Inf(1), math.Inf(1)},
	} {
		s := New(geometricEval{}, Options{PolicyTemperature: tc.opt})
		res, err := s.Run(context.Background(), g, Limit{Visits: 50}, rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			t.Fatal(err)
		}
		w := want(tc.exp)
		for i, p := range res.Priors {
			if math.Abs(float64(p)-w[i]) > 1e-6 {
				t.Errorf("temperature %v: priors %v, want %v", tc.opt, res.Priors, w)
				break
			}
		}
	}
	// Below the root too: a flatter prior gives the first reply of the
	// root's first move a smaller share of that move's visits.
	share := func(temp float64) float64 {
		s := New(geometricEval{}, Options{PolicyTemperature: temp})
		if _, err := s.Run(context.Background(), g, Limit{Visits: 400}, rand.New(rand.NewPCG(1, 2))); err != nil {
			t.Fatal(err)
		}
		first := &s.nodes[s.nodes[0].first]
		return float64(s.nodes[first.first].n) / float64(first.n)
	}
	if a, b := share(1), share(3); !(b < a) {
		t.Errorf("first reply's share of its parent's visits: %.3f at temperature 3, %.3f at 1; want less", b, a)
	}
	if err := (Options{PolicyTemperature: -1}).Validate(); err == nil || !strings.Contains(err.Error(), "PolicyTemperature") {
		t.Errorf("negative temperature: %v, want an error naming PolicyTemperature", err)
	}
	if err := (Options{PolicyTemperature: math.NaN()}).Validate(); err == nil {
		t.Error("NaN temperature accepted")
	}
}
