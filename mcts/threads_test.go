package mcts

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"dama/rules"
)

// checkTree fails unless the tree holds no virtual loss and every expanded
// node has one visit of its own (its evaluation) plus its children's: no
// backup was lost or counted twice. It holds without the solver and
// without PassForced.
func checkTree(t *testing.T, s *Search) {
	t.Helper()
	for i := range s.nodes {
		nd := &s.nodes[i]
		if nd.inflight != 0 || nd.state == pending {
			t.Fatalf("node %d: %d visits left in flight (state %d)", i, nd.inflight, nd.state)
		}
		if nd.state != expanded {
			continue
		}
		sum := int32(1)
		for c := nd.first; c < nd.first+int32(nd.nchild); c++ {
			sum += s.nodes[c].n
		}
		if nd.n != sum {
			t.Fatalf("node %d: %d visits, want 1 + its children's = %d", i, nd.n, sum)
		}
	}
}

func TestThreadsExactVisits(t *testing.T) {
	for _, tc := range []struct{ threads, parallel, visits int }{
		{2, 1, 500}, {2, 4, 501}, {4, 3, 777}, {8, 1, 64},
	} {
		g := game(t, rules.StartFEN, "22-18", "10-14")
		s := New(&materialEval{}, Options{Threads: tc.threads, Parallel: tc.parallel, FPUReduction: StandardFPUReduction})
		res, err := s.Run(context.Background(), g, Limit{Visits: tc.visits}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.RootVisits != tc.visits || res.Playouts != tc.visits || !res.Full {
			t.Errorf("threads %d parallel %d: root visits %d playouts %d full %v, want %d", tc.threads, tc.parallel, res.RootVisits, res.Playouts, res.Full, tc.visits)
		}
		checkTree(t, s)
		// The tree goes on from there.
		res, err = s.Run(context.Background(), g, Limit{Visits: 2 * tc.visits}, nil)
		if err != nil || res.RootVisits != 2*tc.visits {
			t.Errorf("threads %d: reused tree: root visits %d err %v, want %d", tc.threads, res.RootVisits, err, 2*tc.visits)
		}
		checkTree(t, s)
	}
}

func TestThreadsFindForcedWin(t *testing.T) {
	for _, fen := range []string{"W:WK5,K7,K11:B2", "W:WK5,K6:B3", "W:W19,21,22:B7"} {
		g := game(t, fen)
		one, err := New(&materialEval{}, Options{}).Run(context.Background(), g, Limit{Visits: 800}, nil)
		if err != nil {
			t.Fatal(err)
		}
		s := New(&materialEval{}, Options{Threads: 3, Parallel: 2})
		res, err := s.Run(context.Background(), g, Limit{Visits: 800}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Move != one.Move || res.Value < 0.5 {
			t.Errorf("%s: 3 threads play %v (value %.2f), one thread %v", fen, res.Move, res.Value, one.Move)
		}
	}
}

// overlapEval holds each evaluation after the root's until another one is
// in flight too, so a search that never evaluates two leaves at once
// never gets an answer past its second evaluation.
type overlapEval struct {
	materialEval
	mu       sync.Mutex
	inflight int
	most     int
	wake     chan struct{} // closed when two evaluations were in flight at once
}

func (e *overlapEval) Evaluate(ctx context.Context, q Query, out *Evaluation) error {
	first := e.calls.Load() == 0
	e.mu.Lock()
	e.inflight++
	e.most = max(e.most, e.inflight)
	if e.inflight >= 2 {
		select {
		case <-e.wake:
		default:
			close(e.wake)
		}
	}
	e.mu.Unlock()
	defer func() {
		e.mu.Lock()
		e.inflight--
		e.mu.Unlock()
	}()
	if !first {
		select {
		case <-e.wake:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return e.materialEval.Evaluate(ctx, q, out)
}

func TestThreadsEvaluateAtOnce(t *testing.T) {
	ev := &overlapEval{wake: make(chan struct{})}
	s := New(ev, Options{Threads: 2})
	// A failsafe, not a timing assertion: one worker alone never passes
	// the evaluator's gate.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := s.Run(ctx, game(t, rules.StartFEN), Limit{Visits: 200}, nil)
	if err != nil || res.RootVisits != 200 {
		t.Fatalf("root visits %d err %v: two workers never evaluated at once", res.RootVisits, err)
	}
	if ev.most < 2 {
		t.Errorf("at most %d evaluations in flight, want 2", ev.most)
	}
	checkTree(t, s)
}

func TestThreadsEvaluatorError(t *testing.T) {
	g := game(t, rules.StartFEN)
	s := New(&failingEval{after: 40}, Options{Threads: 4, Parallel: 2})
	if _, err := s.Run(context.Background(), g, Limit{Visits: 300}, nil); !errors.Is(err, errBroken) {
		t.Errorf("err %v, want the evaluator's", err)
	}
	for i := range s.nodes {
		if s.nodes[i].inflight != 0 || s.nodes[i].state == pending {
			t.Fatalf("node %d left in flight", i)
		}
	}
	s.ev = &materialEval{}
	res, err := s.Run(context.Background(), g, Limit{Visits: 300}, nil)
	if err != nil || res.RootVisits != 300 {
		t.Errorf("after an error: root visits %d err %v", res.RootVisits, err)
	}
	checkTree(t, s)
}

func TestThreadsTimeLimit(t *testing.T) {
	s := New(&materialEval{}, Options{Threads: 2, Parallel: 2})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	res, err := s.Run(ctx, game(t, rules.StartFEN), Limit{}, nil)
	if err != nil || res.Playouts == 0 || !res.Full {
		t.Errorf("playouts %d full %v err %v", res.Playouts, res.Full, err)
	}
	checkTree(t, s)
	cctx, ccancel := context.WithCancel(context.Background())
	ccancel()
	if _, err := s.Run(cctx, game(t, rules.StartFEN, "22-18"), Limit{Visits: 1000}, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err %v, want context.Canceled", err)
	}
}

func TestThreadsOneIsDeterministic(t *testing.T) {
	g := game(t, rules.StartFEN, "22-18", "10-14", "23-19")
	var first Result
	for i := 0; i < 3; i++ {
		res, err := New(&materialEval{}, Options{Threads: 1, Parallel: 4, FPUReduction: StandardFPUReduction}).Run(context.Background(), g, Limit{Visits: 400}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 && (!slices.Equal(res.Visits, first.Visits) || res.Value != first.Value) {
			t.Fatalf("run %d: visits %v value %v, first %v %v", i, res.Visits, res.Value, first.Visits, first.Value)
		}
		first = res
	}
}

// fakeClock is a clock that moves only when told.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// slowEval advances a fake clock by cost per evaluation, or by the costs
// of uneven in turn.
type slowEval struct {
	materialEval
	clock  *fakeClock
	cost   time.Duration
	uneven []time.Duration
	n      int
}

func (e *slowEval) Evaluate(ctx context.Context, q Query, out *Evaluation) error {
	if len(e.uneven) > 0 {
		e.clock.add(e.uneven[e.n%len(e.uneven)])
		e.n++
	} else {
		e.clock.add(e.cost)
	}
	return e.materialEval.Evaluate(ctx, q, out)
}

func TestDeadlineStartsNoLateBatch(t *testing.T) {
	for _, tc := range []struct {
		cost, budget time.Duration
		visits       int // visits at most, 0: none
		want         int // visits added
	}{
		{time.Millisecond, 100 * time.Millisecond, 0, 100},
		{40 * time.Millisecond, 100 * time.Millisecond, 0, 2}, // a third batch would end at 120ms
		{30 * time.Millisecond, 100 * time.Millisecond, 0, 3},
		{time.Millisecond, 100 * time.Millisecond, 50, 50},     // the visits come first
		{200 * time.Millisecond, 100 * time.Millisecond, 0, 1}, // the root's evaluation always runs
	} {
		clock := &fakeClock{now: time.Unix(1e9, 0)}
		ev := &slowEval{clock: clock, cost: tc.cost}
		s := New(ev, Options{})
		begin := clock.Now()
		lim := Limit{Visits: tc.visits, Deadline: begin.Add(tc.budget), Clock: clock.Now}
		res, err := s.Run(context.Background(), game(t, rules.StartFEN), lim, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Playouts != tc.want || !res.Full {
			t.Errorf("batches of %v, budget %v: %d visits (full %v), want %d", tc.cost, tc.budget, res.Playouts, res.Full, tc.want)
		}
		if end := clock.Now(); tc.want > 1 && end.After(lim.Deadline) {
			t.Errorf("batches of %v, budget %v: ended %v past the deadline", tc.cost, tc.budget, end.Sub(lim.Deadline))
		}
	}
}

// batchEval is a BatchEvaluator over materialEval that counts its calls.
type batchEval struct {
	materialEval
	batches, single atomic.Int64
	most            atomic.Int64
}

func (e *batchEval) Evaluate(ctx context.Context, q Query, out *Evaluation) error {
	e.single.Add(1)
	return e.materialEval.Evaluate(ctx, q, out)
}

func (e *batchEval) EvaluateBatch(ctx context.Context, qs []Query, es []*Evaluation) error {
	e.batches.Add(1)
	if n := int64(len(qs)); n > e.most.Load() {
		e.most.Store(n)
	}
	for i := range qs {
		if err := e.materialEval.Evaluate(ctx, qs[i], es[i]); err != nil {
			return err
		}
	}
	return nil
}

// A BatchEvaluator gets each batch in one call, and the search is the
// same as with leaf-by-leaf evaluation.
func TestBatchEvaluator(t *testing.T) {
	g := game(t, rules.StartFEN, "22-18", "10-14")
	opt := Options{Parallel: 3, FPUReduction: StandardFPUReduction}
	want, err := New(&materialEval{}, opt).Run(context.Background(), g, Limit{Visits: 300}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ev := &batchEval{}
	got, err := New(ev, opt).Run(context.Background(), g, Limit{Visits: 300}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Visits, want.Visits) || got.Value != want.Value {
		t.Errorf("batch evaluator: visits %v value %v, leaf by leaf %v %v", got.Visits, got.Value, want.Visits, want.Value)
	}
	if ev.single.Load() != 0 || ev.most.Load() != 3 || ev.batches.Load() < 100 {
		t.Errorf("%d batches (largest %d), %d single calls; want batches of up to 3 and no single call", ev.batches.Load(), ev.most.Load(), ev.single.Load())
	}
	ev = &batchEval{}
	s := New(ev, Options{Parallel: 3, Threads: 2})
	res, err := s.Run(context.Background(), g, Limit{Visits: 300}, nil)
	if err != nil || res.RootVisits != 300 || ev.single.Load() != 0 {
		t.Errorf("2 threads: root visits %d, %d single calls, err %v", res.RootVisits, ev.single.Load(), err)
	}
	checkTree(t, s)
}

// Batches of uneven length (2 ms and 18 ms in turn, as on a loaded
// machine) are allowed for: the search ends before the deadline, where
// their mean alone would start an 18 ms batch at 82 ms of 95.
func TestDeadlineUnevenBatches(t *testing.T) {
	clock := &fakeClock{now: time.Unix(1e9, 0)}
	ev := &slowEval{clock: clock, uneven: []time.Duration{2 * time.Millisecond, 18 * time.Millisecond}}
	s := New(ev, Options{})
	lim := Limit{Deadline: clock.Now().Add(95 * time.Millisecond), Clock: clock.Now}
	res, err := s.Run(context.Background(), game(t, rules.StartFEN), lim, nil)
	if err != nil {
		t.Fatal(err)
	}
	if end := clock.Now(); end.After(lim.Deadline) || res.Playouts < 6 {
		t.Errorf("ended %v after the deadline with %d visits; want at or before it, with at least 6", end.Sub(lim.Deadline), res.Playouts)
	}
}

// Threads with the solver and an oracle (asked under the tree's lock):
// the win in 5 is proven as with one thread, and no position the oracle
// proved is evaluated.
func TestThreadsOracle(t *testing.T) {
	g := game(t, "W:WK19,27,K23:B18,11")
	o := &shallowOracle{plies: 3}
	ev := &seenEval{}
	res, err := New(ev, Options{Solver: true, Oracle: o, Threads: 3, Parallel: 2}).Run(context.Background(), g, Limit{Visits: 200}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Proof != ProofWin || res.Proved == 0 {
		t.Fatalf("3 threads with the oracle: proof %v, %d proved leaves", res.Proof, res.Proved)
	}
	for _, p := range ev.seen[1:] {
		if o.proven[p] {
			t.Fatalf("position %v was proven by the oracle and evaluated too", p)
		}
	}
}
