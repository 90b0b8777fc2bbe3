package mcts

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
)

type goldenStep struct {
	visits []int
	move   string
	value  float32
}

// TestTechniquesOffUnchanged holds the search with the solver off to the
// results of the search before the techniques existed (the solver, and
// the forced playouts and Gumbel search it once had; recorded with the
// code of that commit): three moves of a game each, with noise and
// temperature from a fixed seed, tree reuse included.
func TestTechniquesOffUnchanged(t *testing.T) {
	golden := []struct {
		fen   string
		par   int
		noise bool
		steps []goldenStep
	}{
		{"W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12", 1, true, []goldenStep{{[]int{41, 55, 41, 45, 49, 35, 33}, "22-18", 0.012860509}, {[]int{44, 57, 55, 13, 40, 45, 45}, "11-14", 0.019290764}, {[]int{56}, "18x11", -0.016921721}}},
		{"W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12", 4, true, []goldenStep{{[]int{41, 55, 41, 45, 49, 35, 33}, "22-18", 0.012860509}, {[]int{44, 57, 55, 13, 40, 45, 45}, "11-14", 0.019290764}, {[]int{56}, "18x11", -0.016921721}}},
		{"W:W10,17,18,19,26:B9,16,28", 1, false, []goldenStep{{[]int{53, 25, 29, 32, 32, 53, 11, 32, 32}, "18-14", 0.52134323}, {[]int{56, 102, 44, 97}, "28-32", -0.50195915}, {[]int{95, 31, 9, 31, 29, 75, 29}, "10-5", 0.49322844}}},
		{"W:WK5,K6:B3", 2, true, []goldenStep{{[]int{7, 12, 10, 9, 11, 6, 244}, "6-11", 0.9235102}, {[]int{122, 177}, "3-6", -0.99582785}, {[]int{121}, "11x2", 0.9965802}}},
	}
	for _, tc := range golden {
		g := game(t, tc.fen)
		s := New(&materialEval{}, Options{Parallel: tc.par, Temperature: TemperatureSchedule(100, 1, 0), FPUReduction: StandardFPUReduction, DirichletFraction: StandardDirichletFraction})
		rng := rand.New(rand.NewPCG(7, 11))
		for i, want := range tc.steps {
			res, err := s.Run(context.Background(), g, Limit{Visits: 300, Noise: tc.noise}, rng)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(res.Visits, want.visits) || res.Move.String() != want.move || res.Value != want.value {
				t.Errorf("%s parallel %d step %d: visits %v move %v value %v, want %v %v %v",
					tc.fen, tc.par, i, res.Visits, res.Move, res.Value, want.visits, want.move, want.value)
			}
			if res.Proof != ProofNone {
				t.Errorf("%s step %d: proof %v with the techniques off", tc.fen, i, res.Proof)
			}
			g.PlayUnchecked(res.Move)
		}
	}
}
