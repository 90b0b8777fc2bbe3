package tb

import (
	"context"
	"math/rand/v2"
	"testing"

	"dama/internal/evaltest"
	"dama/mcts"
	"dama/rules"
)

func TestOracleProve(t *testing.T) {
	o := Oracle{T: testTables(t)}
	for _, c := range []struct {
		fen   string
		reps  int
		quiet int
		want  mcts.Proof
		ok    bool
	}{
		{"W:WK29,K32:BK1", 0, 0, mcts.ProofWin, true},
		{"B:WK29,K32:BK1", 0, 0, mcts.ProofLoss, true},
		{"W:WK29,K32:BK1", 0, 69, mcts.ProofWin, true},              // 11 plies to go, 69+11 = 80
		{"W:WK29,K32:BK1", 0, 70, mcts.ProofDraw, true},             // too late for the 40-move rule
		{"W:WK29,K32:BK1", 1, 0, mcts.ProofNone, false},             // seen before: a repetition may draw it
		{"W:WK32:BK1", 0, 0, mcts.ProofWin, true},                   // the lone king in the corner is caught
		{"W:WK31:BK2", 0, 0, mcts.ProofDraw, true},                  // king against king in the open
		{"W:WK29,K30,K31,K32,K28:BK1", 0, 0, mcts.ProofNone, false}, // 6 pieces
	} {
		p := evaltest.Position(t, c.fen)
		got, ok := o.Prove(mcts.Query{Pos: p, Legal: p.Legal(nil), Repetitions: c.reps, QuietPlies: c.quiet})
		if got != c.want || ok != c.ok {
			t.Errorf("%s reps %d quiet %d: %v %v, want %v %v", c.fen, c.reps, c.quiet, got, ok, c.want, c.ok)
		}
	}
}

// uniform is an evaluator with equal priors and an even value.
type uniform struct{}

func (uniform) Evaluate(_ context.Context, q mcts.Query, e *mcts.Evaluation) error {
	for i := range e.Priors {
		e.Priors[i] = 1 / float32(len(q.Legal))
	}
	e.WDL = [3]float32{0.3, 0.4, 0.3}
	return nil
}

// TestOracleInSearch: with the tables as its oracle the solver proves a
// table root's value in a few visits, where alone it does not.
func TestOracleInSearch(t *testing.T) {
	tb := testTables(t)
	for _, c := range []struct {
		fen  string
		want mcts.Proof
	}{
		{"W:WK29,K32:BK1", mcts.ProofWin},
		{"B:WK10,K11:BK18", mcts.ProofLoss},
		{"W:WK31:BK2", mcts.ProofDraw},
	} {
		g := rules.NewGame(evaltest.Position(t, c.fen))
		alone, err := mcts.New(uniform{}, mcts.Options{Solver: true}).Run(context.Background(), g, mcts.Limit{Visits: 30}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if alone.Proof != mcts.ProofNone {
			t.Fatalf("%s: the solver alone proves %v in 30 visits: the test shows nothing", c.fen, alone.Proof)
		}
		res, err := mcts.New(uniform{}, mcts.Options{Solver: true, Oracle: Oracle{T: tb}}).Run(context.Background(), g, mcts.Limit{Visits: 30}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Proof != c.want || res.Proved == 0 {
			t.Errorf("%s: proof %v with %d leaves proven, want %v", c.fen, res.Proof, res.Proved, c.want)
		}
	}
}

// TestChooseKeepsTheValue plays games from random table positions: the
// side the tables favour plays Tables.Choose, the other side random moves
// (or Choose too), under the full rules (rules.Game: repetition, the
// 40-move rule). A win must end in a win, a draw never in a loss.
func TestChooseKeepsTheValue(t *testing.T) {
	tb := testTables(t)
	r := rand.New(rand.NewPCG(5, 6))
	counts := map[Value]int{}
	games := 300
	if testing.Short() {
		games = 120
	}
	for n := 0; n < games; n++ {
		sigs := Signatures(3)
		m := sigs[r.IntN(len(sigs))]
		p := randomPosition(r, m)
		if !p.HasMoves() {
			continue
		}
		const quiet = 0 // a rules.Game starts with the counter at 0
		e, _ := tb.Probe(p)
		v := e.Under(quiet)
		g := rules.NewGame(p)
		hero := p.Side()
		if v == Loss {
			hero = p.Side().Opponent()
		}
		bothPerfect := n%2 == 0
		for ply := 0; !g.Outcome().Over(); ply++ {
			if ply > 2000 {
				t.Fatalf("%s quiet %d: no end after 2000 plies", p.FEN(), quiet)
			}
			var mv rules.Move
			if g.Position().Side() == hero || bothPerfect {
				var ok bool
				if mv, _, ok = tb.Choose(g, rules.Move{}); !ok {
					t.Fatalf("%s: Choose declined %s", p.FEN(), g.Position().FEN())
				}
			} else {
				legal := g.Position().Legal(nil)
				mv = legal[r.IntN(len(legal))]
			}
			g.PlayUnchecked(mv)
		}
		o := g.Outcome()
		winner, won := o.Result.Winner()
		switch {
		case v != Draw && (!won || winner != hero):
			t.Fatalf("%s at quiet %d is a %s for %s: the game ended %s (%s) after %d plies", p.FEN(), quiet, v, p.Side(), o.Result, o.Reason, g.Ply())
		case v == Draw && won && (winner != hero || bothPerfect):
			t.Fatalf("%s at quiet %d is a draw: the game ended %s (%s)", p.FEN(), quiet, o.Result, o.Reason)
		}
		counts[v]++
	}
	t.Logf("games kept their value: %d wins, %d draws, %d losses", counts[Win], counts[Draw], counts[Loss])
}
