package mcts

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"dama/rules"
)

// winningMoves returns the moves of p that win within plies plies (odd),
// by brute force.
func winningMoves(p rules.Position, plies int) []rules.Move {
	var out []rules.Move
	for _, m := range p.Legal(nil) {
		if winsWith(p, m, plies) {
			out = append(out, m)
		}
	}
	return out
}

// solverWins are positions with a forced win in exactly plies plies for
// the side to move.
var solverWins = []struct {
	fen    string
	plies  int
	visits int // enough for the solver to prove the win
}{
	{"W:WK5,K7,K11:B2", 1, 40},
	{"W:WK9,23,K26:B17", 1, 40},
	{"W:WK5,K6:B3", 3, 200},
	{"W:W19,21,22:B7", 3, 200},
	{"W:WK6,K9:BK3", 3, 200},
	{"W:WK19,27,K23:B18,11", 5, 2000},
	{"W:WK1,26,K12:B4,14", 5, 2000},
	{"W:WK4,K7,K27:B8,28", 5, 2000},
}

func TestSolverProvesForcedWins(t *testing.T) {
	for _, tc := range solverWins {
		t.Run(tc.fen, func(t *testing.T) {
			g := game(t, tc.fen)
			p := g.Position()
			win := winningMoves(p, tc.plies)
			if len(win) == 0 || tc.plies > 1 && len(winningMoves(p, tc.plies-2)) > 0 {
				t.Fatalf("bad test position: not a win in exactly %d plies", tc.plies)
			}
			// The solver proves some win, not always the shortest: any
			// move that brute force shows to win a little later is right.
			win = winningMoves(p, tc.plies+4)
			s := New(&materialEval{}, Options{Solver: true})
			res, err := s.Run(context.Background(), g, Limit{Visits: tc.visits}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.Proof != ProofWin || res.Value != 1 || res.WDL != [3]float32{1, 0, 0} {
				t.Fatalf("proof %v value %v WDL %v after %d visits, want a proven win", res.Proof, res.Value, res.WDL, res.RootVisits)
			}
			if !slices.Contains(win, res.Move) {
				t.Errorf("move %v, brute force wins with %v", res.Move, win)
			}
			if len(res.PV) == 0 || res.PV[0] != res.Move {
				t.Errorf("PV %v does not start with %v", res.PV, res.Move)
			}
			if res.RootVisits != tc.visits || res.Playouts != tc.visits {
				t.Errorf("root visits %d playouts %d, want the %d asked for", res.RootVisits, res.Playouts, tc.visits)
			}
			// Proven at once: a temperature never draws another move.
			ts := New(&materialEval{}, Options{Solver: true, Temperature: TemperatureSchedule(100, 1, 0)})
			rng := rand.New(rand.NewPCG(1, 2))
			for range 5 {
				ts.Reset()
				r, err := ts.Run(context.Background(), g, Limit{Visits: tc.visits}, rng)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Contains(win, r.Move) {
					t.Errorf("with temperature: move %v, want one of %v", r.Move, win)
				}
			}
		})
	}
}

// TestSolverNeedsFewVisits checks that a proof comes within the visits a
// position's tree needs: a win in one ply as soon as the winning child is
// visited, and far fewer visits for a deeper win than the budgets above.
func TestSolverNeedsFewVisits(t *testing.T) {
	for _, tc := range solverWins {
		g := game(t, tc.fen)
		n := VisitsToProve(t, g, tc.visits)
		if n < 0 {
			t.Errorf("%s: not proven in %d visits", tc.fen, tc.visits)
			continue
		}
		if tc.plies == 1 && n > len(g.Position().Legal(nil))+1 {
			t.Errorf("%s: win in one proven after %d visits, want at most one per move", tc.fen, n)
		}
		t.Logf("%s: win in %d plies proven after %d visits", tc.fen, tc.plies, n)
	}
}

// VisitsToProve returns the smallest root visit count, up to limit, at
// which the solver proves the root (-1 if none), searching one visit more
// each time with tree reuse (a search stopped at n visits and resumed is
// the search of n+1 visits).
func VisitsToProve(t testing.TB, g *rules.Game, limit int) int {
	s := New(&materialEval{}, Options{Solver: true})
	for n := 2; n <= limit; n++ {
		res, err := s.Run(context.Background(), g, Limit{Visits: n}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Proof != ProofNone {
			return n
		}
	}
	return -1
}

func TestSolverProvesLoss(t *testing.T) {
	// White wins in three plies: after White's winning move, Black loses
	// whatever it plays.
	p0 := game(t, "W:WK5,K6:B3").Position()
	win := winningMoves(p0, 3)
	g := game(t, "W:WK5,K6:B3", win[0].String())
	s := New(&materialEval{}, Options{Solver: true})
	res, err := s.Run(context.Background(), g, Limit{Visits: 200}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Proof != ProofLoss || res.Value != -1 || res.WDL != [3]float32{0, 0, 1} {
		t.Errorf("proof %v value %v WDL %v, want a proven loss", res.Proof, res.Value, res.WDL)
	}
	for _, m := range g.Position().Legal(nil) {
		if len(winningMoves(g.Position().Play(m), 1)) == 0 {
			t.Fatalf("bad test position: %v does not lose at once", m)
		}
	}
}

func TestSolverProvesDraw(t *testing.T) {
	// Two plies before the length cap, with no win in reach for either
	// side: every line ends in the cap's draw.
	g := game(t, "W:WK32,21:BK1")
	if len(winningMoves(g.Position(), 1)) > 0 {
		t.Fatal("bad test position: White wins at once")
	}
	s := New(&materialEval{}, Options{Solver: true, MaxPlies: g.Ply() + 2})
	res, err := s.Run(context.Background(), g, Limit{Visits: 300}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Proof != ProofDraw || res.Value != 0 || res.WDL != [3]float32{0, 1, 0} {
		t.Errorf("proof %v value %v WDL %v, want a proven draw", res.Proof, res.Value, res.WDL)
	}
	// A repetition draw: Black, a man down, repeats for the third time.
	g = game(t, "W:WK32,21:BK1", "32-28", "1-5", "28-32", "5-1", "32-28", "1-5", "28-32")
	s = New(&materialEval{}, Options{Solver: true, MaxPlies: g.Ply() + 2})
	res, err = s.Run(context.Background(), g, Limit{Visits: 300}, nil)
	if err != nil {
		t.Fatal(err)
	}
	back, _ := rules.ParseMove(g.Position(), "5-1")
	if res.Proof != ProofDraw || res.Move != back {
		t.Errorf("proof %v move %v, want a proven draw by %v", res.Proof, res.Move, back)
	}
}

// TestSolverAvoidsProvenLoss: in a drawn root where one move loses, the
// move played is never the losing one.
func TestSolverAvoidsProvenLoss(t *testing.T) {
	// Black to move, a man down and the cap two plies away; a black move
	// that walks into a capture with no reply loses, the others draw.
	g := game(t, "W:W10,17,18,19,26:B9,16,28", "18-14")
	p := g.Position()
	var losing []rules.Move
	for _, m := range p.Legal(nil) {
		if len(winningMoves(p.Play(m), 1)) > 0 {
			losing = append(losing, m)
		}
	}
	s := New(&materialEval{}, Options{Solver: true, MaxPlies: g.Ply() + 2, Temperature: TemperatureSchedule(100, 1, 0)})
	rng := rand.New(rand.NewPCG(3, 4))
	for range 10 {
		s.Reset()
		res, err := s.Run(context.Background(), g, Limit{Visits: 400}, rng)
		if err != nil {
			t.Fatal(err)
		}
		if res.Proof == ProofNone {
			t.Fatalf("root not proven in 400 visits of a two-ply tree")
		}
		want := ProofDraw
		if len(losing) == len(p.Legal(nil)) {
			want = ProofLoss
		}
		if res.Proof != want {
			t.Errorf("proof %v, want %v (losing moves %v of %v)", res.Proof, want, losing, p.Legal(nil))
		}
		if want == ProofDraw && slices.Contains(losing, res.Move) {
			t.Errorf("played %v, a proven loss", res.Move)
		}
	}
}

func TestSolverTimeLimitStopsWhenProven(t *testing.T) {
	g := game(t, "W:WK5,K7,K11:B2")
	s := New(&materialEval{}, Options{Solver: true})
	ctx, cancel := context.WithTimeout(context.Background(), 10e9)
	defer cancel()
	res, err := s.Run(ctx, g, Limit{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Proof != ProofWin || !res.Full || res.RootVisits > 100 {
		t.Errorf("proof %v full %v after %d visits, want a proven win at once", res.Proof, res.Full, res.RootVisits)
	}
}

// TestSolverTreeReuse: a proven node that becomes the root counts only the
// visits its children have, so a search still adds its visits as child
// visits, and the proof carries over.
func TestSolverTreeReuse(t *testing.T) {
	g := game(t, "W:WK5,K6:B3")
	s := New(&materialEval{}, Options{Solver: true})
	res, err := s.Run(context.Background(), g, Limit{Visits: 300}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Proof != ProofWin {
		t.Fatalf("proof %v, want a win", res.Proof)
	}
	g.PlayUnchecked(res.Move)
	res, err = s.Run(context.Background(), g, Limit{Visits: 300}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sum := 0
	for _, n := range res.Visits {
		sum += n
	}
	if res.Proof != ProofLoss || sum != res.RootVisits-1 || res.RootVisits != 300 {
		t.Errorf("reused proven root: proof %v, child visits %d of root visits %d; want a loss, 299 of 300", res.Proof, sum, res.RootVisits)
	}
}
