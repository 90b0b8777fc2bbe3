package classic

import (
	"context"
	"math/rand/v2"
	"testing"

	"dama/rules"
)

// exactScore is the score of move x at the root of g by a search of depth
// d without the table: the child searched to d-1 and negated (a win or
// loss one ply further from the root).
func exactScore(t *testing.T, g *rules.Game, x rules.Move, d int) int {
	t.Helper()
	c := rules.Follow(nil, g)
	c.PlayUnchecked(x)
	if c.Outcome().Over() {
		return WinScore - 1 // x ends the game: the side to move has no move left
	}
	s := search(t, New(Options{NoTable: true}), c, Limits{Depth: d - 1}, 1).Score
	switch {
	case s >= winBound:
		return -s + 1
	case s <= -winBound:
		return -s - 1
	}
	return -s
}

// TestVerifyAgreesWithSearch: on positions of random games, with a random
// move to verify, the verdict's scores are those of plain searches of the
// root moves: the held score is the verified move's, a replacement beats
// it by at least the margin and is the best move, and without a
// replacement no move beats it by the margin.
func TestVerifyAgreesWithSearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 0))
	const d, margin = 4, 40
	replaced, checked := 0, 0
	for game := 0; game < 12; game++ {
		g := rules.NewGame(rules.Start())
		for ply := 0; ply < 60 && !g.Outcome().Over(); ply++ {
			moves := g.Legal(nil)
			m := moves[rng.IntN(len(moves))]
			if ply%6 == 5 && len(moves) > 1 {
				v, err := New(Options{NoTable: true}).Verify(context.Background(), g, m, margin, Limits{Depth: d})
				if err != nil {
					t.Fatal(err)
				}
				checked++
				// A forced result within the horizon ends the deepening
				// early; the verdict is that depth's.
				dd := v.Depth
				if dd != d && v.Score < winBound && v.Score > -winBound {
					t.Fatalf("%s verify %s: stopped at depth %d of %d with score %d", g.Position().FEN(), m, dd, d, v.Score)
				}
				if dd < 2 {
					// Depth 1 stops only on a move that ends the game.
					if v.Score != WinScore-1 {
						t.Fatalf("%s verify %s: stopped at depth 1 with score %d", g.Position().FEN(), m, v.Score)
					}
					g.PlayUnchecked(m)
					continue
				}
				held := exactScore(t, g, m, dd)
				if v.Held != held {
					t.Fatalf("%s verify %s: held %d at depth %d, plain search scores it %d", g.Position().FEN(), m, v.Held, dd, held)
				}
				best, bestMove := held, m
				for _, x := range moves {
					if s := exactScore(t, g, x, dd); s > best {
						best, bestMove = s, x
					}
				}
				switch {
				case v.Replaced:
					replaced++
					if v.Score != best || v.Score < held+margin || exactScore(t, g, v.Move, dd) != best {
						t.Fatalf("%s verify %s (%d): replaced by %s scoring %d; the best move %s scores %d", g.Position().FEN(), m, held, v.Move, v.Score, bestMove, best)
					}
					if len(v.PV) == 0 || v.PV[0] != v.Move {
						t.Fatalf("%s: PV %v does not start with %s", g.Position().FEN(), v.PV, v.Move)
					}
				case best >= held+margin:
					t.Fatalf("%s verify %s (%d): kept, but %s scores %d", g.Position().FEN(), m, held, bestMove, best)
				case v.Move != m || v.Score != held:
					t.Fatalf("%s verify %s: kept, but the verdict names %s scoring %d", g.Position().FEN(), m, v.Move, v.Score)
				}
			}
			g.PlayUnchecked(m)
		}
	}
	if replaced == 0 || replaced == checked {
		t.Fatalf("%d of %d verified random moves replaced: the test does not see both cases", replaced, checked)
	}
}

// TestVerifyFindsTheCombination: on positions of the tactics suite
// (arena/tactics/suite.json), the shallow search's move is replaced by the
// winning one at depth 12, and the winning move is kept.
func TestVerifyFindsTheCombination(t *testing.T) {
	for _, c := range []struct{ fen, best, shallow string }{
		{"W:W17,18,21,22,24,25,27,28,30,32:B1,2,3,4,6,9,10,11,12,16,23", "28x19", "27x20"},
		{"B:W9,K25:B2,K21,K22", "22-18", "21-18"},
		{"B:WK7,14,18:B1,2,3,K8,20", "1-5", "3-6"},
	} {
		g := rules.NewGame(mustFEN(t, c.fen))
		var shallow, best rules.Move
		for _, m := range g.Legal(nil) {
			switch m.String() {
			case c.shallow:
				shallow = m
			case c.best:
				best = m
			}
		}
		e := New(Options{})
		v, err := e.Verify(context.Background(), g, shallow, 100, Limits{Depth: 12})
		if err != nil {
			t.Fatal(err)
		}
		if !v.Replaced || v.Move != best || v.Score < v.Held+100 {
			t.Errorf("%s: verify %s gives %s (replaced %v, %d against %d), want %s", c.fen, c.shallow, v.Move, v.Replaced, v.Score, v.Held, c.best)
		}
		if v, err = e.Verify(context.Background(), g, best, 100, Limits{Depth: 12}); err != nil || v.Replaced {
			t.Errorf("%s: verify %s replaced it by %s (%v)", c.fen, c.best, v.Move, err)
		}
	}
}

func TestVerifyBadInput(t *testing.T) {
	g := rules.NewGame(rules.Start())
	m := g.Legal(nil)[0]
	e := New(Options{})
	if _, err := e.Verify(context.Background(), g, m, 0, Limits{Depth: 3}); err == nil {
		t.Error("margin 0 accepted")
	}
	if _, err := e.Verify(context.Background(), g, m, 100, Limits{}); err == nil {
		t.Error("no limit accepted")
	}
	other := rules.NewGame(mustFEN(t, "B:W9,K25:B2,K21,K22")).Legal(nil)[0]
	if _, err := e.Verify(context.Background(), g, other, 100, Limits{Depth: 3}); err == nil {
		t.Errorf("%s, not legal at the start, accepted", other)
	}
}
