package arena

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"dama/internal/evaltest"
	"dama/mcts"
	"dama/rules"
)

func TestMCTSPlayerBeatsRandom(t *testing.T) {
	p := &MCTSPlayer{Label: "mcts", Evaluator: evaltest.Material{}, Visits: 64}
	res, err := Match(context.Background(), p, randomPlayer{}, MatchOptions{Games: 10, Parallel: 2, Seed: 3, MaxPlies: 200})
	if err != nil {
		t.Fatal(err)
	}
	if res.Score() < 0.8 {
		t.Errorf("MCTS with a material evaluator scored %.2f against random (%s), want >= 0.8", res.Score(), res)
	}
}

func TestMCTSPlayerNeedsEvaluatorAndVisits(t *testing.T) {
	g := rules.NewGame(rules.Start())
	if _, err := (&MCTSPlayer{Label: "x", Visits: 10}).Start(context.Background(), g, nil); err == nil {
		t.Error("Start without an evaluator succeeded")
	}
	if _, err := (&MCTSPlayer{Label: "x", Evaluator: evaltest.Material{}}).Start(context.Background(), g, nil); err == nil {
		t.Error("Start without visits succeeded")
	}
	bad := &MCTSPlayer{Label: "x", Evaluator: evaltest.Material{}, Visits: 10, Options: mcts.Options{FPUReduction: -1}}
	if _, err := bad.Start(context.Background(), g, nil); err == nil || !strings.Contains(err.Error(), "FPUReduction") {
		t.Errorf("Start with a negative FPU reduction: %v, want an error naming it", err)
	}
}

// deadlineEvaluator answers like evaltest.Material, except that under a
// context with a deadline it waits for the deadline: a search given a time
// limit then ends exactly when its time is spent, whatever the machine's
// speed. It counts the evaluations that saw their deadline pass.
type deadlineEvaluator struct {
	expired chan struct{}
}

func (d deadlineEvaluator) Evaluate(ctx context.Context, q mcts.Query, out *mcts.Evaluation) error {
	if _, ok := ctx.Deadline(); ok {
		<-ctx.Done()
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			select {
			case d.expired <- struct{}{}:
			default:
			}
		}
		return ctx.Err()
	}
	return evaltest.Material{}.Evaluate(ctx, q, out)
}

func TestTimedMCTSPlayerStopsAtItsTime(t *testing.T) {
	ev := deadlineEvaluator{expired: make(chan struct{}, 1)}
	p := &MCTSPlayer{Label: "mcts@t0.02", Evaluator: ev, Time: 20 * time.Millisecond}
	g := rules.NewGame(rules.Start())
	gp, err := p.Start(context.Background(), g, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer gp.Close()
	start := time.Now()
	m, err := gp.Move(context.Background(), g)
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(g.Position().Legal(nil), m) {
		t.Errorf("timed MCTS played %v, not legal", m)
	}
	select {
	case <-ev.expired:
	default:
		t.Error("the search did not end at its deadline: no evaluation saw it pass")
	}
	// A generous bound: the search waits for its deadline, so only a
	// limit that was not kept could take this long.
	if took > 20*time.Millisecond+10*time.Second {
		t.Errorf("a 20ms move took %v", took)
	}
}

func TestTimedMCTSPlayerPlaysAMatch(t *testing.T) {
	p := &MCTSPlayer{Label: "mcts@t0.01", Evaluator: evaltest.Material{}, Time: 10 * time.Millisecond}
	res, err := Match(context.Background(), p, randomPlayer{}, MatchOptions{Games: 2, Parallel: 2, Seed: 5, MaxPlies: 40})
	if err != nil {
		t.Fatal(err)
	}
	if res.Games() != 2 {
		t.Errorf("mcts@t0.01 against random: %d games counted, want 2", res.Games())
	}
	if _, err := (&MCTSPlayer{Label: "x", Evaluator: evaltest.Material{}}).Start(context.Background(), rules.NewGame(rules.Start()), nil); err == nil || !strings.Contains(err.Error(), "time per move") {
		t.Errorf("Start with neither visits nor time: %v, want an error naming both", err)
	}
}
