package mcts

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"dama/rules"
)

// materialEval gives uniform priors and a value from the material balance
// (a king counts 1.5 men), and counts its calls.
type materialEval struct {
	calls atomic.Int64
}

func (e *materialEval) Evaluate(_ context.Context, q Query, out *Evaluation) error {
	e.calls.Add(1)
	for i := range out.Priors {
		out.Priors[i] = 1 / float32(len(q.Legal))
	}
	out.WDL = materialWDL(q.Pos)
	return nil
}

func materialWDL(p rules.Position) [3]float32 {
	me, opp := p.Side(), p.Side().Opponent()
	mm, mk := p.Count(me)
	om, ok := p.Count(opp)
	v := float32(math.Tanh((float64(mm-om) + 1.5*float64(mk-ok)) / 3))
	return [3]float32{max(v, 0), 1 - float32(math.Abs(float64(v))), max(-v, 0)}
}

// recordingEval remembers every position it was asked about.
type recordingEval struct {
	materialEval
	mu   sync.Mutex
	seen map[rules.Position]Query
}

func (e *recordingEval) Evaluate(ctx context.Context, q Query, out *Evaluation) error {
	e.mu.Lock()
	if e.seen == nil {
		e.seen = map[rules.Position]Query{}
	}
	e.seen[q.Pos] = q
	e.mu.Unlock()
	return e.materialEval.Evaluate(ctx, q, out)
}

