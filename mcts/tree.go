package mcts

import (
	"math"
	"unsafe"

	"dama/rules"
)

// Node states.
const (
	unexpanded uint8 = iota
	pending          // selected, its evaluation is in flight
	expanded
	terminal
)

// node is one tree node. Its sums are from the point of view of the side
// that played move (the parent's side to move), so a parent reads its
// children's Q directly.
type node struct {
	move     rules.Move
	prior    float32
	n        int32 // completed visits
	inflight int32 // visits in flight (virtual loss)
	first    int32 // index of the first child in the arena
	nchild   int16
	state    uint8
	proof    uint8   // solver: proven result for the side that played move (proofNone, proofWin, ...)
	raw      float32 // the evaluator's value W-L for the side to move at this node, once expanded
	sumV     float64
	sumD     float64
	termV    float32 // terminal value for the parent's side to move
	termD    float32 // 1 for a drawn terminal node
}

// leaf is a position selected for evaluation.
type leaf struct {
	path  []int32
	grow  bool // add the leaf's children; false in a frozen (full) tree
	q     Query
	legal []rules.Move
	eval  Evaluation
	prior []float32
	err   error
}

// NodeBytes is the memory one tree node takes; MaxNodes*NodeBytes*2 bounds
// the memory of a Search's tree.
const NodeBytes = int(unsafe.Sizeof(node{}))

// backup adds a visit of value v (for the side that moved into the last node
// of path) and draw probability d to every node of path, removing the
// virtual loss.
func (s *Search) backup(path []int32, v, d float64) {
	for i := len(path) - 1; i >= 0; i-- {
		nd := &s.nodes[path[i]]
		nd.n++
		nd.inflight--
		nd.sumV += v
		nd.sumD += d
		v = -v
	}
}

// undo removes the virtual loss of an abandoned selection.
func (s *Search) undo(path []int32) {
	for _, i := range path {
		s.nodes[i].inflight--
	}
	if last := &s.nodes[path[len(path)-1]]; last.state == pending {
		last.state = unexpanded
	}
}

// expand adds the children of an evaluated leaf (unless l.grow is false)
// and backs up its value.
func (s *Search) expand(l *leaf) {
	idx := l.path[len(l.path)-1]
	if !l.grow {
		s.nodes[idx].state = unexpanded
		s.backupEval(l)
		return
	}
	first := int32(len(s.nodes))
	var sum float64
	for _, p := range l.eval.Priors {
		if p > 0 && !math.IsInf(float64(p), 1) {
			sum += float64(p)
		}
	}
	for i, m := range l.legal {
		p := float32(1 / float64(len(l.legal)))
		if sum > 0 {
			p = max(l.eval.Priors[i], 0) / float32(sum)
			if math.IsNaN(float64(p)) || math.IsInf(float64(p), 0) {
				p = 0
			}
		}
		s.nodes = append(s.nodes, node{move: m, prior: p, first: -1})
	}
	if t := s.opt.PolicyTemperature; t > 0 && t != 1 {
		temper(s.nodes[first:], 1/t)
	}
	nd := &s.nodes[idx]
	nd.first = first
	nd.nchild = int16(len(l.legal))
	nd.state = expanded
	s.backupEval(l)
}

// temper raises the priors of children to the power e and normalises
// them again (Options.PolicyTemperature, e = 1/T); priors that are all
// zero are left as they are.
func temper(children []node, e float64) {
	var buf [rules.MaxMoves]float64
	w := buf[:len(children)]
	for i := range children {
		w[i] = float64(children[i].prior)
	}
	sum := powerWeights(w, e)
	if sum == 0 {
		return
	}
	for i := range children {
		children[i].prior = float32(w[i] / sum)
	}
}

// powerWeights replaces each weight of w by (w/max w)^e and returns their
// sum, or 0 (w unchanged) when no weight is positive. Taking each relative
// to the largest keeps the largest at 1, so no exponent underflows them
// all. The move choice's temperature (pick) and the priors' (temper) are
// this with e = 1/T.
func powerWeights(w []float64, e float64) float64 {
	var top float64
	for _, x := range w {
		top = max(top, x)
	}
	if !(top > 0) {
		return 0
	}
	var sum float64
	for i, x := range w {
		w[i] = math.Pow(x/top, e)
		sum += w[i]
	}
	return sum
}

// backupEval backs up the value of an evaluated leaf.
func (s *Search) backupEval(l *leaf) {
	w, d, lo := float64(l.eval.WDL[0]), float64(l.eval.WDL[1]), float64(l.eval.WDL[2])
	if t := w + d + lo; t > 0 && !math.IsInf(t, 0) {
		w, d, lo = w/t, d/t, lo/t
	} else {
		w, d, lo = 0, 1, 0
	}
	s.nodes[l.path[len(l.path)-1]].raw = float32(w - lo)
	// The leaf's value for its side to move is w-lo; the node stores it for
	// the side that moved into it.
	s.backup(l.path, lo-w, d)
}

