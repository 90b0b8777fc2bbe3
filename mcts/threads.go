package mcts

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
)

// Search threads (Options.Threads > 1). The forward pass of the network
// is almost all of a search's CPU time and the tree walk is cheap (about
// 2-3M playouts/s with an evaluator that answers at once, against some
// thousands of evaluations per second per core for the network), so the
// workers share one tree under one mutex and hold it only to walk and to
// back up: a worker locks the tree, collects Options.Parallel leaves
// under virtual loss (the selection of select.go, unchanged), unlocks,
// evaluates them (in one call with a BatchEvaluator: its own forward
// pass on its own goroutine; else one Evaluate per leaf, which a
// batching evaluator needs a batcher per thread for), locks again to
// expand and back them up, and starts over. While one worker waits for its forward pass
// the others walk, so Threads forward passes run at once. The virtual
// loss of the leaves in flight (Threads·Parallel at most) steers the
// workers apart. A worker whose selection runs only into leaves in flight
// elsewhere (a collision) waits until another worker backs up a batch.
// An Options.Oracle is asked during the walk, under the lock: its time
// is lock time, so a slow one limits the threads as it slows the walk.
//
// Determinism: the interleaving of the workers decides which leaves each
// collects, so a search with Threads > 1 is not repeatable visit for
// visit. What holds: a visit-limited Run ends with exactly lim.Visits
// root visits (leaves in flight count toward it), no virtual loss is left
// in the tree, every evaluation is backed up once along its own path, and
// Result reads the same tree statistics as with one thread.
//
// docs/performance.md ("Search threads") has the measurements and what
// limits the design at 16 to 64 cores.

// worker is the state of one search worker beyond the calling goroutine.
type worker struct {
	leaves []leaf
	batch  batchScratch
}

// threadRun is what the workers of one Run share, guarded by mu (which
// also guards the tree).
type threadRun struct {
	mu      sync.Mutex
	changed *sync.Cond // a batch was backed up, or the search stops
	stop    bool
	full    bool
	err     error
}

// runThreads is the loop of Run with Options.Threads workers: the calling
// goroutine and Threads-1 goroutines that live for the Run.
func (s *Search) runThreads(ctx context.Context, lim Limit, rng *rand.Rand) (bool, error) {
	n := s.opt.Threads
	for len(s.workers) < n-1 {
		s.workers = append(s.workers, worker{})
	}
	tr := &threadRun{full: true}
	tr.changed = sync.NewCond(&tr.mu)
	var wg sync.WaitGroup
	for i := 0; i < n-1; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.work(ctx, lim, rng, tr, &s.workers[i].leaves, &s.workers[i].batch)
		}()
	}
	s.work(ctx, lim, rng, tr, &s.leaves, &s.batch)
	wg.Wait()
	return tr.full, tr.err
}

// work is one worker's loop.
func (s *Search) work(ctx context.Context, lim Limit, rng *rand.Rand, tr *threadRun, leaves *[]leaf, sc *batchScratch) {
	var pool *evalPool
	if s.opt.Parallel > 1 {
		pool = &evalPool{}
		defer pool.stop()
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	for !tr.stop {
		want, stop, full, err := s.next(ctx, lim)
		if stop || err != nil {
			// Leaves in flight elsewhere are still backed up: a worker
			// applies its batch before it looks at tr.stop.
			s.halt(tr, full, err)
			return
		}
		t0 := s.stepStart(lim)
		batch := s.collect(leaves, want)
		if batch == 0 {
			if s.nodes[0].inflight > 0 {
				tr.changed.Wait() // every leaf it reached is in flight elsewhere
			}
			continue
		}
		tr.mu.Unlock()
		evaluate(ctx, s.ev, s.bev, (*leaves)[:batch], pool, sc)
		tr.mu.Lock()
		err = s.apply((*leaves)[:batch])
		s.timeStep(lim, t0)
		tr.changed.Broadcast()
		if err != nil {
			if errors.Is(err, context.DeadlineExceeded) && s.nodes[0].n > 0 {
				s.halt(tr, lim.Visits <= 0, nil)
			} else {
				s.halt(tr, false, err)
			}
			return
		}
		s.afterStep(lim, rng)
	}
}

// halt ends the Run for every worker: the Run is full only if every
// worker stopped at its end, and returns the first error.
func (s *Search) halt(tr *threadRun, full bool, err error) {
	tr.stop = true
	tr.full = tr.full && full
	if tr.err == nil {
		tr.err = err
	}
	tr.changed.Broadcast()
}
