package infer

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"dama/mcts"
	"dama/model"
	"dama/rules"
)

// EvaluatorOptions configures an Evaluator. Zero fields take the defaults.
type EvaluatorOptions struct {
	MaxBatch  int // most positions per forward pass (default 32)
	CacheSize int // cached evaluations; 0 disables the cache
	Workers   int // batcher goroutines, each running its own forward passes (default 1)
	// Backend names the forward pass (see BackendNames): "" or "auto" the
	// fastest this CPU supports, "fp32" the float32 kernels.
	Backend string
}

// ErrClosed is returned by Evaluate after Close.
var ErrClosed = errors.New("infer: evaluator closed")

// Evaluator evaluates positions with a network, implementing
// mcts.Evaluator. Evaluate is safe for concurrent use: each call queues its
// position and blocks; one batcher goroutine takes whatever is queued (up to
// MaxBatch, without waiting for more), runs one forward pass and answers
// every caller. An optional cache sits in front of the batcher. With
// Workers > 1, that many batchers share the queue, each on its own core.
type Evaluator struct {
	backend Backend
	max     int
	reqs    chan *request
	quit    chan struct{}
	done    chan struct{}
	once    sync.Once
	cache   *evalCache
	pool    sync.Pool

	mu    sync.Mutex      // guards stops
	stops []chan struct{} // one per batcher: closed to stop it (SetWorkers)
	wg    sync.WaitGroup  // the batchers

	evals, batches, batched, hits atomic.Int64
}

var _ mcts.Evaluator = (*Evaluator)(nil)

// request is one queued position. The caller encodes the input; the batcher
// fills the logits and closes over nothing the caller owns, so a caller that
// gives up (context cancelled) leaves it safely behind.
type request struct {
	input     [model.InputSize]float32
	policy    [model.PolicySize]float32
	wdl       [model.ValueSize]float32
	abandoned atomic.Bool
	ready     chan struct{}
}

// NewEvaluator returns an evaluator for a copy of net (later changes to net
// do not affect it) and starts its batcher. It panics if net does not match
// its config (a Network from NewNetwork, Load or a Trainer always does) or
// opt.Backend is not available (check user input with ResolveBackend, or
// call OpenEvaluator).
func NewEvaluator(net *model.Network, opt EvaluatorOptions) *Evaluator {
	e, err := OpenEvaluator(net, opt)
	if err != nil {
		panic(err)
	}
	return e
}

// OpenEvaluator is NewEvaluator returning an error for a network that does
// not match its config or a backend that is unknown or not available.
func OpenEvaluator(net *model.Network, opt EvaluatorOptions) (*Evaluator, error) {
	b, err := NewBackend(opt.Backend, net)
	if err != nil {
		return nil, err
	}
	return newBackendEvaluator(b, opt), nil
}

// newBackendEvaluator returns an evaluator running backend b (opt.Backend
// is ignored) and starts its batchers.
func newBackendEvaluator(b Backend, opt EvaluatorOptions) *Evaluator {
	if opt.MaxBatch <= 0 {
		opt.MaxBatch = 32
	}
	if opt.Workers <= 0 {
		opt.Workers = 1
	}
	e := &Evaluator{
		backend: b,
		max:     opt.MaxBatch,
		reqs:    make(chan *request, 4*opt.MaxBatch),
		quit:    make(chan struct{}),
		done:    make(chan struct{}),
	}
	e.pool.New = func() any { return &request{ready: make(chan struct{}, 1)} }
	if opt.CacheSize > 0 {
		e.cache = newEvalCache(opt.CacheSize)
	}
	e.SetWorkers(opt.Workers)
	go func() {
		e.wg.Wait()
		close(e.done)
	}()
	return e
}

// SetWorkers sets the number of batchers, each running its own forward
// passes on its own core, to n (at least 1): a search with n threads
// keeps n forward passes going. A batcher told to stop finishes its
// forward pass first; queued positions go to the others. It does nothing
// after Close.
func (e *Evaluator) SetWorkers(n int) {
	n = max(n, 1)
	e.mu.Lock()
	defer e.mu.Unlock()
	select {
	case <-e.quit:
		return
	default:
	}
	for len(e.stops) < n {
		stop := make(chan struct{})
		e.stops = append(e.stops, stop)
		e.wg.Add(1)
		go func() {
			defer e.wg.Done()
			e.batcher(stop)
		}()
	}
	for len(e.stops) > n {
		close(e.stops[len(e.stops)-1])
		e.stops = e.stops[:len(e.stops)-1]
	}
}

// Workers returns the number of batchers.
func (e *Evaluator) Workers() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.stops)
}

// Backend returns the name of the backend the evaluator runs.
func (e *Evaluator) Backend() string { return e.backend.Name() }

