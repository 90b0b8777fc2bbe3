package infer

import (
	"context"
	"errors"
	"math"
	"math/rand"
	"sync"
	"testing"

	"dama/mcts"
	"dama/model"
	"dama/model/modeltest"
	"dama/rules"
)

// reference evaluates q directly with the forward pass.
func reference(t *testing.T, net *model.Network, q mcts.Query) mcts.Evaluation {
	t.Helper()
	inf, err := newInference(net)
	if err != nil {
		t.Fatal(err)
	}
	ws := inf.newWorkspace(1)
	model.Encode(ws.Input, q.Pos, q.Repetitions, q.QuietPlies)
	inf.forward(ws, 1)
	e := mcts.Evaluation{Priors: make([]float32, len(q.Legal))}
	e.WDL = softmax3([3]float32(ws.WDL[:3]))
	legalSoftmax(e.Priors, ws.Policy, q.Pos, q.Legal)
	return e
}

func closeEval(a, b mcts.Evaluation) bool {
	if len(a.Priors) != len(b.Priors) {
		return false
	}
	for i := range a.Priors {
		if math.Abs(float64(a.Priors[i]-b.Priors[i])) > 1e-5 {
			return false
		}
	}
	for i := range a.WDL {
		if math.Abs(float64(a.WDL[i]-b.WDL[i])) > 1e-5 {
			return false
		}
	}
	return true
}

func TestEvaluatorConcurrent(t *testing.T) {
	rng := rand.New(rand.NewSource(31))
	net := modeltest.TinyNet(t, 31)
	modeltest.PerturbStats(net, rng)
	qs := modeltest.RandomPositions(rng, 24)
	want := make([]mcts.Evaluation, len(qs))
	queries := make([]mcts.Query, len(qs))
	for i, q := range qs {
		queries[i] = mcts.Query{Pos: q.Pos, Legal: q.Legal, Repetitions: q.Repetitions, QuietPlies: q.QuietPlies}
		want[i] = reference(t, net, queries[i])
	}
	for _, cache := range []int{0, 1000, -1} {
		opt := EvaluatorOptions{MaxBatch: 8, CacheSize: cache, Backend: BackendFP32}
		if cache < 0 { // no cache, three batchers
			opt = EvaluatorOptions{MaxBatch: 8, Workers: 3, Backend: BackendFP32}
		}
		ev := NewEvaluator(net, opt)
		const workers = 16
		var wg sync.WaitGroup
		errs := make(chan error, workers)
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				var out mcts.Evaluation
				for k := 0; k < 2*len(queries); k++ {
					i := (w*7 + k) % len(queries)
					if err := ev.Evaluate(context.Background(), queries[i], &out); err != nil {
						errs <- err
						return
					}
					if !closeEval(out, want[i]) {
						errs <- errors.New("evaluation differs from the direct forward pass for " + queries[i].Pos.FEN())
						return
					}
					var s float64
					for _, p := range out.Priors {
						s += float64(p)
					}
					if math.Abs(s-1) > 1e-4 {
						errs <- errors.New("priors do not sum to 1")
						return
					}
				}
			}(w)
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		ev.Close()
		st := ev.Stats()
		t.Logf("cache %d: %+v", cache, st)
		if st.Evaluations != workers*2*int64(len(queries)) {
			t.Errorf("cache %d: %d evaluations counted, want %d", cache, st.Evaluations, workers*2*len(queries))
		}
		if st.MeanBatch < 1 || st.MeanBatch > 8 {
			t.Errorf("cache %d: mean batch %v outside 1..8", cache, st.MeanBatch)
		}
		if cache <= 0 && st.CacheHits != 0 {
			t.Errorf("cache hits without a cache: %d", st.CacheHits)
		}
		if cache > 0 && st.CacheHits < st.Evaluations/2 {
			t.Errorf("cache %d: only %d hits of %d evaluations of 24 positions", cache, st.CacheHits, st.Evaluations)
		}
		if err := ev.Evaluate(context.Background(), queries[0], &mcts.Evaluation{}); !errors.Is(err, ErrClosed) {
			t.Errorf("Evaluate after Close: %v, want ErrClosed", err)
		}
	}
}

