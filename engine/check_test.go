package engine

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"dama/rules"
)

// fakeCheck is a move check that plays the last legal move other than the
// chosen one and spends its whole budget on the fake clock.
type fakeCheck struct {
	clock   *fakeClock
	share   float64
	budgets []time.Duration
	chosen  []rules.Move
}

func (c *fakeCheck) TimeShare(rules.Position) float64 { return c.share }

func (c *fakeCheck) CheckMove(ctx context.Context, g *rules.Game, chosen rules.Move, budget time.Duration) (rules.Move, error) {
	c.budgets = append(c.budgets, budget)
	c.chosen = append(c.chosen, chosen)
	c.clock.add(budget)
	moves := g.Legal(nil)
	for i := len(moves) - 1; i >= 0; i-- {
		if moves[i] != chosen {
			return moves[i], nil
		}
	}
	return chosen, nil
}

// A move check (mcts.Options.Check) gets its share of a timed move, the
// tree search the rest, and its move is played; by visits it gets no
// budget; a forced move is not checked, nor a timed move where its share
// is 0.
func TestThinkMoveCheck(t *testing.T) {
	clock := newFakeClock()
	check := &fakeCheck{clock: clock, share: 0.4}
	s := fakeSearcher(Uniform{}, clock)
	s.check = check
	g := rules.NewGame(rules.Start())
	const move = 200 * time.Millisecond
	res, took := think(t, s, clock, g, Limits{Time: move, WholeTime: true})
	if len(check.budgets) != 1 {
		t.Fatalf("timed move: %d checks, want 1", len(check.budgets))
	}
	if b := check.budgets[0]; b < 70*time.Millisecond || b > 85*time.Millisecond {
		t.Errorf("timed move: the check got %v of %v, want about its 40%% (80 ms) less the tree search's overrun", b, move)
	}
	if took > move+5*time.Millisecond || took < move-5*time.Millisecond {
		t.Errorf("timed move took %v, want its %v", took, move)
	}
	if res.Move == check.chosen[0] || !legal(g.Position(), res.Move) {
		t.Errorf("played %s, the tree's move, not the check's", res.Move)
	}
	if len(res.PV) != 1 || res.PV[0] != res.Move {
		t.Errorf("a replaced move's PV is %v, want the move alone", res.PV)
	}

	check.budgets = nil
	if _, err := s.Think(context.Background(), g, Limits{Visits: 40}, nil); err != nil {
		t.Fatal(err)
	}
	if len(check.budgets) != 1 || check.budgets[0] != 0 {
		t.Errorf("search by visits: check budgets %v, want one of 0 (its depth decides)", check.budgets)
	}

	// A position with one legal move, from a random game.
	rng := rand.New(rand.NewPCG(3, 0))
	forced := rules.NewGame(rules.Start())
	for len(forced.Legal(nil)) != 1 {
		if forced.Outcome().Over() {
			forced = rules.NewGame(rules.Start())
		}
		moves := forced.Legal(nil)
		forced.PlayUnchecked(moves[rng.IntN(len(moves))])
	}
	check.budgets = nil
	s.Reset()
	if _, err := s.Think(context.Background(), forced, Limits{Time: move}, nil); err != nil {
		t.Fatal(err)
	}
	if len(check.budgets) != 0 {
		t.Errorf("a forced move was checked (%v)", check.budgets)
	}

	// A share of 0 (a quiet position, say) leaves a timed move to the
	// tree alone, for its whole time; by visits the check still runs.
	check.share, check.budgets = 0, nil
	s.Reset()
	res, took = think(t, s, clock, g, Limits{Time: move, WholeTime: true})
	if len(check.budgets) != 0 {
		t.Errorf("share 0: the timed move was checked (%v)", check.budgets)
	}
	if took > move+5*time.Millisecond || took < move-5*time.Millisecond {
		t.Errorf("share 0: the timed move took %v, want its %v", took, move)
	}
	if !legal(g.Position(), res.Move) {
		t.Errorf("share 0: played %s, not a legal move", res.Move)
	}
	if _, err := s.Think(context.Background(), g, Limits{Visits: 40}, nil); err != nil {
		t.Fatal(err)
	}
	if len(check.budgets) != 1 {
		t.Errorf("share 0, search by visits: %d checks, want 1", len(check.budgets))
	}
}
