package engine

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"dama/internal/evaltest"
	"dama/mcts"
	"dama/rules"
)

// fakeClock moves only when told, and by a microsecond each time it is
// read (the tree walk between batches takes time too, even through
// terminal nodes that need no evaluation): no test here waits for real
// time.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{now: time.Unix(1_000_000_000, 0)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(time.Microsecond)
	return c.now
}

func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// costEval wraps an evaluator and moves the clock by cost per evaluation,
// as a forward pass takes time.
type costEval struct {
	inner mcts.Evaluator
	clock *fakeClock
	cost  time.Duration
}

func (e costEval) Evaluate(ctx context.Context, q mcts.Query, out *mcts.Evaluation) error {
	e.clock.add(e.cost)
	return e.inner.Evaluate(ctx, q, out)
}

// materialEval values a position by its material (a king 1.5 men), with
// uniform priors.
type materialEval struct{}

func (materialEval) Evaluate(ctx context.Context, q mcts.Query, out *mcts.Evaluation) error {
	if err := (Uniform{}).Evaluate(ctx, q, out); err != nil {
		return err
	}
	me, opp := q.Pos.Side(), q.Pos.Side().Opponent()
	mm, mk := q.Pos.Count(me)
	om, ok := q.Pos.Count(opp)
	v := float32(math.Tanh((float64(mm-om) + 1.5*float64(mk-ok)) / 3))
	out.WDL = [3]float32{max(v, 0), 1 - float32(math.Abs(float64(v))), max(-v, 0)}
	return nil
}

func TestPlanMove(t *testing.T) {
	for _, tc := range []struct {
		left, inc  time.Duration
		moves      int
		soft, hard time.Duration
	}{
		// 60 s sudden death: reserve 20 ms + 1 s + 30·10 ms, 58.68 s over
		// 30 moves, at most 3 times that.
		{60 * time.Second, 0, 0, 1956 * time.Millisecond, 5868 * time.Millisecond},
		// 10 moves to go: reserve 1.12 s, 5.888 s a move, 17.664 s at most.
		{60 * time.Second, 0, 10, 5888 * time.Millisecond, 17664 * time.Millisecond},
		// The last move before the control may use all but the reserve.
		{60 * time.Second, 0, 1, 58970 * time.Millisecond, 58970 * time.Millisecond},
		// An increment larger than the clock: never more than half of what is usable.
		{2 * time.Second, 10 * time.Second, 0, 790 * time.Millisecond, 790 * time.Millisecond},
		// Less than the reserve left: 1 ms, a move on the root's evaluation.
		{300 * time.Millisecond, 0, 0, time.Millisecond, time.Millisecond},
	} {
		soft, hard := planMove(tc.left, tc.inc, tc.moves)
		if soft != tc.soft || hard != tc.hard {
			t.Errorf("planMove(%v, %v, %d) = %v, %v, want %v, %v", tc.left, tc.inc, tc.moves, soft, hard, tc.soft, tc.hard)
		}
	}
	for left := time.Millisecond; left < time.Hour; left = left*3 + time.Millisecond {
		for _, inc := range []time.Duration{0, time.Second} {
			for _, moves := range []int{0, 1, 2, 40} {
				soft, hard := planMove(left, inc, moves)
				if soft <= 0 || soft > hard || (hard > time.Millisecond && hard > left-clockReserve(left, moves)) {
					t.Errorf("planMove(%v, %v, %d) = %v, %v: want 0 < soft <= hard <= left less the reserve", left, inc, moves, soft, hard)
				}
			}
		}
	}
}

