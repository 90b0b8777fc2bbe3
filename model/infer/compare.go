package infer

import (
	"context"
	"fmt"
	"math"
	"sync"

	"dama/mcts"
	"dama/model"
)

// Agreement compares two evaluators of the same network (e.g. a reduced
// precision backend against fp32) over the same positions: the accuracy
// criteria of issue 12.
type Agreement struct {
	// Positions is the number of positions compared.
	Positions int
	// TopMove is the number of positions where both put the highest prior
	// on the same move.
	TopMove int
	// MeanDE and MaxDE are the mean and largest absolute difference of the
	// expected score, win + draw/2, of the side to move.
	MeanDE, MaxDE float64
	// MaxPrior is the largest absolute difference of one move's prior.
	MaxPrior float64
}

// TopMoveShare is the fraction of positions whose top move agrees.
func (a Agreement) TopMoveShare() float64 {
	if a.Positions == 0 {
		return 0
	}
	return float64(a.TopMove) / float64(a.Positions)
}

// MeetsBar reports whether the agreement meets the accuracy bar of issue
// 12 for a backend of reduced precision: the top move agrees in at least
// 99% of the positions, |dE| is at most 0.01 on average and 0.05 at most.
func (a Agreement) MeetsBar() bool {
	return a.TopMoveShare() >= 0.99 && a.MeanDE <= 0.01 && a.MaxDE <= 0.05
}

// String is the summary line of a comparison.
func (a Agreement) String() string {
	return fmt.Sprintf("%d positions: top move agrees in %.2f%% (%d differ), |dE| mean %.5f max %.5f, |dprior| max %.5f",
		a.Positions, 100*a.TopMoveShare(), a.Positions-a.TopMove, a.MeanDE, a.MaxDE, a.MaxPrior)
}

// Compare evaluates every query with a and b and measures how far they
// agree; par goroutines ask at once (at least 1), so that batching
// evaluators fill their batches. Queries without legal moves are skipped.
func Compare(ctx context.Context, a, b mcts.Evaluator, qs []mcts.Query, par int) (Agreement, error) {
	par = max(par, 1)
	parts := make([]Agreement, par)
	sums := make([]float64, par)
	errs := make([]error, par)
	var wg sync.WaitGroup
	for w := range par {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := &parts[w]
			var ea, eb mcts.Evaluation
			for i := w; i < len(qs); i += par {
				q := qs[i]
				if len(q.Legal) == 0 {
					continue
				}
				if err := a.Evaluate(ctx, q, &ea); err != nil {
					errs[w] = err
					return
				}
				if err := b.Evaluate(ctx, q, &eb); err != nil {
					errs[w] = err
					return
				}
				r.Positions++
				if argmax(ea.Priors) == argmax(eb.Priors) {
					r.TopMove++
				}
				for i := range ea.Priors {
					r.MaxPrior = math.Max(r.MaxPrior, math.Abs(float64(ea.Priors[i]-eb.Priors[i])))
				}
				d := math.Abs(expectedScore(ea.WDL) - expectedScore(eb.WDL))
				sums[w] += d
				r.MaxDE = math.Max(r.MaxDE, d)
			}
		}()
	}
	wg.Wait()
	var r Agreement
	var sum float64
	for w, p := range parts {
		if errs[w] != nil {
			return Agreement{}, errs[w]
		}
		r.Positions += p.Positions
		r.TopMove += p.TopMove
		r.MaxDE = math.Max(r.MaxDE, p.MaxDE)
		r.MaxPrior = math.Max(r.MaxPrior, p.MaxPrior)
		sum += sums[w]
	}
	if r.Positions > 0 {
		r.MeanDE = sum / float64(r.Positions)
	}
	return r, nil
}

// argmax returns the index of the largest element, the first on ties.
func argmax(x []float32) int {
	best := 0
	for i, v := range x {
		if v > x[best] {
			best = i
		}
	}
	return best
}

func expectedScore(wdl [3]float32) float64 {
	return float64(wdl[0]) + float64(wdl[1])/2
}

// CompareBackends opens net on the backends named a and b, each batching
// up to par positions, and compares them on qs (Compare, par goroutines
// asking at once); it returns the agreement and the backends' names, auto
// resolved.
func CompareBackends(ctx context.Context, net *model.Network, qs []mcts.Query, a, b string, par int) (Agreement, [2]string, error) {
	var names [2]string
	var evs [2]*Evaluator
	for i, name := range []string{a, b} {
		ev, err := OpenEvaluator(net, EvaluatorOptions{MaxBatch: par, Backend: name})
		if err != nil {
			return Agreement{}, names, err
		}
		defer ev.Close()
		evs[i], names[i] = ev, ev.Backend()
	}
	r, err := Compare(ctx, evs[0], evs[1], qs, par)
	return r, names, err
}
