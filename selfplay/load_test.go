package selfplay

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"dama/internal/cputime"
	"dama/mcts"
	"dama/model"
	"dama/model/infer"
	"dama/rules"
)

var (
	loadPhase  = flag.Duration("loadphase", time.Second, "wall time of each phase of BenchmarkSelfplayEvaluatorLoad")
	loadRounds = flag.Int("loadrounds", 4, "rounds of BenchmarkSelfplayEvaluatorLoad: each a standalone phase and a self-play phase")
	loadCases  = flag.String("loadcases", "", "cases of BenchmarkSelfplayEvaluatorLoad instead of the default ones: PRESET:GAMES:LEAVES:BATCH:WORKERS:CACHE,...")
)

// loadCase is one self-play setting measured by BenchmarkSelfplayEvaluatorLoad.
type loadCase struct {
	preset  string
	games   int // games in flight (Config.Parallel)
	leaves  int // leaves in flight per game (Config.LeavesInFlight)
	batch   int // infer.EvaluatorOptions.MaxBatch; 0: games*leaves (as dama selfplay)
	workers int // infer.EvaluatorOptions.Workers
	cache   int // infer.EvaluatorOptions.CacheSize of the self-play evaluator
}

func (c loadCase) maxBatch() int {
	if c.batch > 0 {
		return c.batch
	}
	return c.games * c.leaves
}

func (c loadCase) String() string {
	return fmt.Sprintf("%s/games=%d/leaves=%d/batch=%d/workers=%d/cache=%d", c.preset, c.games, c.leaves, c.maxBatch(), c.workers, c.cache)
}

// BenchmarkSelfplayEvaluatorLoad measures in one run how busy self-play keeps
// a batched network evaluator (a fresh network of the preset), against the
// same evaluator fed back to back at the same batch size. It alternates
// -loadrounds rounds of two phases of -loadphase each, so that a varying
// load from other processes falls on both alike:
//
//   - standalone: twice MaxBatch goroutines call Evaluate of a cache-less
//     evaluator in a loop on fixed positions, so a full batch is queued
//     whenever a forward pass ends (the batcher, which does not wait, may
//     still take less: see standalone-batch);
//   - self-play: Run at the default settings (200 visits) with the case's
//     games and leaves in flight; it keeps going between its phases, held
//     at a gate in front of its evaluator. Its games start together, so a
//     short run sees mostly openings, which games share: the cache hits
//     more often than over whole games.
//
// Metrics: standalone-pos/s, fwd-pos/s (positions through forward passes
// during self-play; cache hits are not forward passes), load-% (their
// ratio), evals/s (all answered evaluations of self-play, cache hits
// included), hit-%, and the mean batch of both; the log line adds the CPU
// cores the process used in each (on a shared machine, less than
// GOMAXPROCS). Run it as
//
//	go test ./selfplay/ -run XXX -bench EvaluatorLoad -benchtime 1x
//	go test ./selfplay/ -run XXX -bench EvaluatorLoad -benchtime 1x -loadcases small:64:1:32:1:0
func BenchmarkSelfplayEvaluatorLoad(b *testing.B) {
	cases := []loadCase{
		{preset: "small", games: 32, leaves: 1, workers: 1, cache: 1 << 16},
		{preset: "small", games: 32, leaves: 1, workers: 1},
		{preset: "workstation", games: 32, leaves: 1, workers: 1, cache: 1 << 16},
		{preset: "workstation", games: 32, leaves: 1, workers: 1},
	}
	if *loadCases != "" {
		cases = cases[:0]
		for _, f := range strings.Split(*loadCases, ",") {
			var c loadCase
			parts := strings.Split(f, ":")
			if len(parts) != 6 {
				b.Fatalf("-loadcases %q: want PRESET:GAMES:LEAVES:BATCH:WORKERS:CACHE", f)
			}
			c.preset = parts[0]
			for i, v := range []*int{&c.games, &c.leaves, &c.batch, &c.workers, &c.cache} {
				n, err := strconv.Atoi(parts[i+1])
				if err != nil {
					b.Fatalf("-loadcases %q: %v", f, err)
				}
				*v = n
			}
			cases = append(cases, c)
		}
	}
	for _, c := range cases {
		b.Run(c.String(), func(b *testing.B) {
			cfg, err := model.Preset(c.preset)
			if err != nil {
				b.Fatal(err)
			}
			net := model.NewSeededNetwork(cfg, 1)
			qs := loadPositions(rand.New(rand.NewPCG(2, 0)), 512)
			for b.Loop() {
				alone, sp := measureLoad(b, net, c, qs)
				load := 100 * sp.fwd() / alone.fwd()
				b.ReportMetric(alone.fwd(), "standalone-pos/s")
				b.ReportMetric(alone.batch(), "standalone-batch")
				b.ReportMetric(sp.fwd(), "fwd-pos/s")
				b.ReportMetric(sp.evals(), "evals/s")
				b.ReportMetric(sp.hits(), "hit-%")
				b.ReportMetric(sp.batch(), "batch")
				b.ReportMetric(load, "load-%")
				b.Logf("%v: standalone %.0f pos/s (batch %.1f, %.2f cores); self-play %.0f fwd pos/s (%.0f evals/s, %.1f%% hits, batch %.1f, %.2f cores, %d games done): load %.0f%%",
					c, alone.fwd(), alone.batch(), alone.cores(), sp.fwd(), sp.evals(), sp.hits(), sp.batch(), sp.cores(), sp.games, load)
			}
		})
	}
}