// think runs one search on a fake clock whose evaluations cost 1 ms each
// and returns the clock time it took.
func think(t *testing.T, s *Searcher, clock *fakeClock, g *rules.Game, lim Limits) (mcts.Result, time.Duration) {
	t.Helper()
	begin := clock.Now()
	res, err := s.Think(context.Background(), g, lim, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res, clock.Now().Sub(begin)
}

func fakeSearcher(ev mcts.Evaluator, clock *fakeClock) *Searcher {
	s := NewSearcher(costEval{inner: ev, clock: clock, cost: time.Millisecond}, mcts.Options{})
	s.Clock = clock
	return s
}

// A fixed move time is kept, less its margin, however critical the move:
// 200 ms searches 170 ms (issue 21, item 4).
func TestThinkMoveTimeFakeClock(t *testing.T) {
	clock := newFakeClock()
	s := fakeSearcher(Uniform{}, clock) // every move draws: as critical as it gets
	g := rules.NewGame(rules.Start())
	for i := 0; i < 3; i++ { // the tree is reused after the first
		res, took := think(t, s, clock, g, Limits{Time: 200 * time.Millisecond})
		if took > 170*time.Millisecond || took < 160*time.Millisecond || res.Playouts < 150 {
			t.Errorf("search %d: took %v with %d playouts, want 160-170 ms of a 200 ms move time", i, took, res.Playouts)
		}
	}
}

// On a clock, a critical move (close values) gets more than its share,
// up to the hard cap, and a decided one stops at its share.
func TestThinkSpendsMoreOnCriticalMoves(t *testing.T) {
	lim := Limits{Left: 30 * time.Second}
	soft, hard := planMove(lim.Left, 0, 0)

	clock := newFakeClock()
	// Three kings against a man: every move wins, close values or not.
	won := rules.NewGame(evaltest.Position(t, "W:WK5,K7,K11:B2"))
	_, took := think(t, fakeSearcher(materialEval{}, clock), clock, won, lim)
	if took > soft+time.Millisecond {
		t.Errorf("decided move: took %v, want at most its share %v", took, soft)
	}
	// With a uniform evaluator every move of the start position is a draw.
	_, took = think(t, fakeSearcher(Uniform{}, clock), clock, rules.NewGame(rules.Start()), lim)
	if took <= soft || took > hard {
		t.Errorf("critical move: took %v, want more than its share %v and at most the cap %v", took, soft, hard)
	}
}

// Whole games on a clock never lose on time, even when every move is
// critical and the answer costs 5 ms after each search. A search passes
// its hard cap only by the root's evaluation, which always runs.
func TestClockNeverRunsOut(t *testing.T) {
	for _, tc := range []struct {
		left, inc time.Duration
		moves     int // moves per control (0: sudden death)
	}{
		{3 * time.Second, 0, 0},
		{time.Second, 50 * time.Millisecond, 0},
		{2 * time.Second, 0, 10},
		{600 * time.Millisecond, 0, 0},
		{50 * time.Millisecond, 20 * time.Millisecond, 0},
	} {
		t.Run(fmt.Sprintf("%v+%v/%d", tc.left, tc.inc, tc.moves), func(t *testing.T) {
			clock := newFakeClock()
			s := fakeSearcher(Uniform{}, clock)
			g := rules.NewGame(rules.Start())
			left := tc.left
			for move := 0; move < 60 && !g.Outcome().Over(); move++ {
				togo := 0
				if tc.moves > 0 {
					togo = tc.moves - move%tc.moves
				}
				_, hard := planMove(left, tc.inc, togo)
				res, took := think(t, s, clock, g, Limits{Left: left, Inc: tc.inc, MovesToGo: togo})
				if took > hard+time.Millisecond {
					t.Fatalf("move %d: took %v, past the hard cap %v", move, took, hard)
				}
				left -= took + 5*time.Millisecond
				if left <= 0 {
					t.Fatalf("move %d: lost on time (took %v)", move, took)
				}
				left += tc.inc
				if tc.moves > 0 && togo == 1 {
					left += tc.left // the next control
				}
				if err := g.Play(res.Move); err != nil {
					t.Fatal(err)
				}
				// The opponent answers with its first legal move.
				if l := g.Position().Legal(nil); !g.Outcome().Over() && len(l) > 0 {
					g.PlayUnchecked(l[0])
				}
			}
		})
	}
}

// The Hub plans the clock of level time=T from the arrival of go, on its
// clock: a level move-time of 0.1 s is a search of 80 ms of fake time.
func TestHubFakeClock(t *testing.T) {
	clock := newFakeClock()
	h := NewHub(costEval{inner: Uniform{}, clock: clock, cost: time.Millisecond}, HubOptions{Clock: clock, InfoEvery: time.Hour})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go func() {
		h.Run(context.Background(), inR, outW)
		outW.Close()
	}()
	go io.WriteString(inW, "pos pos="+FormatHubPosition(rules.Start())+"\nlevel move-time=0.1\ngo think\n")
	var final HubLine
	sc := bufio.NewScanner(outR)
	for sc.Scan() {
		l, _ := ParseHubLine(sc.Text())
		if l.Command == "info" {
			final = l
		}
		if l.Command == "done" {
			break
		}
	}
	inW.Close()
	if tm, _ := final.Get("time"); tm < "0.075" || tm > "0.080" {
		t.Errorf("final info %s: time %q, want 0.080 (0.1 s less the margin, on the fake clock)", final, tm)
	}
}

// The best move changing late, or close values, make a move critical.
func TestStability(t *testing.T) {
	start := time.Unix(0, 0)
	at := func(ms int) time.Time { return start.Add(time.Duration(ms) * time.Millisecond) }
	res := func(visits []int, q []float32) mcts.Result { return mcts.Result{Visits: visits, Q: q} }
	st := stability{best: -1}
	st.observe(res([]int{10, 5, 1}, []float32{0.3, 0.1, 0}), at(10))
	st.observe(res([]int{50, 20, 1}, []float32{0.3, 0.1, 0}), at(50))
	if st.isCritical(start, at(100)) {
		t.Error("a stable best move with a clear margin is critical")
	}
	st.observe(res([]int{50, 60, 1}, []float32{0.3, 0.25, 0}), at(90)) // changed at 90 of 100 ms
	if !st.isCritical(start, at(100)) {
		t.Error("a best move that changed late is not critical")
	}
	if st.isCritical(start, at(300)) {
		t.Error("a change in the first third of the search counts as late")
	}
	st.observe(res([]int{50, 60, 1}, []float32{0.3, 0.28, 0}), at(300))
	if !st.isCritical(start, at(300)) {
		t.Error("close values (0.30, 0.28) are not critical")
	}
	st.observe(res([]int{50, 60, 1}, []float32{0.97, 0.99, 0}), at(300))
	if st.isCritical(start, at(300)) {
		t.Error("close values of a won game are critical")
	}
}

// set-param threads sets the search threads and the evaluator's batchers;
// more threads than cores is allowed with one warning, bad values are
// errors (issue 21, Bad input).
func TestHubThreads(t *testing.T) {
	ev := &workersEval{}
	var log strings.Builder
	h := NewHub(ev, HubOptions{Log: &log})
	var out strings.Builder
	h.out = &out
	set := func(v string) string {
		out.Reset()
		l, _ := ParseHubLine("set-param name=threads value=" + v)
		h.setParam(l)
		return strings.TrimSpace(out.String())
	}
	if a := set("2"); a != "" || h.searcher.search.Options().Threads != 2 || ev.workers != 2 {
		t.Errorf("threads 2: answered %q, threads %d, evaluator workers %d", a, h.searcher.search.Options().Threads, ev.workers)
	}
	for _, bad := range []string{"0", "-1", "abc", "257", "1e3"} {
		if a := set(bad); !strings.HasPrefix(a, "error") || !strings.Contains(a, "threads") || strings.Contains(a, "\n") {
			t.Errorf("threads %s: answered %q, want one error", bad, a)
		}
	}
	if h.searcher.search.Options().Threads != 2 {
		t.Errorf("bad values changed the threads to %d", h.searcher.search.Options().Threads)
	}
	many := fmt.Sprint(runtime.NumCPU() + 1)
	set(many)
	set(many)
	if n := strings.Count(log.String(), "warning"); n != 1 || h.searcher.search.Options().Threads != runtime.NumCPU()+1 {
		t.Errorf("threads %s twice: log %q, threads %d; want it allowed and one warning", many, log.String(), h.searcher.search.Options().Threads)
	}
	res, err := h.searcher.Think(context.Background(), rules.NewGame(rules.Start()), Limits{Visits: 100}, nil)
	if err != nil || res.RootVisits != 100 {
		t.Errorf("search with %s threads: %d visits, %v", many, res.RootVisits, err)
	}
}

// workersEval is a uniform evaluator that records SetWorkers.
type workersEval struct {
	Uniform
	workers int
}

func (e *workersEval) SetWorkers(n int) { e.workers = n }

// Zero, negative, NaN and absurd times and counts are one-line errors.
func TestHubLevelBadZero(t *testing.T) {
	var out strings.Builder
	h := NewHub(Uniform{}, HubOptions{})
	h.out = &out
	for _, tc := range []struct{ line, arg string }{
		{"level move-time=0", "move-time"},
		{"level time=0", "time"},
		{"level time=0 inc=1", "time"},
		{"level moves=5000 time=60", "moves"},
		{"level move-time=-0.2", "move-time"},
	} {
		out.Reset()
		l, _ := ParseHubLine(tc.line)
		h.setLevel(l)
		answer := strings.TrimSpace(out.String())
		e, _ := ParseHubLine(answer)
		if msg, _ := e.Get("message"); e.Command != "error" || strings.Contains(answer, "\n") || !strings.HasPrefix(msg, "level "+tc.arg+": ") {
			t.Errorf("%q: answered %q, want one error about %s", tc.line, answer, tc.arg)
		}
	}
	out.Reset()
	l, _ := ParseHubLine("level time=60 inc=0 moves=40")
	h.setLevel(l)
	if out.Len() != 0 {
		t.Errorf("level time=60 inc=0 moves=40: answered %q", out.String())
	}
	if lim := h.limits(); lim.Left != time.Minute || lim.MovesToGo != 40 || lim.Time != 0 {
		t.Errorf("clock level: limits %+v", lim)
	}
}

// viewEval is an evaluator with a batch view, as infer.Evaluator has.
type viewEval struct {
	Uniform
	batches int
	mu      sync.Mutex
}

func (e *viewEval) BatchEvaluator() mcts.BatchEvaluator { return viewBatch{e} }

type viewBatch struct{ *viewEval }

func (v viewBatch) EvaluateBatch(ctx context.Context, qs []mcts.Query, es []*mcts.Evaluation) error {
	v.mu.Lock()
	v.batches++
	v.mu.Unlock()
	for i := range qs {
		if err := v.Uniform.Evaluate(ctx, qs[i], es[i]); err != nil {
			return err
		}
	}
	return nil
}

// A search with threads uses the evaluator's batch view (each thread its
// own forward passes); one thread keeps the evaluator itself.
func TestSearcherThreadsTakeBatchView(t *testing.T) {
	for _, threads := range []int{1, 2} {
		ev := &viewEval{}
		s := NewSearcher(ev, mcts.Options{Threads: threads, Parallel: 2})
		res, err := s.Think(context.Background(), rules.NewGame(rules.Start()), Limits{Visits: 100}, nil)
		if err != nil || res.RootVisits != 100 {
			t.Fatalf("threads %d: %d visits, %v", threads, res.RootVisits, err)
		}
		if (ev.batches > 0) != (threads > 1) {
			t.Errorf("threads %d: %d batches through the batch view", threads, ev.batches)
		}
	}
}
