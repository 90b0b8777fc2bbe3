package mcts

import (
	"sort"

	"dama/rules"
)

// Line is one root move of the tree with its principal variation: what
// an analysis board shows as one of its top lines (multi-PV).
type Line struct {
	// Moves is the root move, then the most visited child at each node
	// below it (bestChild), as far as the tree has visits.
	Moves  []rules.Move
	Visits int        // visits of the root move
	Q      float32    // its mean value W-L for the side to move at the root
	WDL    [3]float32 // its win, draw and loss probabilities for that side
	Proof  Proof      // with Options.Solver, its proven result for that side (ProofNone when not proven)
}

// Lines returns the lines of the n most visited root moves of the tree
// as the last Run left it (every visited one for n <= 0), most visited
// first, ties to the higher Q (with the solver, proven wins first and
// proven losses last, as bestChild orders them); moves without visits are left out, and
// before any search there are none. Like Run, it must not be called while
// a Run is in progress.
func (s *Search) Lines(n int) []Line {
	if !s.valid || len(s.nodes) == 0 || s.nodes[0].state != expanded {
		return nil
	}
	root := &s.nodes[0]
	var idx []int32
	for c := root.first; c < root.first+int32(root.nchild); c++ {
		if s.nodes[c].n > 0 {
			idx = append(idx, c)
		}
	}
	sort.SliceStable(idx, func(i, j int) bool {
		a, b := &s.nodes[idx[i]], &s.nodes[idx[j]]
		if s.opt.Solver {
			if ra, rb := proofRank(a.proof), proofRank(b.proof); ra != rb {
				return ra > rb
			}
		}
		if a.n != b.n {
			return a.n > b.n
		}
		return a.sumV/float64(a.n) > b.sumV/float64(b.n)
	})
	if n > 0 && len(idx) > n {
		idx = idx[:n]
	}
	lines := make([]Line, 0, len(idx))
	for _, c := range idx {
		nd := &s.nodes[c]
		q := nd.sumV / float64(nd.n)
		d := nd.sumD / float64(nd.n)
		l := Line{
			Visits: int(nd.n), Q: float32(q),
			WDL: [3]float32{float32(max((1+q-d)/2, 0)), float32(d), float32(max((1-q-d)/2, 0))},
		}
		if s.opt.Solver {
			// A child's proof is for the side that played it: the root's.
			switch nd.proof {
			case proofWin:
				l.Proof, l.Q, l.WDL = ProofWin, 1, [3]float32{1, 0, 0}
			case proofDraw:
				l.Proof, l.Q, l.WDL = ProofDraw, 0, [3]float32{0, 1, 0}
			case proofLoss:
				l.Proof, l.Q, l.WDL = ProofLoss, -1, [3]float32{0, 0, 1}
			}
		}
		for at := c; ; at = s.bestChild(at) {
			if s.nodes[at].n == 0 {
				break
			}
			l.Moves = append(l.Moves, s.nodes[at].move)
			if s.nodes[at].state != expanded {
				break
			}
		}
		lines = append(lines, l)
	}
	return lines
}
