package arena

import (
	"context"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"dama/arena/classic"
	"dama/internal/evaltest"
	"dama/mcts"
	"dama/rules"
)

// batchMaterial is evaltest.Material as an mcts.BatchEvaluator: it
// evaluates on the calling goroutine, as a CPU-timed player needs.
type batchMaterial struct{ evaltest.Material }

func (b batchMaterial) EvaluateBatch(ctx context.Context, qs []mcts.Query, es []*mcts.Evaluation) error {
	for i := range qs {
		if err := b.Evaluate(ctx, qs[i], es[i]); err != nil {
			return err
		}
	}
	return nil
}

// TestCPUClockCountsOnlyWork: the clock of a locked thread does not move
// while the thread sleeps, and moves with its work.
func TestCPUClockCountsOnlyWork(t *testing.T) {
	if err := CheckCPUClock(); err != nil {
		t.Skip(err)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c := CPUClock{}
	t0 := c.Now()
	time.Sleep(100 * time.Millisecond)
	slept := c.Now().Sub(t0)
	x := 1.0
	for i := 0; i < 30_000_000; i++ {
		x = x*1.0000001 + 1e-9
	}
	worked := c.Now().Sub(t0) - slept
	if slept > 50*time.Millisecond {
		t.Errorf("100ms asleep took %v of the thread's CPU time", slept)
	}
	if worked <= 0 {
		t.Errorf("work took %v of the thread's CPU time (x=%g)", worked, x)
	}
}

// TestCPUTimedPlayerSpendsCPUTime: with one processor shared with a
// goroutine that only burns CPU, a player timed in CPU time still spends
// its whole time per move in CPU time of its thread (a wall-clock player
// would get about half).
func TestCPUTimedPlayerSpendsCPUTime(t *testing.T) {
	if err := CheckCPUClock(); err != nil {
		t.Skip(err)
	}
	const limit = 100 * time.Millisecond
	p := &MCTSPlayer{Label: "m@t0.1", Evaluator: batchMaterial{}, Time: limit}
	if q, err := WithCPUTime(p); err != nil || q != Player(p) || !p.CPUTime {
		t.Fatalf("WithCPUTime: %v, %v, CPUTime %v", q, err, p.CPUTime)
	}
	g := rules.NewGame(rules.Start())
	gp, err := p.Start(context.Background(), g, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer gp.Close()

	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
				for i := 0; i < 1000; i++ {
					_ = i * i
				}
			}
		}
	})
	runtime.LockOSThread()
	t0 := CPUClock{}.Now()
	w0 := time.Now()
	m, err := gp.Move(context.Background(), g)
	used, wall := CPUClock{}.Now().Sub(t0), time.Since(w0)
	runtime.UnlockOSThread()
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(g.Position().Legal(nil), m) {
		t.Errorf("played %v, not legal", m)
	}
	if used < limit*9/10 {
		t.Errorf("a move of %v in CPU time used %v of its thread's CPU time (%v wall)", limit, used, wall)
	}
}

// TestWithCPUTime: timed classic and MCTS players are set to CPU time and
// play a match; players without a time are returned as they are; an MCTS
// player whose search is not all on its goroutine is refused.
func TestWithCPUTime(t *testing.T) {
	if err := CheckCPUClock(); err != nil {
		t.Skip(err)
	}
	c, err := WithCPUTime(classicPlayer{Limits: classic.Limits{Time: 5 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	if cp := c.(classicPlayer); !cp.cpu || cp.Options.Now == nil {
		t.Errorf("timed classic player after WithCPUTime: cpu %v, clock set %v", cp.cpu, cp.Options.Now != nil)
	}
	if d, _ := WithCPUTime(classicPlayer{Limits: classic.Limits{Depth: 3}}); d.(classicPlayer).cpu {
		t.Error("a classic player by depth was set to CPU time")
	}
	m, err := WithCPUTime(&MCTSPlayer{Label: "m@t0.005", Evaluator: batchMaterial{}, Time: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Match(context.Background(), m, c, MatchOptions{Games: 2, Parallel: 2, Seed: 3, MaxPlies: 40})
	if err != nil {
		t.Fatal(err)
	}
	if res.Games() != 2 {
		t.Errorf("%d games counted, want 2", res.Games())
	}
	if v, err := WithCPUTime(&MCTSPlayer{Label: "m@5", Evaluator: evaltest.Material{}, Visits: 5}); err != nil || v.(*MCTSPlayer).CPUTime {
		t.Errorf("a player by visits: %v, CPUTime set", err)
	}
	for name, p := range map[string]*MCTSPlayer{
		"evaluates elsewhere": {Label: "m@t0.01", Evaluator: evaltest.Material{}, Time: 10 * time.Millisecond},
		"threads":             {Label: "m@t0.01", Evaluator: batchMaterial{}, Time: 10 * time.Millisecond, Options: mcts.Options{Threads: 2}},
	} {
		_, err := WithCPUTime(p)
		if err == nil || !strings.Contains(err.Error(), "CPU time") {
			t.Errorf("%s: %v, want an error about CPU time", name, err)
		}
		p.CPUTime = true
		if _, err := p.Start(context.Background(), rules.NewGame(rules.Start()), nil); err == nil {
			t.Errorf("%s: Start with CPUTime set gave no error", name)
		}
	}
}
