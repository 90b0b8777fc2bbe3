package mcts

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"dama/rules"
)

// skewedEval gives the first legal move nearly all the prior, so that
// without forced playouts the other children get few visits.
type skewedEval struct{}

func (skewedEval) Evaluate(_ context.Context, q Query, out *Evaluation) error {
	for i := range out.Priors {
		out.Priors[i] = 0.02 / float32(len(q.Legal))
	}
	out.Priors[0] += 0.98
	out.WDL = materialWDL(q.Pos)
	return nil
}

func TestForcedPlayouts(t *testing.T) {
	g := game(t, rules.StartFEN)
	const k = 2
	short := 0 // children short of their forced playouts without them
	for seed := uint64(0); seed < 8; seed++ {
		for _, on := range []bool{true, false} {
			opt := Options{FPUReduction: StandardFPUReduction, DirichletFraction: 0.5}
			if on {
				opt.ForcedPlayoutsK = k
			}
			s := New(skewedEval{}, opt)
			res, err := s.Run(context.Background(), g, Limit{Visits: 400, Noise: true}, rand.New(rand.NewPCG(seed, 1)))
			if err != nil {
				t.Fatal(err)
			}
			total := 0
			for _, n := range res.Visits {
				total += n
			}
			for i, n := range res.Visits {
				f := ForcedPlayouts(k, float64(res.SearchPriors[i]), float64(total))
				if float64(n) < f-1 {
					if on {
						t.Errorf("seed %d: %v has %d visits, fewer than its %.1f forced playouts less one", seed, res.Moves[i], n, f)
					} else {
						short++
					}
				}
			}
		}
	}
	if short == 0 {
		t.Errorf("no child short of its forced playouts without them: the test shows nothing")
	}
}

