package mcts

import (
	"math/rand/v2"

	"dama/rules"
)

// Result is the outcome of a Run, from the side to move's point of view.
type Result struct {
	Moves  []rules.Move // the legal moves of the root, in rules order
	Visits []int        // visits of each move
	Priors []float32    // the evaluator's priors of each move, tempered by Options.PolicyTemperature (without noise)
	Q      []float32    // mean value of each move for the side to move; 0 when unvisited
	// Proof is, with Options.Solver, the proven result of the root for the
	// side to move (ProofNone when not proven). A proven root reports the
	// exact Value and WDL.
	Proof Proof

	Value float32    // root value W-L in [-1, 1]
	WDL   [3]float32 // root win, draw and loss probabilities

	Move rules.Move   // the move chosen (by visits and temperature)
	PV   []rules.Move // principal variation: most visited child, repeatedly

	RootVisits int  // visits of the root, reused ones included
	Playouts   int  // visits added by this Run
	Nodes      int  // nodes in the tree
	Forced     bool // the root has one legal move: it was returned without search
	Proved     int  // new leaves Options.Oracle proved in this Run
	TreeFull   bool // the tree reached Options.MaxNodes and grows no more (it was searched frozen: Options.KeepSearchingWhenFull)
	Full       bool // the search ran to its end: the visits were reached, or the deadline of a time-limited search; false when cut short by a deadline, or MaxNodes without KeepSearchingWhenFull
}

// result reads the statistics of the root.
func (s *Search) result(rng *rand.Rand) Result {
	root := &s.nodes[0]
	var res Result
	res.RootVisits = int(root.n)
	res.Nodes = len(s.nodes)
	res.TreeFull = s.frozen
	if root.n > 0 {
		q := -root.sumV / float64(root.n)
		d := root.sumD / float64(root.n)
		res.Value = float32(q)
		res.WDL = [3]float32{
			float32(max((1+q-d)/2, 0)), float32(d), float32(max((1-q-d)/2, 0)),
		}
	}
	if root.state != expanded {
		res.Moves = append([]rules.Move(nil), s.legal...)
		res.Visits = make([]int, len(res.Moves))
		res.Priors = make([]float32, len(res.Moves))
		res.Q = make([]float32, len(res.Moves))
		return res
	}
	children := s.nodes[root.first : root.first+int32(root.nchild)]
	res.Moves = make([]rules.Move, len(children))
	res.Visits = make([]int, len(children))
	res.Priors = make([]float32, len(children))
	res.Q = make([]float32, len(children))
	for i := range children {
		c := &children[i]
		res.Moves[i] = c.move
		res.Visits[i] = int(c.n)
		res.Priors[i] = c.prior
		if s.noised {
			res.Priors[i] = s.clean[i]
		}
		if c.n > 0 {
			res.Q[i] = float32(c.sumV / float64(c.n))
		}
	}
	best := s.bestChild(0)
	res.Move = s.nodes[best].move
	if s.opt.Solver {
		s.solverResult(&res)
	}
	for idx, c := int32(0), best; ; c = s.bestChild(idx) {
		if s.nodes[c].n == 0 {
			break
		}
		res.PV = append(res.PV, s.nodes[c].move)
		idx = c
		if s.nodes[idx].state != expanded {
			break
		}
	}
	return res
}

// bestChild returns the most visited child of an expanded node; ties go to
// the higher Q, then the higher prior. With the solver, a child proven won
// for the side to move comes first and children proven lost last.
func (s *Search) bestChild(idx int32) int32 {
	nd := &s.nodes[idx]
	best := nd.first
	for c := nd.first + 1; c < nd.first+int32(nd.nchild); c++ {
		a, b := &s.nodes[c], &s.nodes[best]
		if s.opt.Solver {
			if ra, rb := proofRank(a.proof), proofRank(b.proof); ra != rb {
				if ra > rb {
					best = c
				}
				continue
			}
		}
		switch {
		case a.n > b.n:
			best = c
		case a.n == b.n && a.n > 0 && a.sumV/float64(a.n) > b.sumV/float64(b.n):
			best = c
		case a.n == b.n && a.n == 0 && a.prior > b.prior:
			best = c
		}
	}
	return best
}

// pick draws a move with probability proportional to visits^(1/temp).
func pick(visits []int, moves []rules.Move, temp float64, rng *rand.Rand) rules.Move {
	w := make([]float64, len(visits))
	for i, v := range visits {
		w[i] = float64(v)
	}
	sum := powerWeights(w, 1/temp)
	if sum == 0 {
		return moves[rng.IntN(len(moves))]
	}
	r := rng.Float64() * sum
	for i := range w {
		r -= w[i]
		if r < 0 {
			return moves[i]
		}
	}
	for i := len(w) - 1; i >= 0; i-- {
		if w[i] > 0 {
			return moves[i]
		}
	}
	return moves[0]
}
