package infer

import (
	"context"
	"fmt"
	"sync"

	"dama/mcts"
	"dama/model"
	"dama/rules"
)

// Direct is a view of an Evaluator that runs forward passes on the
// calling goroutine (lc0's search threads): EvaluateBatch evaluates a
// search worker's whole batch in one forward pass, with no hand-off to a
// batcher goroutine and back. A search with n threads (mcts.Options.Threads)
// then keeps n forward passes going, one per worker, each on its own core.
// It shares the Evaluator's cache and counters; its batches are at most
// the Evaluator's MaxBatch (larger ones are split). It implements
// mcts.BatchEvaluator and is safe for concurrent use.
type Direct struct {
	e       *Evaluator
	runners sync.Pool // *directRunner
}

// directRunner is a runner with its buffers, for one goroutine at a time.
type directRunner struct {
	run                Runner
	input, policy, wdl []float32
	misses             []int
}

var _ mcts.BatchEvaluator = (*Direct)(nil)

// Direct returns the direct view of e.
func (e *Evaluator) Direct() *Direct {
	d := &Direct{e: e}
	d.runners.New = func() any {
		return &directRunner{
			run:    e.backend.NewRunner(e.max),
			input:  make([]float32, e.max*model.InputSize),
			policy: make([]float32, e.max*model.PolicySize),
			wdl:    make([]float32, e.max*model.ValueSize),
			misses: make([]int, 0, e.max),
		}
	}
	return d
}

// BatchEvaluator returns e.Direct() as an mcts.BatchEvaluator: a search
// with more than one thread (engine.NewSearcher) evaluates through it.
func (e *Evaluator) BatchEvaluator() mcts.BatchEvaluator { return e.Direct() }

// Evaluate implements mcts.Evaluator: a batch of one, on the calling
// goroutine.
func (d *Direct) Evaluate(ctx context.Context, q mcts.Query, out *mcts.Evaluation) error {
	return d.EvaluateBatch(ctx, []mcts.Query{q}, []*mcts.Evaluation{out})
}

// EvaluateBatch implements mcts.BatchEvaluator: out[i] gets the priors of
// qs[i].Legal and the win/draw/loss probabilities, as Evaluate gives them.
// A forward pass is not interrupted: ctx is read before each.
func (d *Direct) EvaluateBatch(ctx context.Context, qs []mcts.Query, out []*mcts.Evaluation) error {
	if len(qs) != len(out) {
		return fmt.Errorf("infer: %d queries and %d evaluations", len(qs), len(out))
	}
	for i, q := range qs {
		if len(q.Legal) == 0 {
			return fmt.Errorf("infer: evaluate %s: no legal moves", q.Pos.FEN())
		}
		o := out[i]
		if cap(o.Priors) >= len(q.Legal) {
			o.Priors = o.Priors[:len(q.Legal)]
		} else {
			o.Priors = make([]float32, len(q.Legal))
		}
	}
	for start := 0; start < len(qs); start += d.e.max {
		end := min(start+d.e.max, len(qs))
		if err := d.chunk(ctx, qs[start:end], out[start:end]); err != nil {
			return err
		}
	}
	return nil
}

// chunk evaluates at most MaxBatch queries: the cache, then one forward
// pass for the rest.
func (d *Direct) chunk(ctx context.Context, qs []mcts.Query, out []*mcts.Evaluation) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	select {
	case <-d.e.quit:
		return ErrClosed
	default:
	}
	e := d.e
	r := d.runners.Get().(*directRunner)
	defer d.runners.Put(r)
	r.misses = r.misses[:0]
	for i, q := range qs {
		if e.cache != nil && e.cache.get(cacheKeyOf(q), q, out[i]) {
			e.hits.Add(1)
			continue
		}
		model.Encode(r.input[len(r.misses)*model.InputSize:], q.Pos, q.Repetitions, q.QuietPlies)
		r.misses = append(r.misses, i)
	}
	e.evals.Add(int64(len(qs)))
	n := len(r.misses)
	if n == 0 {
		return nil
	}
	r.run.Forward(r.input[:n*model.InputSize], n, r.policy[:n*model.PolicySize], r.wdl[:n*model.ValueSize])
	for k, i := range r.misses {
		q := qs[i]
		policy := r.policy[k*model.PolicySize : (k+1)*model.PolicySize]
		out[i].WDL = softmax3([3]float32(r.wdl[k*model.ValueSize : (k+1)*model.ValueSize]))
		legalSoftmax(out[i].Priors, policy, q.Pos, q.Legal)
		if e.cache != nil {
			e.cache.put(cacheKeyOf(q), q, policy, out[i].WDL)
		}
	}
	e.batches.Add(1)
	e.batched.Add(int64(n))
	return nil
}

// cacheKeyOf is the cache key of q.
func cacheKeyOf(q mcts.Query) cacheKey {
	return cacheKey{pos: q.Pos, rep: uint8(min(max(q.Repetitions, 0), 2)), quiet: uint8(min(max(q.QuietPlies, 0), rules.QuietLimit))}
}
