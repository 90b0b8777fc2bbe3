package tactics

import (
	"context"
	"sync"
	"testing"

	"dama/internal/evaltest"
	"dama/mcts"
	"dama/rules"
)

// TestMinimaxOracleInSearch: with the Minimax oracle and the solver, a
// search proves each win in 3 of evaltest with one visit a move and plays the
// one winning move; the same search without the oracle does not prove it.
func TestMinimaxOracleInSearch(t *testing.T) {
	o, err := NewMinimax(3)
	if err != nil {
		t.Fatal(err)
	}
	for _, pz := range evaltest.WinIn3 {
		p, err := rules.ParseFEN(pz.FEN)
		if err != nil {
			t.Fatal(err)
		}
		visits := len(p.Legal(nil)) + 1 // the root, then each move once
		run := func(opt mcts.Options) mcts.Result {
			res, err := mcts.New(evaltest.Material{}, opt).Run(context.Background(), rules.NewGame(p), mcts.Limit{Visits: visits}, nil)
			if err != nil {
				t.Fatal(err)
			}
			return res
		}
		if alone := run(mcts.Options{Solver: true}); alone.Proof == mcts.ProofWin {
			t.Fatalf("%s: the solver alone proves the win in %d visits: the test shows nothing", pz.FEN, visits)
		}
		res := run(mcts.Options{Solver: true, Oracle: o})
		if res.Proof != mcts.ProofWin || res.Move.String() != pz.Win || res.Proved == 0 {
			t.Errorf("%s with the oracle: proof %v, move %v (want %s), %d leaves proved", pz.FEN, res.Proof, res.Move, pz.Win, res.Proved)
		}
	}
}

// TestMinimaxDepthRange: depths outside 1..MaxMinimaxDepth are refused.
func TestMinimaxDepthRange(t *testing.T) {
	for _, d := range []int{-1, 0, MaxMinimaxDepth + 1} {
		if _, err := NewMinimax(d); err == nil {
			t.Errorf("depth %d accepted", d)
		}
		if _, err := NewCombinations(evaltest.Draw, d); err == nil {
			t.Errorf("combinations depth %d accepted", d)
		}
		if _, err := NewPriors(evaltest.Draw, d); err == nil {
			t.Errorf("informed priors depth %d accepted", d)
		}
	}
}

// TestHybridsConcurrent: the oracle and the evaluators asked from several
// goroutines at once (as the searches of a match ask them) answer as
// asked one at a time.
func TestHybridsConcurrent(t *testing.T) {
	qs := benchPositions()
	o, _ := NewMinimax(3)
	c, _ := NewCombinations(evaltest.Material{}, 3)
	ip, _ := NewPriors(c, 2)
	type answer struct {
		proof mcts.Proof
		wdl   [3]float32
		prior float32
	}
	ask := func(q mcts.Query) answer {
		p, _ := o.Prove(q)
		e := mcts.Evaluation{Priors: make([]float32, len(q.Legal))}
		if err := ip.Evaluate(context.Background(), q, &e); err != nil {
			t.Error(err)
		}
		return answer{p, e.WDL, e.Priors[0]}
	}
	want := make([]answer, len(qs))
	for i, q := range qs {
		want[i] = ask(q)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range qs {
				i := (k + g*7) % len(qs)
				if got := ask(qs[i]); got != want[i] {
					t.Errorf("position %d: %+v concurrently, %+v alone", i, got, want[i])
				}
			}
		}()
	}
	wg.Wait()
}
