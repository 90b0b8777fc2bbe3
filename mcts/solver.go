package mcts

// The MCTS solver (Winands, Björnsson and Saito, "Monte-Carlo Tree Search
// Solver", 2008), turned on by Options.Solver. A node is proven when the
// rules end the game there (a terminal node: a win for the side that moved
// into it, or a draw by repetition, the 40-move rule or the length cap),
// or from its children: it is lost for the side that moved into it when
// some child is proven won for the side to move, won when every child is
// proven lost for the side to move, and drawn when every child is proven
// and the best of them is a draw. A proven node is not searched further: a
// selection that reaches it backs up its exact value at once, like a
// terminal node. The selection takes a child proven won and passes over
// children proven lost while another child is not; the root's move is a
// proven win when there is one, and a proven root reports its exact value.
//
// Draws by repetition depend on the path that reaches a position. The
// search keeps a tree, not a graph: every node has one path from the root,
// and the positions before the root (the game's history) are the same for
// every node, so a draw proven at a node holds for that node. The tree
// kept between moves (Advance) keeps its proofs for the same reason: the
// game's history grows by exactly the path that the new root had.

// Proof is a proven game result from the point of view of the side to move.
type Proof int8

// Proven results.
const (
	ProofNone Proof = iota // not proven
	ProofWin               // the side to move wins with best play
	ProofDraw              // best play draws
	ProofLoss              // the side to move loses whatever it plays
)

// String names the proof.
func (p Proof) String() string {
	switch p {
	case ProofNone:
		return "none"
	case ProofWin:
		return "win"
	case ProofDraw:
		return "draw"
	case ProofLoss:
		return "loss"
	}
	return "proof(?)"
}

// Node proofs, from the point of view of the side that played the node's
// move (as node values are).
const (
	proofNone uint8 = iota
	proofWin
	proofDraw
	proofLoss
)

// proofValue returns the value and draw probability of a proven node for
// the side that played into it.
func proofValue(p uint8) (v, d float64) {
	switch p {
	case proofWin:
		return 1, 0
	case proofLoss:
		return -1, 0
	}
	return 0, 1
}

// proofRank orders children for the side choosing among them: proven won,
// then unproven or drawn, then proven lost.
func proofRank(p uint8) int {
	switch p {
	case proofWin:
		return 2
	case proofLoss:
		return 0
	}
	return 1
}

// prove marks the last node of path, a terminal node just scored, as proven
// and carries the proof up the path as far as it decides parents.
func (s *Search) prove(path []int32) {
	last := &s.nodes[path[len(path)-1]]
	switch {
	case last.termV > 0:
		last.proof = proofWin
	case last.termV < 0:
		last.proof = proofLoss
	default:
		last.proof = proofDraw
	}
	for i := len(path) - 2; i >= 0; i-- {
		nd := &s.nodes[path[i]]
		if nd.proof != proofNone {
			return
		}
		p := s.childrenProof(nd)
		if p == proofNone {
			return
		}
		nd.proof = p
	}
}

// childrenProof returns the proof of an expanded node that its children
// give, for the side that played into it.
func (s *Search) childrenProof(nd *node) uint8 {
	children := s.nodes[nd.first : nd.first+int32(nd.nchild)]
	all, draw := true, false
	for i := range children {
		switch children[i].proof {
		case proofWin: // the side to move at nd wins
			return proofLoss
		case proofNone:
			all = false
		case proofDraw:
			draw = true
		}
	}
	switch {
	case !all:
		return proofNone
	case draw:
		return proofDraw
	}
	return proofWin
}

// solverPick returns a child of nd proven won for the side to move, if any.
func (s *Search) solverPick(nd *node) (int32, bool) {
	for c := nd.first; c < nd.first+int32(nd.nchild); c++ {
		if s.nodes[c].proof == proofWin {
			return c, true
		}
	}
	return 0, false
}

// allLost reports whether every child is proven lost for the side to move.
func allLost(children []node) bool {
	for i := range children {
		if children[i].proof != proofLoss {
			return false
		}
	}
	return true
}

// solverResult adds the root's proof to res, with its exact value.
func (s *Search) solverResult(res *Result) {
	switch s.nodes[0].proof {
	case proofLoss: // for the side that moved into the root
		res.Proof, res.Value, res.WDL = ProofWin, 1, [3]float32{1, 0, 0}
	case proofWin:
		res.Proof, res.Value, res.WDL = ProofLoss, -1, [3]float32{0, 0, 1}
	case proofDraw:
		res.Proof, res.Value, res.WDL = ProofDraw, 0, [3]float32{0, 1, 0}
	}
}

// solverVisits returns the root visits for a move drawn by temperature:
// with the solver, children proven lost get no weight while another child
// has some.
func (s *Search) solverVisits(visits []int) []int {
	if !s.opt.Solver || s.nodes[0].state != expanded {
		return visits
	}
	root := &s.nodes[0]
	children := s.nodes[root.first : root.first+int32(root.nchild)]
	out := make([]int, len(visits))
	any := false
	for i := range children {
		if children[i].proof != proofLoss {
			out[i] = visits[i]
			any = any || visits[i] > 0
		}
	}
	if !any {
		return visits
	}
	return out
}