// Advance moves the root to the child reached by m, which must be legal in
// the root position, keeping that subtree and dropping the rest. It does
// nothing before the first Run.
func (s *Search) Advance(m rules.Move) {
	if !s.valid {
		return
	}
	child := int32(-1)
	if len(s.nodes) > 0 && s.nodes[0].state == expanded {
		root := &s.nodes[0]
		for c := root.first; c < root.first+int32(root.nchild); c++ {
			if s.nodes[c].move == m {
				child = c
				break
			}
		}
	}
	if s.rootPos.Reversible(m) {
		s.hist = append(s.hist, s.rootPos.Play(m))
	} else {
		s.hist = append(s.hist[:0], s.rootPos.Play(m))
	}
	s.rootQuiet = rules.QuietAfter(s.rootPos, m, s.rootQuiet)
	s.rootPos = s.rootPos.Play(m)
	s.rootPly++
	s.noised = false
	if child < 0 || s.nodes[child].state != expanded {
		s.nodes = s.nodes[:0]
		return
	}
	s.compact(child)
}

// HalveVisits halves the visit count of every node of the tree (rounding
// up), keeping each node's mean value and draw rate, so that a search
// that runs until stopped never reaches MaxRootVisits. The root keeps its
// move choice and its children their visit shares (up to rounding). Call
// it between Runs.
func (s *Search) HalveVisits() {
	for i := range s.nodes {
		nd := &s.nodes[i]
		if nd.n <= 0 {
			continue
		}
		half := (nd.n + 1) / 2
		f := float64(half) / float64(nd.n)
		nd.sumV *= f
		nd.sumD *= f
		nd.n = half
	}
}

// compact copies the subtree under idx into the spare arena, breadth first
// so that each node's children stay contiguous, and makes it the tree.
func (s *Search) compact(idx int32) {
	out := append(s.spare[:0], s.nodes[idx])
	out[0].move = rules.Move{}
	for i := 0; i < len(out); i++ {
		nd := out[i]
		if nd.state != expanded {
			if nd.state == pending {
				out[i].state = unexpanded
			}
			out[i].first, out[i].nchild = -1, 0
			continue
		}
		first := int32(len(out))
		out = append(out, s.nodes[nd.first:nd.first+int32(nd.nchild)]...)
		out[i].first = first
	}
	s.spare = s.nodes[:0]
	s.nodes = out
	s.rootVisitsFromChildren()
}

// rootVisitsFromChildren makes the root's visits one (its own evaluation)
// plus its children's, keeping its mean value. A node proven by the solver
// counts the visits that stopped at it; as the new root, those would stand
// for child visits that do not exist.
func (s *Search) rootVisitsFromChildren() {
	root := &s.nodes[0]
	if root.state != expanded {
		return
	}
	n := int32(1)
	for c := root.first; c < root.first+int32(root.nchild); c++ {
		n += s.nodes[c].n
	}
	if root.n > n {
		f := float64(n) / float64(root.n)
		root.sumV *= f
		root.sumD *= f
		root.n = n
	}
}

// sync makes the root the current position of g, following the tree down
// when g continues the game of the root, or starting afresh.
func (s *Search) sync(g *rules.Game) {
	if s.valid && g.Ply() >= s.rootPly && g.PositionAt(s.rootPly) == s.rootPos {
		pos, quiet, hist := gameState(g, s.rootPly, nil)
		same := pos == s.rootPos && quiet == s.rootQuiet && len(hist) == len(s.hist)
		for i := 0; same && i < len(hist); i++ {
			same = hist[i] == s.hist[i]
		}
		if same {
			for _, m := range g.Moves()[s.rootPly:] {
				s.Advance(m)
			}
			return
		}
	}
	s.rootPos, s.rootQuiet, s.hist = gameState(g, g.Ply(), s.hist[:0])
	s.rootPly = g.Ply()
	s.nodes = s.nodes[:0]
	s.noised = false
	s.valid = true
}

// gameState returns the position of g before its ply-th move, the 40-move
// counter there, and the positions since the last irreversible move
// (appended to hist[:0]), that position last.
func gameState(g *rules.Game, ply int, hist []rules.Position) (rules.Position, int, []rules.Position) {
	quiet, from := 0, 0
	moves := g.Moves()
	for i := 0; i < ply; i++ {
		p := g.PositionAt(i)
		quiet = rules.QuietAfter(p, moves[i], quiet)
		if !p.Reversible(moves[i]) {
			from = i + 1
		}
	}
	hist = hist[:0]
	for i := from; i <= ply; i++ {
		hist = append(hist, g.PositionAt(i))
	}
	return g.PositionAt(ply), quiet, hist
}
