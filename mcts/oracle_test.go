package mcts

import (
	"context"
	"slices"
	"sync"
	"testing"

	"dama/rules"
)

// shallowOracle proves the positions whose side to move wins within plies
// plies (odd), by brute force, and keeps every position it was asked.
type shallowOracle struct {
	plies  int
	mu     sync.Mutex
	asked  []rules.Position
	proven map[rules.Position]bool
}

func (o *shallowOracle) Prove(q Query) (Proof, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.asked = append(o.asked, q.Pos)
	if len(q.Legal) == 0 || len(q.Legal) != len(q.Pos.Legal(nil)) {
		panic("oracle asked without the legal moves")
	}
	for _, m := range q.Legal {
		if winsWith(q.Pos, m, o.plies) {
			if o.proven == nil {
				o.proven = map[rules.Position]bool{}
			}
			o.proven[q.Pos] = true
			return ProofWin, true
		}
	}
	return ProofNone, false
}

// seenEval records the positions it evaluates.
type seenEval struct {
	materialEval
	mu   sync.Mutex
	seen []rules.Position
}

func (e *seenEval) Evaluate(ctx context.Context, q Query, out *Evaluation) error {
	e.mu.Lock()
	e.seen = append(e.seen, q.Pos)
	e.mu.Unlock()
	return e.materialEval.Evaluate(ctx, q, out)
}

// TestOracleProvesLeaves: an oracle that proves wins within 3 plies lets
// the solver prove a win in 5 in 40 visits, where alone it does not, the
// root is never asked, and no position the oracle proved reaches the
// evaluator.
func TestOracleProvesLeaves(t *testing.T) {
	for _, fen := range []string{"W:WK19,27,K23:B18,11", "W:WK1,26,K12:B4,14", "W:WK4,K7,K27:B8,28"} {
		t.Run(fen, func(t *testing.T) {
			g := game(t, fen)
			const visits = 40
			alone, err := New(&materialEval{}, Options{Solver: true}).Run(context.Background(), g, Limit{Visits: visits}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if alone.Proof == ProofWin {
				t.Fatalf("the solver alone proves the win in %d visits: the test shows nothing", visits)
			}
			o := &shallowOracle{plies: 3}
			ev := &seenEval{}
			res, err := New(ev, Options{Solver: true, Oracle: o}).Run(context.Background(), g, Limit{Visits: visits}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.Proof != ProofWin || res.Value != 1 {
				t.Fatalf("with the oracle: proof %v value %v after %d visits, want a proven win", res.Proof, res.Value, res.RootVisits)
			}
			if !slices.Contains(winningMoves(g.Position(), 9), res.Move) {
				t.Errorf("move %v does not win", res.Move)
			}
			if slices.Contains(o.asked, g.Position()) {
				t.Error("the oracle was asked about the root")
			}
			if res.Proved == 0 || res.Proved > len(o.asked) {
				t.Errorf("Result.Proved %d, the oracle was asked %d times", res.Proved, len(o.asked))
			}
			for _, p := range ev.seen[1:] { // the root is evaluated
				if o.proven[p] {
					t.Fatalf("position %v was proven by the oracle and evaluated too", p)
				}
			}
		})
	}
}

// TestOracleValueWithoutSolver: without the solver a proven leaf still
// backs up its exact value: a move into a position the oracle proves lost
// for the opponent has Q exactly 1, every other visited move less.
func TestOracleValueWithoutSolver(t *testing.T) {
	g := game(t, "W:WK5,K6:B3") // a win in 3
	res, err := New(&materialEval{}, Options{Oracle: loseOracle{}}).Run(context.Background(), g, Limit{Visits: 100}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Proof != ProofNone {
		t.Errorf("proof %v without the solver", res.Proof)
	}
	won := 0
	for i, m := range res.Moves {
		if res.Visits[i] == 0 {
			continue
		}
		_, lost := loseOracle{}.Prove(Query{Pos: g.Position().Play(m), Legal: g.Position().Play(m).Legal(nil)})
		if lost != (res.Q[i] == 1) {
			t.Errorf("move %v: Q %v, proven lost for the opponent %v", m, res.Q[i], lost)
		}
		if lost {
			won++
		}
	}
	if won == 0 {
		t.Errorf("no visited move into a proven loss: Q %v visits %v", res.Q, res.Visits)
	}
}

// loseOracle proves a loss for the side to move when each of its moves
// lets the opponent win at once (leave it without a move).
type loseOracle struct{}

func (loseOracle) Prove(q Query) (Proof, bool) {
	for _, m := range q.Legal {
		if len(winningMoves(q.Pos.Play(m), 1)) == 0 {
			return ProofNone, false
		}
	}
	return ProofLoss, true
}

// TestOracleTreeReuse: the game moving into a position the oracle proved
// drops the tree (a proven leaf has no children), and the next Run searches
// it as a root.
func TestOracleTreeReuse(t *testing.T) {
	g := game(t, "W:WK19,27,K23:B18,11")
	s := New(&materialEval{}, Options{Solver: true, Oracle: &shallowOracle{plies: 3}})
	for !g.Outcome().Over() {
		res, err := s.Run(context.Background(), g, Limit{Visits: 200}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := g.Play(res.Move); err != nil {
			t.Fatal(err)
		}
		if g.Ply() > 20 {
			t.Fatal("a won position not won in 20 plies")
		}
	}
	if o := g.Outcome(); o.Result != rules.WhiteWins {
		t.Errorf("outcome %+v, want White to win", o)
	}
}

// fixedOracle proves every position with p, or none.
type fixedOracle struct {
	p  Proof
	ok bool
}

func (o fixedOracle) Prove(Query) (Proof, bool) { return o.p, o.ok }

// TestOracles: the first oracle that proves a position answers.
func TestOracles(t *testing.T) {
	none, win, loss := fixedOracle{}, fixedOracle{ProofWin, true}, fixedOracle{ProofLoss, true}
	for _, c := range []struct {
		os   Oracles
		want Proof
		ok   bool
	}{
		{Oracles{}, ProofNone, false},
		{Oracles{none, none}, ProofNone, false},
		{Oracles{none, win}, ProofWin, true},
		{Oracles{loss, win}, ProofLoss, true},
	} {
		if p, ok := c.os.Prove(Query{}); p != c.want || ok != c.ok {
			t.Errorf("%v: %v %v, want %v %v", c.os, p, ok, c.want, c.ok)
		}
	}
}
