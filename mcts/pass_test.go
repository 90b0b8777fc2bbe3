package mcts

import (
	"context"
	"math/rand/v2"
	"testing"

	"dama/rules"
)

// midgames returns positions reached by random moves from the start, the
// kind a search meets with forced captures a ply or two deep.
func midgames(t *testing.T, n int) []*rules.Game {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 11))
	var out []*rules.Game
	for len(out) < n {
		g := rules.NewGame(rules.Start())
		for ply := 0; ply < 12+rng.IntN(20) && !g.Outcome().Over(); ply++ {
			legal := g.Position().Legal(nil)
			if err := g.Play(legal[rng.IntN(len(legal))]); err != nil {
				t.Fatal(err)
			}
		}
		if !g.Outcome().Over() && len(g.Position().Legal(nil)) > 1 {
			out = append(out, g)
		}
	}
	return out
}

// TestPassForcedSkipsOnlyMoves: with PassForced no position below the root
// with one legal move reaches the evaluator (chains are far shorter than
// maxPassChain here), while without it such positions are evaluated, and
// the visits still add up.
func TestPassForcedSkipsOnlyMoves(t *testing.T) {
	for _, parallel := range []int{1, 4} {
		forcedSeen := [2]int{}
		for k, pass := range []bool{false, true} {
			for _, g := range midgames(t, 12) {
				ev := &recordingEval{}
				s := New(ev, Options{PassForced: pass, Parallel: parallel})
				res, err := s.Run(context.Background(), g, Limit{Visits: 400}, nil)
				if err != nil {
					t.Fatal(err)
				}
				sum := 0
				for _, v := range res.Visits {
					sum += v
				}
				if res.RootVisits != 400 || sum != 399 {
					t.Fatalf("pass %v: root visits %d, children's %d; want 400 and 399", pass, res.RootVisits, sum)
				}
				for p, q := range ev.seen {
					if p != g.Position() && len(q.Legal) == 1 {
						forcedSeen[k]++
					}
				}
				if pass && int(ev.calls.Load()) > 400 {
					t.Errorf("%d evaluations for 400 visits", ev.calls.Load())
				}
			}
		}
		if forcedSeen[0] == 0 {
			t.Fatalf("parallel %d: no position with one legal move was evaluated without PassForced: the test positions test nothing", parallel)
		}
		if forcedSeen[1] != 0 {
			t.Errorf("parallel %d: with PassForced %d positions with one legal move were evaluated (without: %d)", parallel, forcedSeen[1], forcedSeen[0])
		}
	}
}

// TestPassForcedKeepsTactics: the positions of TestFindsForcedWin are
// still won, with and without the solver.
func TestPassForcedKeepsTactics(t *testing.T) {
	for _, fen := range []string{"W:WK5,K7,K11:B2", "W:WK9,23,K26:B17", "W:WK5,K6:B3", "W:W19,21,22:B7", "W:WK6,K9:BK3"} {
		for _, solver := range []bool{false, true} {
			g := game(t, fen)
			res, err := New(&materialEval{}, Options{PassForced: true, Solver: solver}).Run(context.Background(), g, Limit{Visits: 800}, nil)
			if err != nil {
				t.Fatal(err)
			}
			// Passing forced replies may find a longer win first; any
			// forced win within 5 plies will do.
			if !winsWith(g.Position(), res.Move, 5) || res.Value < 0.5 {
				t.Errorf("%s solver %v: move %v value %.2f, want a forced win and a clear value", fen, solver, res.Move, res.Value)
			}
		}
	}
}

// TestPassForcedTreeReuse: a game played on with tree reuse keeps exact
// visit counts when the kept subtree holds passed positions.
func TestPassForcedTreeReuse(t *testing.T) {
	for _, g := range midgames(t, 4) {
		s := New(&materialEval{}, Options{PassForced: true})
		for ply := 0; ply < 10 && !g.Outcome().Over(); ply++ {
			res, err := s.Run(context.Background(), g, Limit{Visits: 200}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Forced && res.RootVisits != 200 {
				t.Fatalf("ply %d: root visits %d, want 200", ply, res.RootVisits)
			}
			if err := g.Play(res.Move); err != nil {
				t.Fatal(err)
			}
		}
	}
}
