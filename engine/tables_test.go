package engine

import (
	"context"
	"slices"
	"testing"

	"dama/mcts"
	"dama/rules"
	"dama/tb"
	"dama/tb/tbtest"
)

// TestThinkPlaysTableMoves: with endgame tables as its oracle, a searcher
// plays each move of a won ending by the tables (one of their best moves)
// and wins it under the rules, against a searcher without them.
func TestThinkPlaysTableMoves(t *testing.T) {
	_, tables := tbtest.Tables(t, 3)
	for _, fen := range []string{"W:WK29,K32:BK1", "W:WK30,K31:BK18", "B:W18:BK1,K5"} {
		p, _ := rules.ParseFEN(fen)
		g := rules.NewGame(p)
		hero := p.Side()
		with := NewSearcher(Uniform{}, mcts.Options{Oracle: tb.Oracle{T: tables}, Solver: true})
		without := NewSearcher(Uniform{}, mcts.Options{})
		for !g.Outcome().Over() {
			s := without
			if g.Position().Side() == hero {
				s = with
			}
			res, err := s.Think(context.Background(), g, Limits{Visits: 16}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if s == with {
				_, best, err := tables.Best(g.Position(), g.QuietPlies())
				if err != nil {
					t.Fatal(err)
				}
				var ms []rules.Move
				for _, b := range best {
					ms = append(ms, b.Move)
				}
				if !slices.Contains(ms, res.Move) {
					t.Fatalf("%s: played %s in %s, the tables' best are %v", fen, res.Move, g.Position().FEN(), ms)
				}
			}
			if err := g.Play(res.Move); err != nil {
				t.Fatal(err)
			}
		}
		if w, ok := g.Outcome().Result.Winner(); !ok || w != hero {
			t.Errorf("%s: the side with the tables did not win: %s (%s) after %d plies", fen, g.Outcome().Result, g.Outcome().Reason, g.Ply())
		}
	}
}