// The cache keys on repetitions and the 40-move counter: the same board
// with different counters is evaluated afresh, and answers for any order of
// the legal moves.
func TestEvaluatorCacheKey(t *testing.T) {
	rng := rand.New(rand.NewSource(32))
	net := modeltest.TinyNet(t, 32)
	modeltest.PerturbStats(net, rng)
	ev := NewEvaluator(net, EvaluatorOptions{MaxBatch: 4, CacheSize: 16, Backend: BackendFP32})
	defer ev.Close()
	p, err := rules.ParseFEN("W:WK22,K30:BK3,K12")
	if err != nil {
		t.Fatal(err)
	}
	legal := p.Legal(nil)
	ctx := context.Background()
	var out mcts.Evaluation
	for i, q := range []mcts.Query{
		{Pos: p, Legal: legal},
		{Pos: p, Legal: legal, QuietPlies: 10},
		{Pos: p, Legal: legal, Repetitions: 1},
		{Pos: p, Legal: legal},
	} {
		if err := ev.Evaluate(ctx, q, &out); err != nil {
			t.Fatal(err)
		}
		if !closeEval(out, reference(t, net, q)) {
			t.Errorf("query %d: cached or fresh answer differs from the forward pass", i)
		}
	}
	if st := ev.Stats(); st.CacheHits != 1 || st.Batches != 3 {
		t.Errorf("stats %+v, want 1 cache hit and 3 batches", st)
	}
	rev := append([]rules.Move(nil), legal...)
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	q := mcts.Query{Pos: p, Legal: rev}
	if err := ev.Evaluate(ctx, q, &out); err != nil {
		t.Fatal(err)
	}
	if !closeEval(out, reference(t, net, q)) {
		t.Errorf("reversed legal order: priors not in the query's order")
	}
	if st := ev.Stats(); st.CacheHits != 2 {
		t.Errorf("reversed legal order was not a cache hit: %+v", st)
	}
}

func TestEvaluatorContext(t *testing.T) {
	net := modeltest.TinyNet(t, 33)
	ev := NewEvaluator(net, EvaluatorOptions{MaxBatch: 4, Backend: BackendFP32})
	defer ev.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p := rules.Start()
	q := mcts.Query{Pos: p, Legal: p.Legal(nil)}
	if err := ev.Evaluate(ctx, q, &mcts.Evaluation{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
	if err := ev.Evaluate(context.Background(), mcts.Query{Pos: p}, &mcts.Evaluation{}); err == nil {
		t.Errorf("no legal moves: no error")
	}
	// Many callers cancelling at random moments never break the evaluator.
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			var out mcts.Evaluation
			for k := 0; k < 50; k++ {
				ctx, cancel := context.WithCancel(context.Background())
				if (w+k)%3 == 0 {
					go cancel()
				}
				err := ev.Evaluate(ctx, q, &out)
				cancel()
				if err != nil && !errors.Is(err, context.Canceled) {
					t.Error(err)
					return
				}
			}
		}(w)
	}
	wg.Wait()
	var out mcts.Evaluation
	if err := ev.Evaluate(context.Background(), q, &out); err != nil || !closeEval(out, reference(t, net, q)) {
		t.Errorf("after cancellations: %v %v", err, out)
	}
}

func TestEvaluatorClose(t *testing.T) {
	net := modeltest.TinyNet(t, 34)
	ev := NewEvaluator(net, EvaluatorOptions{Backend: BackendFP32})
	p := rules.Start()
	q := mcts.Query{Pos: p, Legal: p.Legal(nil)}
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var out mcts.Evaluation
			for k := 0; k < 100; k++ {
				if err := ev.Evaluate(context.Background(), q, &out); err != nil {
					if !errors.Is(err, ErrClosed) {
						t.Error(err)
					}
					return
				}
			}
		}()
	}
	ev.Close()
	wg.Wait()
	ev.Close() // twice is fine
}