func game(t testing.TB, fen string, moves ...string) *rules.Game {
	t.Helper()
	p, err := rules.ParseFEN(fen)
	if err != nil {
		t.Fatal(err)
	}
	g := rules.NewGame(p)
	for _, s := range moves {
		m, err := rules.ParseMove(g.Position(), s)
		if err != nil {
			t.Fatal(err)
		}
		if err := g.Play(m); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

// wins reports whether the side to move in p can force a win within plies
// plies (odd), by brute force.
func wins(p rules.Position, plies int) bool {
	for _, m := range p.Legal(nil) {
		if winsWith(p, m, plies) {
			return true
		}
	}
	return false
}

// winsWith reports whether move m of p forces a win within plies plies
// (odd): the opponent has no move, or every reply leaves a forced win in
// plies-2.
func winsWith(p rules.Position, m rules.Move, plies int) bool {
	q := p.Play(m)
	if !q.HasMoves() {
		return true
	}
	if plies < 3 {
		return false
	}
	for _, r := range q.Legal(nil) {
		if !wins(q.Play(r), plies-2) {
			return false
		}
	}
	return true
}

func TestFindsForcedWin(t *testing.T) {
	tests := []struct {
		fen   string
		plies int
	}{
		{"W:WK5,K7,K11:B2", 1},
		{"W:WK9,23,K26:B17", 1},
		{"W:WK15:B8", 1},
		{"W:WK5,K6:B3", 3},
		{"W:W19,21,22:B7", 3},
		{"W:WK6,K9:BK3", 3},
	}
	for _, tc := range tests {
		t.Run(tc.fen, func(t *testing.T) {
			g := game(t, tc.fen)
			p := g.Position()
			// The test position must have exactly one winning move.
			var winning []rules.Move
			for _, m := range p.Legal(nil) {
				q := p.Play(m)
				if !q.HasMoves() {
					winning = append(winning, m)
					continue
				}
				if tc.plies == 3 && !wins(p, 1) {
					all := true
					for _, r := range q.Legal(nil) {
						if !wins(q.Play(r), 1) {
							all = false
						}
					}
					if all {
						winning = append(winning, m)
					}
				}
			}
			if len(winning) != 1 || len(p.Legal(nil)) < 3 {
				t.Fatalf("bad test position: winning moves %v of %d", winning, len(p.Legal(nil)))
			}
			s := New(&materialEval{}, Options{})
			res, err := s.Run(context.Background(), g, Limit{Visits: 800}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.Move != winning[0] {
				t.Errorf("move %v (visits %v of %v), want %v", res.Move, res.Visits, res.Moves, winning[0])
			}
			if res.Value < 0.5 {
				t.Errorf("root value %v, want a clear win", res.Value)
			}
			if len(res.PV) == 0 || res.PV[0] != res.Move {
				t.Errorf("PV %v does not start with %v", res.PV, res.Move)
			}
		})
	}
}

func TestAvoidsLosingAPiece(t *testing.T) {
	g := game(t, "W:W10,17,18,19,26:B9,16,28")
	p := g.Position()
	// Find the one move after which Black captures and White cannot
	// recapture.
	var hanging []rules.Move
	for _, m := range p.Legal(nil) {
		q := p.Play(m)
		rs := q.Legal(nil)
		if len(rs) == 0 || !rs[0].IsCapture() {
			continue
		}
		back := false
		for _, r := range rs {
			if w := q.Play(r).Legal(nil); len(w) > 0 && w[0].IsCapture() {
				back = true
			}
		}
		if !back {
			hanging = append(hanging, m)
		}
	}
	if len(hanging) != 1 {
		t.Fatalf("bad test position: hanging moves %v", hanging)
	}
	s := New(&materialEval{}, Options{})
	res, err := s.Run(context.Background(), g, Limit{Visits: 400}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Move == hanging[0] {
		t.Errorf("played %v, which loses a piece (visits %v of %v)", res.Move, res.Visits, res.Moves)
	}
	i := slices.Index(res.Moves, hanging[0])
	j := slices.Index(res.Moves, res.Move)
	if res.Q[i] > res.Q[j]-0.1 {
		t.Errorf("Q of the losing move %v = %v, of the move played %v = %v: want clearly lower", hanging[0], res.Q[i], res.Move, res.Q[j])
	}
}

func TestOnlyMoveNeedsNoEvaluation(t *testing.T) {
	g := game(t, "W:WK21,31:B10,18,27")
	ev := &materialEval{}
	s := New(ev, Options{})
	res, err := s.Run(context.Background(), g, Limit{Visits: 100}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Forced || res.Move.String() != "31x22x13x6" || res.Playouts != 0 {
		t.Errorf("got move %v forced %v playouts %d, want 31x22x13x6 forced, no playouts", res.Move, res.Forced, res.Playouts)
	}
	if n := ev.calls.Load(); n != 0 {
		t.Errorf("evaluator called %d times, want 0", n)
	}
}

func TestExactVisits(t *testing.T) {
	for _, par := range []int{1, 3, 8} {
		g := game(t, rules.StartFEN)
		s := New(&materialEval{}, Options{Parallel: par})
		for _, v := range []int{1, 2, 57, 300} {
			res, err := s.Run(context.Background(), g, Limit{Visits: v}, nil)
			if err != nil {
				t.Fatal(err)
			}
			sum := 0
			for _, n := range res.Visits {
				sum += n
			}
			if res.RootVisits != v || sum != v-1 || !res.Full {
				t.Errorf("parallel %d visits %d: root %d, children %d, full %v; want %d, %d, true",
					par, v, res.RootVisits, sum, res.Full, v, v-1)
			}
		}
	}
}

func TestDeterministic(t *testing.T) {
	run := func(seed uint64) ([]rules.Move, [][]int) {
		g := game(t, rules.StartFEN)
		s := New(&materialEval{}, Options{Parallel: 4, Temperature: TemperatureSchedule(6, 1, 0)})
		rng := rand.New(rand.NewPCG(seed, 1))
		var moves []rules.Move
		var visits [][]int
		for i := 0; i < 10; i++ {
			res, err := s.Run(context.Background(), g, Limit{Visits: 120, Noise: true}, rng)
			if err != nil {
				t.Fatal(err)
			}
			moves = append(moves, res.Move)
			visits = append(visits, res.Visits)
			if err := g.Play(res.Move); err != nil {
				t.Fatal(err)
			}
			s.Advance(res.Move)
		}
		return moves, visits
	}
	m1, v1 := run(7)
	m2, v2 := run(7)
	if !slices.Equal(m1, m2) {
		t.Errorf("same seed, different moves:\n%v\n%v", m1, m2)
	}
	for i := range v1 {
		if !slices.Equal(v1[i], v2[i]) {
			t.Errorf("ply %d: same seed, different visits %v and %v", i, v1[i], v2[i])
		}
	}
}

func TestTreeReuse(t *testing.T) {
	g := game(t, rules.StartFEN)
	s := New(&materialEval{}, Options{})
	res, err := s.Run(context.Background(), g, Limit{Visits: 500}, nil)
	if err != nil {
		t.Fatal(err)
	}
	kept := res.Visits[slices.Index(res.Moves, res.Move)]
	if err := g.Play(res.Move); err != nil {
		t.Fatal(err)
	}
	// No Advance: Run follows the game by itself.
	res2, err := s.Run(context.Background(), g, Limit{Visits: 500}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res2.Playouts != 500-kept {
		t.Errorf("after reuse of %d visits the search made %d playouts, want %d", kept, res2.Playouts, 500-kept)
	}
	// A different game starts afresh.
	g2 := game(t, "W:WK5,K7,K11:B2")
	res3, err := s.Run(context.Background(), g2, Limit{Visits: 50}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res3.Playouts != 50 {
		t.Errorf("new game: %d playouts, want 50", res3.Playouts)
	}
}

func TestNoiseChangesPriorsOnlyWhenAsked(t *testing.T) {
	g := game(t, rules.StartFEN)
	s := New(&materialEval{}, Options{DirichletFraction: 0.5})
	rng := rand.New(rand.NewPCG(1, 2))
	res, err := s.Run(context.Background(), g, Limit{Visits: 400, Noise: true}, rng)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range res.Priors {
		if math.Abs(float64(p)-1.0/7) > 1e-6 {
			t.Errorf("reported priors %v, want the evaluator's (uniform)", res.Priors)
			break
		}
	}
	// With uniform priors and a symmetric value, noise is what makes the
	// visit counts uneven: the spread must be large.
	lo, hi := slices.Min(res.Visits), slices.Max(res.Visits)
	if hi-lo < 20 {
		t.Errorf("visits %v barely differ with noise fraction 0.5", res.Visits)
	}
}

func TestRepetitionIsADraw(t *testing.T) {
	// White is a man up; shuffling the kings repeats the start a third time.
	g := game(t, "W:WK32,21:BK1", "32-28", "1-5", "28-32", "5-1", "32-28", "1-5", "28-32")
	if g.Repetitions() != 1 {
		t.Fatalf("test game: %d repetitions", g.Repetitions())
	}
	ev := &recordingEval{}
	s := New(ev, Options{})
	res, err := s.Run(context.Background(), g, Limit{Visits: 300}, nil)
	if err != nil {
		t.Fatal(err)
	}
	back, _ := rules.ParseMove(g.Position(), "5-1")
	i := slices.Index(res.Moves, back)
	if res.Visits[i] == 0 || res.Q[i] != 0 {
		t.Errorf("repeating move %v: visits %d Q %v, want a visited exact draw", back, res.Visits[i], res.Q[i])
	}
	if res.Move != back {
		t.Errorf("Black, a man down, played %v, want the drawing repetition %v", res.Move, back)
	}
	if _, ok := ev.seen[g.PositionAt(0)]; ok {
		t.Errorf("the evaluator was asked about the thrice-repeated position")
	}
	q, ok := ev.seen[g.Position()]
	if !ok || q.Repetitions != 1 || q.QuietPlies != 7 {
		t.Errorf("root query %+v, want 1 repetition and 7 quiet plies", q)
	}
}

func TestLengthCapIsADraw(t *testing.T) {
	g := game(t, "W:WK5,K7,K11:B2")
	ev := &materialEval{}
	s := New(ev, Options{MaxPlies: 1})
	res, err := s.Run(context.Background(), g, Limit{Visits: 100}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := ev.calls.Load(); n != 1 {
		t.Errorf("evaluator called %d times, want only for the root", n)
	}
	for i, m := range res.Moves {
		// A move that leaves Black without moves still wins: that ends
		// the game before the cap applies.
		want := float32(0)
		if !g.Position().Play(m).HasMoves() {
			want = 1
		}
		if res.Q[i] != want {
			t.Errorf("move %v: Q %v, want %v", m, res.Q[i], want)
		}
	}
	if _, err := New(ev, Options{MaxPlies: 0 + g.Ply()}).Run(context.Background(), game(t, rules.StartFEN), Limit{Visits: 5}, nil); err != nil {
		t.Errorf("no cap: %v", err)
	}
	g.PlayUnchecked(res.Move)
	if _, err := s.Run(context.Background(), game(t, rules.StartFEN, "22-18"), Limit{Visits: 5}, nil); !errors.Is(err, ErrGameOver) {
		t.Errorf("at the cap: err %v, want ErrGameOver", err)
	}
}

func TestFortyMoveRuleIsADraw(t *testing.T) {
	s := New(&materialEval{}, Options{})
	p, _ := rules.ParseFEN("W:WK32,21:BK1")
	s.stack = append(s.stack[:0], p)
	if _, _, ok := s.terminalValue(p, rules.QuietLimit-1, 0, 0); ok {
		t.Errorf("counter %d: terminal", rules.QuietLimit-1)
	}
	if v, d, ok := s.terminalValue(p, rules.QuietLimit, 0, 0); !ok || v != 0 || d != 1 {
		t.Errorf("counter %d: value %v draw %v terminal %v, want a draw", rules.QuietLimit, v, d, ok)
	}
}

func TestTimeLimit(t *testing.T) {
	g := game(t, rules.StartFEN)
	s := New(&materialEval{}, Options{Parallel: 2})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	res, err := s.Run(ctx, g, Limit{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Playouts == 0 || res.RootVisits != res.Playouts {
		t.Errorf("playouts %d root visits %d", res.Playouts, res.RootVisits)
	}
	if _, err := s.Run(context.Background(), g, Limit{}, nil); !errors.Is(err, ErrNoLimit) {
		t.Errorf("no limit: err %v, want ErrNoLimit", err)
	}
	cctx, ccancel := context.WithCancel(context.Background())
	ccancel()
	if _, err := s.Run(cctx, game(t, rules.StartFEN, "22-18"), Limit{Visits: 100000}, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err %v, want context.Canceled", err)
	}
}

// failingEval fails after a number of calls.
type failingEval struct {
	materialEval
	after int64
}

var errBroken = errors.New("broken evaluator")

func (e *failingEval) Evaluate(ctx context.Context, q Query, out *Evaluation) error {
	if e.calls.Load() >= e.after {
		return errBroken
	}
	return e.materialEval.Evaluate(ctx, q, out)
}

func TestEvaluatorError(t *testing.T) {
	g := game(t, rules.StartFEN)
	s := New(&failingEval{after: 30}, Options{Parallel: 4})
	if _, err := s.Run(context.Background(), g, Limit{Visits: 100}, nil); !errors.Is(err, errBroken) {
		t.Errorf("err %v, want the evaluator's", err)
	}
	// The tree stays consistent: a working evaluator can continue it.
	s.ev = &materialEval{}
	res, err := s.Run(context.Background(), g, Limit{Visits: 100}, nil)
	if err != nil || res.RootVisits != 100 {
		t.Errorf("after an error: root visits %d err %v", res.RootVisits, err)
	}
	for i := range s.nodes {
		if s.nodes[i].inflight != 0 || s.nodes[i].state == pending {
			t.Fatalf("node %d left in flight", i)
		}
	}
}

// cachingEval is shared by many games: a map behind a mutex in front of
// materialEval, like a real evaluator's cache.
type cachingEval struct {
	mu    sync.Mutex
	cache map[rules.Position][3]float32
	inner materialEval
}

func (e *cachingEval) Evaluate(ctx context.Context, q Query, out *Evaluation) error {
	e.mu.Lock()
	wdl, ok := e.cache[q.Pos]
	e.mu.Unlock()
	if ok {
		for i := range out.Priors {
			out.Priors[i] = 1 / float32(len(q.Legal))
		}
		out.WDL = wdl
		return nil
	}
	if err := e.inner.Evaluate(ctx, q, out); err != nil {
		return err
	}
	e.mu.Lock()
	e.cache[q.Pos] = out.WDL
	e.mu.Unlock()
	return nil
}

func TestManyGamesOneEvaluator(t *testing.T) {
	ev := &cachingEval{cache: map[rules.Position][3]float32{}}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func(seed uint64) {
			defer wg.Done()
			g := game(t, rules.StartFEN)
			s := New(ev, Options{Parallel: 4, MaxPlies: 40, Temperature: TemperatureSchedule(10, 1, 0)})
			rng := rand.New(rand.NewPCG(seed, 0))
			for !g.Outcome().Over() && g.Ply() < 40 {
				res, err := s.Run(context.Background(), g, Limit{Visits: 32, Noise: true}, rng)
				if err != nil {
					errs <- err
					return
				}
				if err := g.Play(res.Move); err != nil {
					errs <- err
					return
				}
				s.Advance(res.Move)
			}
		}(uint64(i))
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestGammaMean(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, a := range []float64{0.3, 1, 2.5} {
		const n = 20000
		var sum, sq float64
		for i := 0; i < n; i++ {
			x := gamma(rng, a)
			if x < 0 || math.IsNaN(x) {
				t.Fatalf("gamma(%v) = %v", a, x)
			}
			sum += x
			sq += x * x
		}
		mean := sum / n
		variance := sq/n - mean*mean
		// Gamma(a, 1) has mean a and variance a.
		if math.Abs(mean-a) > 0.05*a+0.02 || math.Abs(variance-a) > 0.15*a+0.02 {
			t.Errorf("gamma(%v): mean %v variance %v, want both %v", a, mean, variance, a)
		}
	}
}

func TestTemperature(t *testing.T) {
	moves := rules.Start().Legal(nil)[:3]
	visits := []int{10, 30, 0}
	rng := rand.New(rand.NewPCG(1, 1))
	count := map[rules.Move]int{}
	for i := 0; i < 4000; i++ {
		count[pick(visits, moves, 1, rng)]++
	}
	if count[moves[2]] != 0 || count[moves[0]] < 800 || count[moves[0]] > 1200 {
		t.Errorf("temperature 1 counts %v, want about 1000:3000:0", count)
	}
}

// TestParallelHelpersEnd checks that the goroutines evaluating the leaves
// of a batch end with each Run, including a Run that fails. Goroutines of
// the runtime or of earlier tests may come and go meanwhile, so the test
// looks for the Parallel-1 helpers of a Run left behind.
func TestParallelHelpersEnd(t *testing.T) {
	const par = 8
	g := game(t, rules.StartFEN)
	s := New(&materialEval{}, Options{Parallel: par})
	if _, err := s.Run(context.Background(), g, Limit{Visits: 20}, nil); err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()
	for i := 1; i <= 3; i++ {
		res, err := s.Run(context.Background(), g, Limit{Visits: 50 * i}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.RootVisits != 50*i {
			t.Errorf("root visits %d, want %d", res.RootVisits, 50*i)
		}
		if n := runtime.NumGoroutine(); n >= before+par-1 {
			t.Errorf("after Run %d: %d goroutines, %d before", i, n, before)
		}
	}
	s = New(&failingEval{after: 20}, Options{Parallel: par})
	if _, err := s.Run(context.Background(), g, Limit{Visits: 100}, nil); !errors.Is(err, errBroken) {
		t.Errorf("err %v, want the evaluator's", err)
	}
	if n := runtime.NumGoroutine(); n >= before+par-1 {
		t.Errorf("after a failed Run: %d goroutines, %d before", n, before)
	}
}

// With KeepSearchingWhenFull a search whose tree reaches MaxNodes goes on to
// its visit target without growing the tree (issue 13, point 5); without it
// the search stops early, saying so with Full false.
func TestFullTreeKeepsSearching(t *testing.T) {
	const maxNodes, visits = 3000, 20000
	for _, keep := range []bool{false, true} {
		for _, par := range []int{1, 4} {
			ev := &materialEval{}
			s := New(ev, Options{MaxNodes: maxNodes, Parallel: par, KeepSearchingWhenFull: keep})
			g := rules.NewGame(rules.Start())
			res, err := s.Run(context.Background(), g, Limit{Visits: visits}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.Nodes > maxNodes {
				t.Errorf("keep %v, parallel %d: %d nodes, more than MaxNodes %d", keep, par, res.Nodes, maxNodes)
			}
			if !keep {
				if res.Full || res.RootVisits >= visits {
					t.Errorf("keep false: full %v with %d visits, want a search cut short", res.Full, res.RootVisits)
				}
				continue
			}
			if !res.Full || res.RootVisits != visits {
				t.Errorf("keep true, parallel %d: full %v with %d root visits, want full with %d", par, res.Full, res.RootVisits, visits)
			}
			if !res.TreeFull {
				t.Errorf("keep true, parallel %d: TreeFull false with %d nodes of %d", par, res.Nodes, maxNodes)
			}
			if small, _ := New(&materialEval{}, Options{MaxNodes: maxNodes, Parallel: par, KeepSearchingWhenFull: true}).Run(context.Background(), g, Limit{Visits: 50}, nil); small.TreeFull {
				t.Errorf("parallel %d: TreeFull after 50 visits (%d nodes of %d)", par, small.Nodes, maxNodes)
			}
			sum := 0
			for _, v := range res.Visits {
				sum += v
			}
			if sum != visits-1 {
				t.Errorf("keep true, parallel %d: children hold %d visits, want %d", par, sum, visits-1)
			}
			// Re-visiting leaves of a full tree reuses their first evaluation.
			if calls := ev.calls.Load(); calls > maxNodes {
				t.Errorf("keep true, parallel %d: %d evaluations for a tree of at most %d nodes", par, calls, maxNodes)
			}
		}
	}
}

// HalveVisits keeps every node's mean value and the root's choice, with
// half the visits (issue 13, point 5: analysis that runs until stopped).
func TestHalveVisits(t *testing.T) {
	s := New(&materialEval{}, Options{})
	g := game(t, "W:W21,22,23,28:B5,9,10,14")
	before, err := s.Run(context.Background(), g, Limit{Visits: 3001}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.HalveVisits()
	after, err := s.Run(context.Background(), g, Limit{Visits: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if after.RootVisits != 1501 || after.Move != before.Move || math.Abs(float64(after.Value-before.Value)) > 1e-6 {
		t.Errorf("after halving: %d visits, move %v value %v; want 1501, %v, %v", after.RootVisits, after.Move, after.Value, before.Move, before.Value)
	}
	for i := range before.Visits {
		if want := (before.Visits[i] + 1) / 2; after.Visits[i] != want || (want > 0 && math.Abs(float64(after.Q[i]-before.Q[i])) > 1e-6) {
			t.Errorf("child %v: %d visits Q %v, want %d and Q %v", before.Moves[i], after.Visits[i], after.Q[i], want, before.Q[i])
		}
	}
}
