package mcts

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"dama/rules"
)

func TestHalvingSchedule(t *testing.T) {
	// m = 4, budget 16: two rounds; 16/(2*4) = 2 visits each for four
	// actions, then 16/(2*2) = 4 visits each for two.
	want := []int32{0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5}
	if got := halvingSchedule(4, 16); !slices.Equal(got, want) {
		t.Errorf("halvingSchedule(4, 16) = %v, want %v", got, want)
	}
	for _, m := range []int{1, 2, 3, 7, 16} {
		for _, budget := range []int{1, 5, 16, 63, 200} {
			seq := halvingSchedule(m, budget)
			if len(seq) != budget {
				t.Errorf("m %d budget %d: %d simulations", m, budget, len(seq))
			}
		}
	}
}

func TestGumbelSpendsTheBudget(t *testing.T) {
	g := game(t, rules.StartFEN) // 7 legal moves
	for _, par := range []int{1, 3} {
		s := New(instantEval{}, Options{Gumbel: true, GumbelM: 4, Parallel: par})
		res, err := s.Run(context.Background(), g, Limit{Visits: 17, Noise: true}, rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			t.Fatal(err)
		}
		// The root's own evaluation is a visit: 16 simulations, spent as
		// the schedule of TestHalvingSchedule says.
		var visited []int
		sum := 0
		for _, n := range res.Visits {
			sum += n
			if n > 0 {
				visited = append(visited, n)
			}
		}
		slices.Sort(visited)
		if sum != 16 || res.RootVisits != 17 || res.Playouts != 17 {
			t.Errorf("parallel %d: child visits %d, root %d, playouts %d; want 16, 17, 17", par, sum, res.RootVisits, res.Playouts)
		}
		if par == 1 && !slices.Equal(visited, []int{2, 2, 6, 6}) {
			t.Errorf("visits %v, want two actions with 2 and two with 6", res.Visits)
		}
		i := slices.Index(res.Moves, res.Move)
		if res.Visits[i] != slices.Max(res.Visits) {
			t.Errorf("parallel %d: played %v with %d visits, not a survivor (visits %v)", par, res.Move, res.Visits[i], res.Visits)
		}
	}
	// Tree reuse: the next Run adds exactly its budget.
	s := New(&materialEval{}, Options{Gumbel: true})
	rng := rand.New(rand.NewPCG(3, 4))
	res, err := s.Run(context.Background(), g, Limit{Visits: 100, Noise: true}, rng)
	if err != nil {
		t.Fatal(err)
	}
	g.PlayUnchecked(res.Move)
	res, err = s.Run(context.Background(), g, Limit{Visits: 100, Noise: true}, rng)
	if err != nil {
		t.Fatal(err)
	}
	if res.RootVisits != 100 || res.Playouts >= 100 || res.Playouts <= 0 {
		t.Errorf("reused tree: root visits %d playouts %d, want 100 with some reused", res.RootVisits, res.Playouts)
	}
}

func TestGumbelChoosesASampledAction(t *testing.T) {
	g := game(t, rules.StartFEN)
	for seed := uint64(0); seed < 20; seed++ {
		s := New(instantEval{}, Options{Gumbel: true, GumbelM: 2})
		res, err := s.Run(context.Background(), g, Limit{Visits: 40, Noise: true}, rand.New(rand.NewPCG(seed, 9)))
		if err != nil {
			t.Fatal(err)
		}
		sampled := 0
		for _, n := range res.Visits {
			if n > 0 {
				sampled++
			}
		}
		if sampled != 2 {
			t.Errorf("seed %d: %d actions visited, want the 2 sampled (visits %v)", seed, sampled, res.Visits)
		}
		if i := slices.Index(res.Moves, res.Move); res.Visits[i] == 0 {
			t.Errorf("seed %d: played %v, not among the sampled (visits %v)", seed, res.Move, res.Visits)
		}
	}
}