// SetWorkers changes the number of batchers while the evaluator answers
// (the Hub's threads param), and does nothing after Close.
func TestEvaluatorSetWorkers(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	net := modeltest.TinyNet(t, 7)
	qs := modeltest.RandomPositions(rng, 8)
	ev := NewEvaluator(net, EvaluatorOptions{MaxBatch: 4, Backend: BackendFP32})
	ask := func(n int) {
		t.Helper()
		var wg sync.WaitGroup
		errs := make(chan error, len(qs))
		for _, q := range qs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				query := mcts.Query{Pos: q.Pos, Legal: q.Legal, Repetitions: q.Repetitions, QuietPlies: q.QuietPlies}
				var out mcts.Evaluation
				if err := ev.Evaluate(context.Background(), query, &out); err != nil {
					errs <- err
				} else if !closeEval(out, reference(t, net, query)) {
					errs <- errors.New("wrong evaluation of " + q.Pos.FEN())
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Errorf("%d workers: %v", n, err)
		}
	}
	for _, n := range []int{1, 4, 2, 0, 3} {
		ev.SetWorkers(n)
		if got := ev.Workers(); got != max(n, 1) {
			t.Errorf("SetWorkers(%d): %d workers", n, got)
		}
		ask(n)
	}
	ev.Close()
	ev.SetWorkers(5)
	if err := ev.Evaluate(context.Background(), mcts.Query{Pos: qs[0].Pos, Legal: qs[0].Legal}, &mcts.Evaluation{}); !errors.Is(err, ErrClosed) {
		t.Errorf("after Close and SetWorkers: %v, want ErrClosed", err)
	}
}

// Direct evaluates a batch on the calling goroutine as Evaluate does, in
// chunks of MaxBatch, through the cache.
func TestDirect(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	net := modeltest.TinyNet(t, 5)
	modeltest.PerturbStats(net, rng)
	qs := modeltest.RandomPositions(rng, 11)
	for _, cache := range []int{0, 100} {
		ev := NewEvaluator(net, EvaluatorOptions{MaxBatch: 4, CacheSize: cache, Backend: BackendFP32})
		d := ev.Direct()
		queries := make([]mcts.Query, len(qs))
		out := make([]*mcts.Evaluation, len(qs))
		for i, q := range qs {
			queries[i] = mcts.Query{Pos: q.Pos, Legal: q.Legal, Repetitions: q.Repetitions, QuietPlies: q.QuietPlies}
			out[i] = &mcts.Evaluation{}
		}
		for round := 0; round < 2; round++ { // the second from the cache, if any
			if err := d.EvaluateBatch(context.Background(), queries, out); err != nil {
				t.Fatal(err)
			}
			for i := range queries {
				if !closeEval(*out[i], reference(t, net, queries[i])) {
					t.Errorf("cache %d round %d: query %d differs from the forward pass", cache, round, i)
				}
			}
		}
		var one mcts.Evaluation
		if err := d.Evaluate(context.Background(), queries[3], &one); err != nil || !closeEval(one, reference(t, net, queries[3])) {
			t.Errorf("cache %d: Evaluate: %v", cache, err)
		}
		st := ev.Stats()
		wantBatches := int64(3 + 3 + 1) // 11 queries in chunks of 4, twice, and one
		if cache > 0 {
			wantBatches = 3 // the second round and the single one from the cache
		}
		if st.Batches != wantBatches || st.Evaluations != 23 {
			t.Errorf("cache %d: %d forward passes, %d evaluations; want %d, 23", cache, st.Batches, st.Evaluations, wantBatches)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := d.EvaluateBatch(ctx, queries, out); !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled: %v", err)
		}
		ev.Close()
		if err := d.Evaluate(context.Background(), queries[0], &one); !errors.Is(err, ErrClosed) {
			t.Errorf("after Close: %v, want ErrClosed", err)
		}
	}
}