func TestForcedPlayoutsNeedNoise(t *testing.T) {
	g := game(t, rules.StartFEN)
	a, err := New(skewedEval{}, Options{ForcedPlayoutsK: 2}).Run(context.Background(), g, Limit{Visits: 300}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := New(skewedEval{}, Options{}).Run(context.Background(), g, Limit{Visits: 300}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a.Visits {
		if a.Visits[i] != b.Visits[i] {
			t.Fatalf("without noise: visits %v with forced playouts, %v without", a.Visits, b.Visits)
		}
	}
}

func TestPruneVisits(t *testing.T) {
	g := game(t, rules.StartFEN)
	const k, cpuct = 2, DefaultCPuct
	pruned := 0
	for seed := uint64(0); seed < 8; seed++ {
		s := New(skewedEval{}, Options{FPUReduction: StandardFPUReduction, DirichletFraction: 0.5, ForcedPlayoutsK: k})
		res, err := s.Run(context.Background(), g, Limit{Visits: 400, Noise: true}, rand.New(rand.NewPCG(seed, 1)))
		if err != nil {
			t.Fatal(err)
		}
		got := s.PrunedVisits(res)
		best, total := 0, 0
		for i, n := range res.Visits {
			total += n
			if n > res.Visits[best] {
				best = i
			}
		}
		if got[best] != res.Visits[best] {
			t.Errorf("seed %d: the most visited child went from %d to %d visits", seed, res.Visits[best], got[best])
		}
		bestScore := float64(res.Q[best]) + cpuct*float64(res.SearchPriors[best])*math.Sqrt(float64(total))/float64(1+res.Visits[best])
		for i, n := range res.Visits {
			f := math.Floor(ForcedPlayouts(k, float64(res.SearchPriors[i]), float64(total)))
			switch {
			case got[i] > n || got[i] < 0:
				t.Errorf("seed %d: %v from %d to %d visits", seed, res.Moves[i], n, got[i])
			case got[i] == 1:
				t.Errorf("seed %d: %v left with one visit, not pruned", seed, res.Moves[i])
			case got[i] == 0 && n > 0 && float64(n)-f > 1 && i != best:
				// Dropped entirely: only allowed when the forced
				// playouts (or the PUCT bound) left at most one.
				u := float64(res.Q[i]) + cpuct*float64(res.SearchPriors[i])*math.Sqrt(float64(total))/2
				if u > bestScore {
					t.Errorf("seed %d: %v dropped from %d visits with %.0f forced", seed, res.Moves[i], n, f)
				}
			case got[i] > 0 && float64(n-got[i]) > f:
				t.Errorf("seed %d: %v lost %d visits, more than its %.0f forced playouts", seed, res.Moves[i], n-got[i], f)
			}
			if got[i] > 0 && i != best {
				// Still at or below the best child's PUCT score.
				if u := float64(res.Q[i]) + cpuct*float64(res.SearchPriors[i])*math.Sqrt(float64(total))/float64(1+got[i]); u > bestScore+1e-9 {
					t.Errorf("seed %d: %v at %d visits scores %v above the best's %v", seed, res.Moves[i], got[i], u, bestScore)
				}
			}
			if got[i] < n {
				pruned++
			}
		}
	}
	if pruned == 0 {
		t.Errorf("nothing pruned in 8 searches with forced playouts")
	}
	// Off: the visits unchanged.
	res := Result{Visits: []int{10, 3, 1}, Q: []float32{0, 0, 0}, SearchPriors: []float32{0.5, 0.3, 0.2}}
	if got := pruneVisits(res, cpuct, 0); got[0] != 10 || got[1] != 3 || got[2] != 1 {
		t.Errorf("k = 0: %v, want the visits unchanged", got)
	}
}

func TestPruneVisitsArithmetic(t *testing.T) {
	// Best child: 100 visits, Q 0.1, P 0.5; N = 130, sqrt(N) = 11.40.
	// Its score: 0.1 + 1.5*0.5*11.40/101 = 0.1847.
	// Child 1: 25 visits, Q 0, P 0.4: forced sqrt(2*0.4*130) = 10.2 -> 10;
	// the PUCT bound: 1.5*0.4*11.40/0.1847 - 1 = 36.0 > 25, so it keeps 25.
	// Child 2: 5 visits, Q 0.1, P 0.1: forced sqrt(26) = 5.1 -> 5, bound
	// 1.5*0.1*11.40/0.0847 - 1 = 19.2: keeps 5.
	res := Result{
		Visits:       []int{100, 25, 5},
		Q:            []float32{0.1, 0, 0.1},
		SearchPriors: []float32{0.5, 0.4, 0.1},
	}
	got := pruneVisits(res, 1.5, 2)
	if got[0] != 100 || got[1] != 25 || got[2] != 5 {
		t.Errorf("got %v, want [100 25 5] (the PUCT bound keeps them)", got)
	}
	// With a best prior of 0.94 the best child scores 0.1 +
	// 1.5*0.94*11.40/101 = 0.2592 and the bound falls below the forced
	// playouts. Child 1: P 0.05, forced sqrt(13) = 3.6 -> 3, bound
	// ceil(1.5*0.05*11.40/0.2592 - 1) = 3: keeps 25-3 = 22. Child 2: P 0.01,
	// forced sqrt(2.6) = 1.6 -> 1, bound ceil(0.171/0.159 - 1) = 1: keeps 4.
	res.SearchPriors = []float32{0.94, 0.05, 0.01}
	got = pruneVisits(res, 1.5, 2)
	if got[0] != 100 || got[1] != 22 || got[2] != 4 {
		t.Errorf("got %v, want [100 22 4]", got)
	}
	// A child left with one visit is dropped.
	res = Result{Visits: []int{50, 2}, Q: []float32{0, -0.5}, SearchPriors: []float32{0.9, 0.1}}
	if got := pruneVisits(res, 1.5, 2); got[0] != 50 || got[1] != 0 {
		t.Errorf("got %v, want [50 0]", got)
	}
}
