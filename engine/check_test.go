package engine

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"dama/mcts"
	"dama/rules"
)

// fakeCheck is a move check that plays the last legal move other than the
// chosen one and spends its whole budget on the fake clock.
type fakeCheck struct {
	clock   *fakeClock
	share   float64
	spare   bool // a mcts.SpareCheck that takes the time the tree leaves
	budgets []time.Duration
	chosen  []rules.Move
}

func (c *fakeCheck) TimeShare(rules.Position) float64 { return c.share }

func (c *fakeCheck) SpareTime(rules.Position) bool { return c.spare }

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

// favourEval gives the first legal move nearly all the prior, so that a
// search settles on it early; every position is a draw.
type favourEval struct{}

func (favourEval) Evaluate(ctx context.Context, q mcts.Query, e *mcts.Evaluation) error {
	if err := (Uniform{}).Evaluate(ctx, q, e); err != nil {
		return err
	}
	if n := len(q.Legal); n > 1 {
		for i := range e.Priors {
			e.Priors[i] = 0.02 / float32(n-1)
		}
		e.Priors[0] = 0.98
	}
	return nil
}

// A check that takes the time the tree leaves (mcts.SpareCheck) gets,
// with a share of 0, what is left of a timed move once the tree's choice
// is settled or decided: much of it when one move takes the visits,
// little (at least the least budget) when the visits spread, three
// quarters where every move wins. The check's move is played, the move
// takes its whole time either way, and a check that is neither spare
// nor given a share is not run.
func TestThinkSpareCheck(t *testing.T) {
	const move = 200 * time.Millisecond
	g := rules.NewGame(rules.Start())
	// Three kings against a man: every move wins by the material.
	won := rules.NewGame(mustFEN(t, "W:WK5,K7,K11:B2"))
	for _, tc := range []struct {
		name       string
		g          *rules.Game
		ev         mcts.Evaluator
		minB, maxB time.Duration
	}{
		{"one move takes the visits", g, favourEval{}, 60 * time.Millisecond, 190 * time.Millisecond},
		{"the visits spread", g, Uniform{}, 0, 25 * time.Millisecond},
		{"decided", won, materialEval{}, 140 * time.Millisecond, 160 * time.Millisecond},
	} {
		g := tc.g
		clock := newFakeClock()
		check := &fakeCheck{clock: clock, spare: true}
		s := fakeSearcher(tc.ev, clock)
		s.check = check
		res, took := think(t, s, clock, g, Limits{Time: move, WholeTime: true})
		if len(check.budgets) != 1 {
			t.Fatalf("%s: %d checks, want 1", tc.name, len(check.budgets))
		}
		if b := check.budgets[0]; b < tc.minB || b > tc.maxB {
			t.Errorf("%s: the check got %v of %v, want %v-%v", tc.name, b, move, tc.minB, tc.maxB)
		}
		if took > move+5*time.Millisecond || took < move-5*time.Millisecond {
			t.Errorf("%s: the move took %v, want its %v", tc.name, took, move)
		}
		if res.Move == check.chosen[0] {
			t.Errorf("%s: played the tree's move %s, not the check's", tc.name, res.Move)
		}
		if tc.ev == (favourEval{}) && check.chosen[0] != g.Legal(nil)[0] {
			t.Errorf("%s: the tree chose %s, want the favoured %s", tc.name, check.chosen[0], g.Legal(nil)[0])
		}
	}

	// Not spare, share 0: unchecked, the tree takes the whole time.
	clock := newFakeClock()
	check := &fakeCheck{clock: clock}
	s := fakeSearcher(favourEval{}, clock)
	s.check = check
	if _, took := think(t, s, clock, g, Limits{Time: move, WholeTime: true}); len(check.budgets) != 0 || took < move-5*time.Millisecond {
		t.Errorf("share 0, not spare: %d checks, the move took %v; want none and the whole %v", len(check.budgets), took, move)
	}
}