// loadPositions returns n positions from random games.
func loadPositions(rng *rand.Rand, n int) []mcts.Query {
	var out []mcts.Query
	for len(out) < n {
		g := rules.NewGame(rules.Start())
		for ply := 0; ply < 200 && len(out) < n; ply++ {
			legal := g.Legal(nil)
			if len(legal) == 0 {
				break
			}
			if rng.IntN(3) == 0 {
				out = append(out, mcts.Query{Pos: g.Position(), Legal: legal, Repetitions: g.Repetitions(), QuietPlies: g.QuietPlies()})
			}
			g.PlayUnchecked(legal[rng.IntN(len(legal))])
		}
	}
	return out
}

// loadCount sums an evaluator's work over the phases of one kind.
type loadCount struct {
	sec, cpu            float64
	nEval, nHit, fwdPos float64
	batches             float64
	games               int
}

func (l *loadCount) add(s0, s1 infer.EvaluatorStats, sec, cpu float64) {
	l.sec += sec
	l.cpu += cpu
	l.nEval += float64(s1.Evaluations - s0.Evaluations)
	l.nHit += float64(s1.CacheHits - s0.CacheHits)
	l.fwdPos += s1.MeanBatch*float64(s1.Batches) - s0.MeanBatch*float64(s0.Batches)
	l.batches += float64(s1.Batches - s0.Batches)
}

func (l *loadCount) fwd() float64   { return l.fwdPos / l.sec }
func (l *loadCount) evals() float64 { return l.nEval / l.sec }
func (l *loadCount) hits() float64  { return 100 * l.nHit / max(l.nEval, 1) }
func (l *loadCount) batch() float64 { return l.fwdPos / max(l.batches, 1) }
func (l *loadCount) cores() float64 { return l.cpu / l.sec }

// gate holds Evaluate calls while closed; close waits for those in flight.
type gate struct {
	mu sync.RWMutex
	ev mcts.Evaluator
}

func (g *gate) Evaluate(ctx context.Context, q mcts.Query, e *mcts.Evaluation) error {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.ev.Evaluate(ctx, q, e)
}

// measureLoad runs the alternating phases of BenchmarkSelfplayEvaluatorLoad.
func measureLoad(b *testing.B, net *model.Network, c loadCase, qs []mcts.Query) (alone, sp loadCount) {
	aev := infer.NewEvaluator(net, infer.EvaluatorOptions{MaxBatch: c.maxBatch(), Workers: c.workers})
	defer aev.Close()
	sev := infer.NewEvaluator(net, infer.EvaluatorOptions{MaxBatch: c.maxBatch(), Workers: c.workers, CacheSize: c.cache})
	defer sev.Close()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	g := &gate{ev: sev}
	g.mu.Lock() // closed until the first self-play phase
	var games atomic.Int64
	runErr := make(chan error, 1)
	go func() {
		cfg := testConfig(7, func(s *Config) { s.Parallel, s.LeavesInFlight = c.games, c.leaves })
		runErr <- Run(ctx, g, cfg, 0, 1<<30, func(*Game) error { games.Add(1); return nil })
	}()

	feeders := 2 * c.maxBatch() * max(c.workers, 1)
	for round := 0; round < *loadRounds; round++ {
		// Standalone phase.
		fctx, stop := context.WithCancel(ctx)
		var wg sync.WaitGroup
		for w := 0; w < feeders; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var out mcts.Evaluation
				for i := w; fctx.Err() == nil; i += feeders {
					if err := aev.Evaluate(fctx, qs[i%len(qs)], &out); err != nil && fctx.Err() == nil {
						b.Error(err)
						return
					}
				}
			}()
		}
		time.Sleep(*loadPhase / 10) // fill the queue
		s0, t0, c0 := aev.Stats(), time.Now(), processSeconds()
		time.Sleep(*loadPhase)
		alone.add(s0, aev.Stats(), time.Since(t0).Seconds(), processSeconds()-c0)
		stop()
		wg.Wait()

		// Self-play phase.
		g.mu.Unlock()
		time.Sleep(*loadPhase / 10)
		s0, t0, c0 = sev.Stats(), time.Now(), processSeconds()
		time.Sleep(*loadPhase)
		sp.add(s0, sev.Stats(), time.Since(t0).Seconds(), processSeconds()-c0)
		g.mu.Lock()
	}
	select {
	case err := <-runErr:
		b.Fatalf("self-play stopped: %v", err)
	default:
	}
	sp.games = int(games.Load())
	cancel()
	g.mu.Unlock()
	<-runErr
	return alone, sp
}

// processSeconds is the process's CPU time in seconds (0 where unmeasured).
func processSeconds() float64 {
	d, _ := cputime.Process()
	return d.Seconds()
}
