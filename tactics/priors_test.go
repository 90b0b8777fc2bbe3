package tactics

import (
	"context"
	"math"
	"testing"

	"dama/internal/evaltest"
	"dama/mcts"
	"dama/rules"
)

// TestPriorsWinIn3: in each win in 3 the winning move, one of several
// with a uniform prior, gets at least the floor, the priors still sum to
// 1 and the value is the inner evaluator's; in the start position nothing
// changes.
func TestPriorsWinIn3(t *testing.T) {
	ip, err := NewPriors(evaltest.Draw, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, pz := range evaltest.WinIn3 {
		p, err := rules.ParseFEN(pz.FEN)
		if err != nil {
			t.Fatal(err)
		}
		e := evaluate(t, ip, p)
		legal := p.Legal(nil)
		var sum float32
		for i, m := range legal {
			sum += e.Priors[i]
			if m.String() == pz.Win && e.Priors[i] < DefaultFloor-1e-6 {
				t.Errorf("%s: the winning move %s has prior %v", pz.FEN, m, e.Priors[i])
			}
		}
		if math.Abs(float64(sum)-1) > 1e-5 || e.WDL != evaltest.Draw {
			t.Errorf("%s: priors sum to %v, value %v", pz.FEN, sum, e.WDL)
		}
	}
	start := evaluate(t, ip, rules.Start())
	for _, pr := range start.Priors {
		if pr != start.Priors[0] {
			t.Errorf("start position: priors %v, want them uniform", start.Priors)
			break
		}
	}
}

// TestPriorsWinning: the moves marked winning are those whose reference
// minimax (depth-1 plies after the move) is best, when that best beats the
// quiescence by a man; some positions of random games have such moves.
func TestPriorsWinning(t *testing.T) {
	ip, _ := NewPriors(evaltest.Draw, 2)
	marked := 0
	for _, g := range randomGames(8, 4) {
		for i := 10; i <= g.Ply(); i += 5 {
			p := g.PositionAt(i)
			legal := p.Legal(nil)
			if len(legal) < 2 {
				continue
			}
			b := minimax(p, 0, 0)
			best, scores := -winScore-1, make([]int, len(legal))
			for j, m := range legal {
				scores[j] = -minimax(p.Play(m), 1, 1)
				best = max(best, scores[j])
			}
			want := best >= b+ManValue && b < winBound && b > -winBound
			win := make([]bool, len(legal))
			got := ip.Winning(mcts.Query{Pos: p, Legal: legal}, win)
			if got != want {
				t.Fatalf("%s: winning %v, want %v (best %d, quiescence %d)", p.FEN(), got, want, best, b)
			}
			if got {
				marked++
				for j := range win {
					if win[j] != (scores[j] == best) {
						t.Fatalf("%s: move %v marked %v, score %d best %d", p.FEN(), legal[j], win[j], scores[j], best)
					}
				}
			}
		}
	}
	if marked == 0 {
		t.Error("no position with a winning move: the test shows nothing")
	}
}

// TestPriorsInSearch: with uniform priors a 30-visit search of a quiet
// evaluator plays the winning move of each win in 3 with the informed
// priors.
func TestPriorsInSearch(t *testing.T) {
	for _, pz := range evaltest.WinIn3 {
		p, _ := rules.ParseFEN(pz.FEN)
		ip, _ := NewPriors(evaltest.Draw, 3)
		res, err := mcts.New(ip, mcts.Options{}).Run(context.Background(), rules.NewGame(p), mcts.Limit{Visits: 30}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Move.String() != pz.Win {
			t.Errorf("%s: played %v, want %s (visits %v)", pz.FEN, res.Move, pz.Win, res.Visits)
		}
	}
}