// Close stops the batcher; queued and later Evaluate calls return ErrClosed.
// It is safe to call more than once.
func (e *Evaluator) Close() {
	e.once.Do(func() { close(e.quit) })
	<-e.done
}

// EvaluatorStats counts an evaluator's work.
type EvaluatorStats struct {
	Evaluations int64   // answered Evaluate calls, cache hits included
	Batches     int64   // forward passes
	MeanBatch   float64 // positions per forward pass
	CacheHits   int64
}

// Stats returns the evaluator's counters.
func (e *Evaluator) Stats() EvaluatorStats {
	s := EvaluatorStats{Evaluations: e.evals.Load(), Batches: e.batches.Load(), CacheHits: e.hits.Load()}
	if s.Batches > 0 {
		s.MeanBatch = float64(e.batched.Load()) / float64(s.Batches)
	}
	return s
}

// Evaluate fills out with the priors of q.Legal (a softmax over the legal
// moves' logits, in q.Legal order) and the win/draw/loss probabilities of
// the side to move.
func (e *Evaluator) Evaluate(ctx context.Context, q mcts.Query, out *mcts.Evaluation) error {
	if len(q.Legal) == 0 {
		return fmt.Errorf("infer: evaluate %s: no legal moves", q.Pos.FEN())
	}
	if len(out.Priors) != len(q.Legal) {
		if cap(out.Priors) >= len(q.Legal) {
			out.Priors = out.Priors[:len(q.Legal)]
		} else {
			out.Priors = make([]float32, len(q.Legal))
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	select {
	case <-e.quit:
		return ErrClosed
	default:
	}
	var key cacheKey
	if e.cache != nil {
		key = cacheKeyOf(q)
		if e.cache.get(key, q, out) {
			e.hits.Add(1)
			e.evals.Add(1)
			return nil
		}
	}
	r := e.pool.Get().(*request)
	r.abandoned.Store(false)
	model.Encode(r.input[:], q.Pos, q.Repetitions, q.QuietPlies)
	select {
	case e.reqs <- r:
	case <-ctx.Done():
		e.pool.Put(r)
		return ctx.Err()
	case <-e.quit:
		e.pool.Put(r)
		return ErrClosed
	}
	select {
	case <-r.ready:
	case <-ctx.Done():
		r.abandoned.Store(true) // the batcher may still write to r; never reuse it
		return ctx.Err()
	case <-e.done:
		// The batchers have stopped; they answer what they took before stopping.
		select {
		case <-r.ready:
		default:
			return ErrClosed
		}
	}
	out.WDL = softmax3(r.wdl)
	legalSoftmax(out.Priors, r.policy[:], q.Pos, q.Legal)
	if e.cache != nil {
		e.cache.put(key, q, r.policy[:], out.WDL)
	}
	e.pool.Put(r)
	e.evals.Add(1)
	return nil
}

// batcher runs forward passes until Close or until stop is closed.
func (e *Evaluator) batcher(stop <-chan struct{}) {
	run := e.backend.NewRunner(e.max)
	input := make([]float32, e.max*model.InputSize)
	policy := make([]float32, e.max*model.PolicySize)
	wdl := make([]float32, e.max*model.ValueSize)
	batch := make([]*request, 0, e.max)
	for {
		batch = batch[:0]
		select {
		case r := <-e.reqs:
			batch = append(batch, r)
		case <-e.quit:
			return
		case <-stop:
			return
		}
		if len(e.reqs) < e.max-1 {
			// The callers answered by the last batch are runnable but have
			// not queued their next position yet: let them, so batches
			// fill (measured: batch ~18 instead of ~6 in self-play, +20%
			// forward throughput for the small preset).
			runtime.Gosched()
		}
	drain:
		for len(batch) < e.max {
			select {
			case r := <-e.reqs:
				batch = append(batch, r)
			default:
				break drain
			}
		}
		n := 0
		for _, r := range batch {
			if r.abandoned.Load() {
				continue
			}
			batch[n] = r
			n++
		}
		batch = batch[:n]
		if n == 0 {
			continue
		}
		for i, r := range batch {
			copy(input[i*model.InputSize:(i+1)*model.InputSize], r.input[:])
		}
		run.Forward(input[:n*model.InputSize], n, policy[:n*model.PolicySize], wdl[:n*model.ValueSize])
		for i, r := range batch {
			copy(r.policy[:], policy[i*model.PolicySize:(i+1)*model.PolicySize])
			copy(r.wdl[:], wdl[i*model.ValueSize:(i+1)*model.ValueSize])
			r.ready <- struct{}{}
		}
		e.batches.Add(1)
		e.batched.Add(int64(n))
	}
}

// softmax3 turns value logits into probabilities.
func softmax3(l [3]float32) [3]float32 {
	expNormalize(l[:], max(l[0], l[1], l[2]))
	return l
}

// legalSoftmax writes the softmax over the legal moves' logits into dst.
func legalSoftmax(dst, logits []float32, pos rules.Position, legal []rules.Move) {
	m := float32(math.Inf(-1))
	for i, mv := range legal {
		dst[i] = logits[model.PolicyIndex(pos, mv)]
		m = max(m, dst[i])
	}
	expNormalize(dst, m)
}

// expNormalize turns logits x, whose largest is m, into their softmax in
// place (summing the exponentials in float64).
func expNormalize(x []float32, m float32) {
	var s float64
	for i, v := range x {
		e := math.Exp(float64(v - m))
		x[i] = float32(e)
		s += e
	}
	for i := range x {
		x[i] = float32(float64(x[i]) / s)
	}
}

// The cache: evaluations keyed by the position (compared exactly, so hash
// collisions cannot mix positions up), its repetition count and its exact
// 40-move counter (buckets of one ply, so a cached answer is exactly what a
// fresh forward pass gives). It stores the legal moves' logits by policy
// index and the WDL probabilities, and answers for any order of q.Legal.
// It is sharded; each shard replaces its oldest entry when full.

type cacheKey struct {
	pos   rules.Position
	rep   uint8
	quiet uint8
}

type cacheEntry struct {
	key    cacheKey
	idx    []uint16 // policy indices of the legal moves, ascending, distinct
	logits []float32
	wdl    [3]float32
}

const cacheShards = 16

type evalCache struct {
	shards [cacheShards]cacheShard
}

type cacheShard struct {
	mu      sync.Mutex
	entries map[cacheKey]int // index into ring
	ring    []cacheEntry
	next    int
	cap     int
}

func newEvalCache(size int) *evalCache {
	c := &evalCache{}
	per := max(1, (size+cacheShards-1)/cacheShards)
	for i := range c.shards {
		c.shards[i].cap = per
		c.shards[i].entries = make(map[cacheKey]int, per)
	}
	return c
}

func (c *evalCache) shard(k cacheKey) *cacheShard {
	h := k.pos.Hash() ^ uint64(k.rep)*0x9E3779B97F4A7C15 ^ uint64(k.quiet)*0xBF58476D1CE4E5B9
	return &c.shards[(h>>32)%cacheShards]
}

// get fills out from the cache; it reports whether the key was there and
// every legal move had a cached logit.
func (c *evalCache) get(k cacheKey, q mcts.Query, out *mcts.Evaluation) bool {
	s := c.shard(k)
	s.mu.Lock()
	defer s.mu.Unlock()
	i, ok := s.entries[k]
	if !ok {
		return false
	}
	en := &s.ring[i]
	mx := float32(math.Inf(-1))
	for j, mv := range q.Legal {
		idx := uint16(model.PolicyIndex(q.Pos, mv))
		lo, hi := 0, len(en.idx)
		for lo < hi {
			mid := (lo + hi) / 2
			if en.idx[mid] < idx {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		if lo == len(en.idx) || en.idx[lo] != idx {
			return false
		}
		out.Priors[j] = en.logits[lo]
		mx = max(mx, en.logits[lo])
	}
	var sum float64
	for j, v := range out.Priors {
		x := math.Exp(float64(v - mx))
		out.Priors[j] = float32(x)
		sum += x
	}
	for j := range out.Priors {
		out.Priors[j] = float32(float64(out.Priors[j]) / sum)
	}
	out.WDL = en.wdl
	return true
}

func (c *evalCache) put(k cacheKey, q mcts.Query, logits []float32, wdl [3]float32) {
	var idx [rules.MaxMoves]uint16
	n := 0
	for _, mv := range q.Legal {
		v := uint16(model.PolicyIndex(q.Pos, mv))
		j := n
		for j > 0 && idx[j-1] > v {
			j--
		}
		if j > 0 && idx[j-1] == v {
			continue
		}
		if n == len(idx) {
			break
		}
		copy(idx[j+1:n+1], idx[j:n])
		idx[j] = v
		n++
	}
	s := c.shard(k)
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.entries[k]; ok {
		return
	}
	var en *cacheEntry
	if len(s.ring) < s.cap {
		s.ring = append(s.ring, cacheEntry{})
		en = &s.ring[len(s.ring)-1]
		s.entries[k] = len(s.ring) - 1
	} else {
		en = &s.ring[s.next]
		delete(s.entries, en.key)
		s.entries[k] = s.next
		s.next = (s.next + 1) % s.cap
	}
	en.key = k
	en.idx = append(en.idx[:0], idx[:n]...)
	en.logits = en.logits[:0]
	for _, v := range idx[:n] {
		en.logits = append(en.logits, logits[v])
	}
	en.wdl = wdl
}