func TestGumbelPolicy(t *testing.T) {
	// The position of TestAvoidsLosingAPiece: one move hangs a man.
	g := game(t, "W:W10,17,18,19,26:B9,16,28")
	p := g.Position()
	var hanging rules.Move
	for _, m := range p.Legal(nil) {
		q := p.Play(m)
		if rs := q.Legal(nil); len(rs) > 0 && rs[0].IsCapture() {
			back := false
			for _, r := range rs {
				if w := q.Play(r).Legal(nil); len(w) > 0 && w[0].IsCapture() {
					back = true
				}
			}
			if !back {
				hanging = m
			}
		}
	}
	s := New(&materialEval{}, Options{Gumbel: true})
	res, err := s.Run(context.Background(), g, Limit{Visits: 200, Noise: true}, rand.New(rand.NewPCG(5, 6)))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Policy) != len(res.Moves) {
		t.Fatalf("policy of %d moves for %d", len(res.Policy), len(res.Moves))
	}
	var sum float64
	for _, x := range res.Policy {
		if x < 0 || math.IsNaN(float64(x)) {
			t.Fatalf("policy %v", res.Policy)
		}
		sum += float64(x)
	}
	if math.Abs(sum-1) > 1e-5 {
		t.Errorf("policy sums to %v", sum)
	}
	// Uniform priors: the policy orders the visited moves as their Q.
	for i := range res.Moves {
		for j := range res.Moves {
			if res.Visits[i] > 0 && res.Visits[j] > 0 && res.Q[i] > res.Q[j]+1e-6 && res.Policy[i] <= res.Policy[j] {
				t.Errorf("%v (Q %v) has policy %v, %v (Q %v) has %v", res.Moves[i], res.Q[i], res.Policy[i], res.Moves[j], res.Q[j], res.Policy[j])
			}
		}
	}
	h := slices.Index(res.Moves, hanging)
	m := slices.Index(res.Moves, res.Move)
	if res.Move == hanging || res.Policy[h] >= res.Policy[m]/2 {
		t.Errorf("hanging move %v policy %v, move played %v policy %v: want far less on the hanging move", hanging, res.Policy[h], res.Move, res.Policy[m])
	}
	if res.Policy[h] >= float32(1/float64(len(res.Moves))) {
		t.Errorf("hanging move keeps policy %v, at least its prior", res.Policy[h])
	}
}

func TestGumbelDeterministic(t *testing.T) {
	g := game(t, rules.StartFEN, "22-18", "11-14")
	for _, par := range []int{1, 4} {
		run := func(seed uint64) Result {
			s := New(&materialEval{}, Options{Gumbel: true, Parallel: par})
			res, err := s.Run(context.Background(), g, Limit{Visits: 150, Noise: true}, rand.New(rand.NewPCG(seed, 1)))
			if err != nil {
				t.Fatal(err)
			}
			return res
		}
		a, b := run(7), run(7)
		if !slices.Equal(a.Visits, b.Visits) || a.Move != b.Move || !slices.Equal(a.Policy, b.Policy) {
			t.Errorf("parallel %d: two runs with one seed differ: %v %v / %v %v", par, a.Visits, a.Move, b.Visits, b.Move)
		}
	}
}

func TestGumbelFindsForcedWin(t *testing.T) {
	for _, fen := range []string{"W:WK5,K7,K11:B2", "W:WK5,K6:B3", "W:W19,21,22:B7"} {
		g := game(t, fen)
		win := winningMoves(g.Position(), 3)
		s := New(&materialEval{}, Options{Gumbel: true})
		res, err := s.Run(context.Background(), g, Limit{Visits: 400}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(win, res.Move) {
			t.Errorf("%s: move %v (visits %v of %v), want one of %v", fen, res.Move, res.Visits, res.Moves, win)
		}
	}
}

func TestGumbelNeedsVisits(t *testing.T) {
	s := New(&materialEval{}, Options{Gumbel: true})
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if _, err := s.Run(ctx, game(t, rules.StartFEN), Limit{}, nil); err == nil {
		t.Errorf("a time-limited Gumbel search ran")
	}
}
