package mcts

import (
	"math"

	"dama/rules"
)

type selection int

const (
	selLeaf selection = iota
	selTerminal
	selCollision
)

// selectLeaf walks from the root by PUCT, adding virtual loss on the way,
// down to a node that is not expanded. A new terminal node is scored and
// backed up at once; an unexpanded node becomes l, pending evaluation.
func (s *Search) selectLeaf(l *leaf) selection {
	nodes := s.nodes
	s.stack = s.stack[:len(s.hist)] // Run put hist there
	from := 0                       // repetitions are counted in stack[from:]
	pos, quiet, ply := s.rootPos, s.rootQuiet, s.rootPly
	l.path = l.path[:0]
	idx := int32(0)
	passed := 0
	for {
		nd := &nodes[idx]
		l.path = append(l.path, idx)
		nd.inflight++
		if nd.proof != proofNone && idx != 0 && nd.state != terminal {
			v, d := proofValue(nd.proof)
			s.backup(l.path, v, d)
			return selTerminal
		}
		switch nd.state {
		case terminal:
			s.backup(l.path, float64(nd.termV), float64(nd.termD))
			return selTerminal
		case pending:
			for _, i := range l.path {
				nodes[i].inflight--
			}
			return selCollision
		case unexpanded:
			if idx != 0 {
				if v, d, ok := s.terminalValue(pos, quiet, ply, from); ok {
					nd.state = terminal
					nd.termV, nd.termD = v, d
					s.backup(l.path, float64(v), float64(d))
					if s.opt.Solver {
						s.prove(l.path)
					}
					return selTerminal
				}
			}
			l.grow = idx == 0 || !s.frozen
			if !l.grow && nd.n > 0 {
				// A frozen leaf evaluated before: its value again.
				s.backup(l.path, nd.sumV/float64(nd.n), nd.sumD/float64(nd.n))
				return selTerminal
			}
			l.legal = pos.Legal(l.legal)
			if s.opt.Oracle != nil && idx != 0 && s.oracle(l, nd, pos, quiet, from) {
				return selTerminal
			}
			if s.opt.PassForced && idx != 0 && l.grow && len(l.legal) == 1 && passed < maxPassChain {
				// A forced move: the node gets its one child, unevaluated,
				// and the selection goes on into it.
				passed++
				c := int32(len(s.nodes))
				s.nodes = append(s.nodes, node{move: l.legal[0], prior: 1, first: -1})
				nodes = s.nodes
				nd = &nodes[idx]
				nd.first, nd.nchild, nd.state = c, 1, expanded
				break
			}
			l.q = Query{Pos: pos, Legal: l.legal, Repetitions: s.repetitions(pos, from), QuietPlies: quiet}
			l.eval.Priors = l.prior[:len(l.legal)]
			nd.state = pending
			return selLeaf
		}
		c := s.pick(idx)
		m := nodes[c].move
		if !pos.Reversible(m) {
			from = len(s.stack)
		}
		quiet = rules.QuietAfter(pos, m, quiet)
		pos = pos.Play(m)
		ply++
		s.stack = append(s.stack, pos)
		idx = c
	}
}

// terminalValue scores a position that ends the game, for the side that
// moved into it: the side to move without moves loses; repetition, the
// 40-move rule and the length cap draw.
func (s *Search) terminalValue(pos rules.Position, quiet, ply, from int) (v, d float32, ok bool) {
	if !pos.HasMoves() {
		return 1, 0, true
	}
	if s.repetitions(pos, from) >= 2 || quiet >= rules.QuietLimit || (s.opt.MaxPlies > 0 && ply >= s.opt.MaxPlies) {
		return 0, 1, true
	}
	return 0, 0, false
}

// repetitions counts the earlier occurrences of pos, the last position of
// the selection's stack, since the last irreversible move (stack[from:]).
func (s *Search) repetitions(pos rules.Position, from int) int {
	reps := 0
	for _, q := range s.stack[from : len(s.stack)-1] {
		if q == pos {
			reps++
		}
	}
	return reps
}

// oracle asks Options.Oracle about the new leaf nd at pos, whose legal
// moves are in l.legal. A proven leaf becomes a terminal node scored with
// the exact value and backed up (and with the solver, proven), and oracle
// returns true; otherwise it leaves the leaf as it was.
func (s *Search) oracle(l *leaf, nd *node, pos rules.Position, quiet, from int) bool {
	q := Query{Pos: pos, Legal: l.legal, Repetitions: s.repetitions(pos, from), QuietPlies: quiet}
	p, ok := s.opt.Oracle.Prove(q)
	if !ok || p == ProofNone {
		return false
	}
	// Terminal values are for the side that moved into the node.
	v, d := float32(0), float32(1)
	switch p {
	case ProofWin:
		v, d = -1, 0
	case ProofLoss:
		v, d = 1, 0
	}
	nd.state = terminal
	nd.termV, nd.termD = v, d
	s.backup(l.path, float64(v), float64(d))
	if s.opt.Solver {
		s.prove(l.path)
	}
	s.proved++
	return true
}

// pick returns the child of node idx that the selection follows.
func (s *Search) pick(idx int32) int32 {
	nd := &s.nodes[idx]
	if s.opt.Solver {
		if c, ok := s.solverPick(nd); ok {
			return c
		}
	}
	return s.pickChild(nd)
}

// pickChild returns the child of nd with the highest PUCT score. With the
// solver, children proven lost for the side to move are passed over while
// another child is not.
func (s *Search) pickChild(nd *node) int32 {
	children := s.nodes[nd.first : nd.first+int32(nd.nchild)]
	var visits int32
	var visitedPolicy float64
	for i := range children {
		c := &children[i]
		visits += c.n + c.inflight
		if c.n+c.inflight > 0 {
			visitedPolicy += float64(c.prior)
		}
	}
	parentQ := 0.0
	if nd.n > 0 {
		parentQ = -nd.sumV / float64(nd.n)
	}
	fpu := parentQ - s.opt.FPUReduction*math.Sqrt(visitedPolicy)
	k := s.opt.CPuct * math.Sqrt(float64(max(visits, 1)))
	pk := s.newPicker(children)
	for i := range children {
		c := &children[i]
		if pk.passOver(c) {
			continue
		}
		n := c.n + c.inflight
		q := fpu
		if n > 0 {
			q = (c.sumV - float64(c.inflight)) / float64(n)
		}
		pk = pk.offer(i, q+k*float64(c.prior)/float64(1+n))
	}
	return nd.first + int32(pk.best)
}

// picker keeps the best-scoring child of a node (the first on a tie). With
// the solver, children proven lost for the side to move are passed over
// while another child is not.
type picker struct {
	skipLost bool
	best     int
	score    float64
}

func (s *Search) newPicker(children []node) picker {
	return picker{skipLost: s.opt.Solver && !allLost(children), score: math.Inf(-1)}
}

// passOver reports whether child c is not to be chosen.
func (p picker) passOver(c *node) bool { return p.skipLost && c.proof == proofLoss }

// offer returns p having seen child i with score.
func (p picker) offer(i int, score float64) picker {
	if score > p.score {
		p.best, p.score = i, score
	}
	return p
}
