package tactics

import (
	"math/rand/v2"
	"testing"

	"dama/internal/evaltest"
	"dama/rules"
)

// randomGames plays n random games from the start (seeded) and returns
// them, each up to its end or 150 plies.
func randomGames(n int, seed uint64) []*rules.Game {
	rng := rand.New(rand.NewPCG(seed, 7))
	var out []*rules.Game
	for range n {
		g := rules.NewGame(rules.Start())
		for g.Ply() < 150 && !g.Outcome().Over() {
			moves := g.Legal(nil)
			g.PlayUnchecked(moves[rng.IntN(len(moves))])
		}
		out = append(out, g)
	}
	return out
}

// minimax is the reference of alphaBeta: the same definition without
// pruning (full width for depth plies, positions with one move not
// counted, then every capture line to a quiet position).
func minimax(p rules.Position, depth, ply int) int {
	moves := p.Legal(nil)
	if len(moves) == 0 {
		return -(winScore - ply)
	}
	if depth <= 0 || ply >= maxPly {
		if !moves[0].IsCapture() || ply >= maxPly {
			return Material(p)
		}
	}
	next := depth - 1
	if len(moves) == 1 {
		next = depth
	}
	best := -winScore - 1
	for _, m := range moves {
		best = max(best, -minimax(p.Play(m), next, ply+1))
	}
	return best
}

// TestAlphaBetaIsMinimax: on positions of random games, the shallow
// search's alpha-beta and its quiescence give the values of a plain
// minimax of the same definition.
func TestAlphaBetaIsMinimax(t *testing.T) {
	s := getSearcher()
	defer putSearcher(s)
	n, differ := 0, 0
	for _, g := range randomGames(12, 1) {
		for i := 0; i <= g.Ply(); i += 3 {
			p := g.PositionAt(i)
			if !p.HasMoves() {
				continue
			}
			for _, d := range []int{0, 1, 2, 3} {
				want := minimax(p, d, 0)
				var got int
				if d == 0 {
					got = s.quiesce(p, 0, -winScore-1, winScore+1)
				} else {
					got = s.alphaBeta(p, d, 0, -winScore-1, winScore+1)
				}
				if got != want {
					t.Fatalf("%s depth %d: %d, minimax %d", p.FEN(), d, got, want)
				}
				n++
				if d == 3 && want != minimax(p, 0, 0) {
					differ++
				}
			}
		}
	}
	if differ == 0 {
		t.Errorf("in %d searches depth 3 never differed from the quiescence: the test shows nothing", n)
	}
}

// TestMaterial counts men 100 and kings 150 for the side to move.
func TestMaterial(t *testing.T) {
	for _, c := range []struct {
		fen  string
		want int
	}{
		{rules.StartFEN, 0},
		{"W:W18,20,28:B10,16", 100},
		{"B:W18,20,28:B10,16", -100},
		{"B:WK1,20:BK30,K31,5", 2*150 + 100 - 150 - 100},
	} {
		p, err := rules.ParseFEN(c.fen)
		if err != nil {
			t.Fatal(err)
		}
		if got := Material(p); got != c.want {
			t.Errorf("%s: %d, want %d", c.fen, got, c.want)
		}
	}
}

// refProve is the reference of prove over a game with its history: the
// rules' outcome (draws by repetition and the 40-move rule included)
// decides each position, with the same depth and forced-move extension.
func refProve(g *rules.Game, depth, ply int) outcome {
	o := g.Outcome()
	if o.Reason == rules.NoMoves {
		return lost
	}
	if o.Over() || depth <= 0 || ply >= maxPly {
		return unknown
	}
	moves := g.Legal(nil)
	next := depth - 1
	if len(moves) == 1 {
		next = depth
	}
	all := true
	for _, m := range moves {
		g.PlayUnchecked(m)
		r := refProve(g, next, ply+1)
		g.Undo()
		switch r {
		case lost:
			return won
		case unknown:
			all = false
		}
	}
	if all {
		return lost
	}
	return unknown
}

// TestProveIsSound: every win or loss prove finds in positions of random
// games (their history, repetitions included, known only to the
// reference) holds under the rules, and it finds some of each.
func TestProveIsSound(t *testing.T) {
	s := getSearcher()
	defer putSearcher(s)
	counts := map[outcome]int{}
	for _, g := range randomGames(40, 2) {
		// Replay the game so that each position has its history.
		r := rules.NewGame(g.Start())
		for i, m := range g.Moves() {
			if i >= 20 && !r.Outcome().Over() {
				for _, d := range []int{1, 2, 3, 4} {
					got := s.prove(r.Position(), d, r.QuietPlies())
					counts[got]++
					if got == unknown {
						continue
					}
					if want := refProve(r, d, 0); got != want {
						t.Fatalf("%s after %d plies, depth %d: proved %v, the rules give %v", r.Position().FEN(), r.Ply(), d, got, want)
					}
				}
			}
			r.PlayUnchecked(m)
		}
	}
	if counts[won] == 0 || counts[lost] == 0 {
		t.Errorf("proofs %v: want some wins and some losses", counts)
	}
}

// TestProveWinIn3: the puzzles of evaltest (a man given, then a capture
// of every piece) are proven won at depth 3 and not at depth 1.
func TestProveWinIn3(t *testing.T) {
	s := getSearcher()
	defer putSearcher(s)
	for _, pz := range evaltest.WinIn3 {
		p, err := rules.ParseFEN(pz.FEN)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.prove(p, 3, 0); got != won {
			t.Errorf("%s: depth 3 gives %v, want won", pz.FEN, got)
		}
		if got := s.prove(p, 1, 0); got != unknown {
			t.Errorf("%s: depth 1 gives %v, want unknown", pz.FEN, got)
		}
	}
}
