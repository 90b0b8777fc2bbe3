package mcts

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"dama/rules"
)

// BenchmarkSearchTechniques measures the search alone, as BenchmarkSearch,
// with each technique on: fresh 1600-visit searches of the start position
// (with root noise, as in self-play) with an evaluator that costs nothing.
func BenchmarkSearchTechniques(b *testing.B) {
	cases := []struct {
		name string
		opt  Options
	}{
		{"puct", Options{}},
		{"solver", Options{Solver: true}},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			g := rules.NewGame(rules.Start())
			opt := tc.opt
			opt.FPUReduction, opt.DirichletFraction = StandardFPUReduction, StandardDirichletFraction // as in self-play
			s := New(instantEval{}, opt)
			rng := rand.New(rand.NewPCG(1, 2))
			const visits = 1600
			b.ReportAllocs()
			playouts := 0
			for b.Loop() {
				s.Reset()
				res, err := s.Run(context.Background(), g, Limit{Visits: visits, Noise: true}, rng)
				if err != nil {
					b.Fatal(err)
				}
				playouts += res.Playouts
			}
			b.ReportMetric(float64(playouts)/b.Elapsed().Seconds(), "playouts/s")
		})
	}
}

// BenchmarkSolverEndgames measures what the solver buys on the endgames of
// solverWins (forced wins in 1 to 5 plies, no noise), with the material
// evaluator and with one that knows nothing (uniform priors, an even
// value): the mean number of root visits after which the move played is
// a winning one for good (a position never solved within 3000 visits
// counts 3000 and one "unfound"), with and without the solver, and with
// it the mean visits to prove the win (a win not proven within 3000
// visits counts 3000 and one "unproved"); value@200 is the mean root value
// after 200 visits (1 is the exact value of a win).
func BenchmarkSolverEndgames(b *testing.B) {
	const limit = 3000
	for _, bc := range []struct {
		name   string
		ev     func() Evaluator
		solver bool
	}{
		{"material/plain", func() Evaluator { return &materialEval{} }, false},
		{"material/solver", func() Evaluator { return &materialEval{} }, true},
		{"uniform/plain", func() Evaluator { return instantEval{} }, false},
		{"uniform/solver", func() Evaluator { return instantEval{} }, true},
	} {
		solver := bc.solver
		b.Run(bc.name, func(b *testing.B) {
			var found, proved, unfound, unproved, value float64
			for b.Loop() {
				found, proved, unfound, unproved, value = 0, 0, 0, 0, 0
				for _, tc := range solverWins {
					g := game(b, tc.fen)
					win := winningMoves(g.Position(), tc.plies+4)
					s := New(bc.ev(), Options{Solver: solver, FPUReduction: StandardFPUReduction})
					since, proof := -1, -1
					for n := 2; n <= limit; n++ {
						res, err := s.Run(context.Background(), g, Limit{Visits: n}, nil)
						if err != nil {
							b.Fatal(err)
						}
						switch {
						case !slices.Contains(win, res.Move):
							since = -1
						case since < 0:
							since = n
						}
						if proof < 0 && res.Proof == ProofWin {
							proof = n
						}
						if n == 200 {
							value += float64(res.Value)
						}
					}
					if since < 0 {
						unfound++
						since = limit
					}
					found += float64(since)
					if proof < 0 {
						unproved++
						proof = limit
					}
					proved += float64(proof)
				}
			}
			n := float64(len(solverWins))
			b.ReportMetric(found/n, "visits-to-win")
			b.ReportMetric(unfound, "unfound")
			b.ReportMetric(value/n, "value@200")
			if solver {
				b.ReportMetric(proved/n, "visits-to-proof")
				b.ReportMetric(unproved, "unproved")
			}
		})
	}
}
