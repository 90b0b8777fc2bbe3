package mcts

import (
	"math"
	"math/rand/v2"
)

// Gumbel search (Danihelka, Guez, Schrittwieser and Silver, "Policy
// improvement by planning with Gumbel", ICLR 2022), turned on by
// Options.Gumbel. At the root, Gumbel-Top-k sampling draws m actions
// without replacement (the m largest g(a) + logits(a), g(a) independent
// Gumbel(0,1), with root noise; g = 0 without), and sequential halving
// spends the visit budget over them in rounds: each round gives every
// remaining action the same number of visits, about
// budget / (ceil(log2 m) * remaining), then keeps the better half by
// g(a) + logits(a) + sigma(q(a)). The move played is the best survivor by
// the same score. Below the root the selection is deterministic (section
// 5): argmax of pi'(a) - N(a) / (1 + sum N), pi' = softmax(logits +
// sigma(completed Q)). The completed Q of a child is its mean value when
// visited and otherwise the node's mixed value v_mix (appendix D), and
// sigma(q) = (GumbelCVisit + max_b N(b)) * GumbelCScale * q with q mapped
// from [-1,1] to [0,1]. Result.Policy is softmax(logits + sigma(completed
// Q)) at the root: the improved policy, a training target.
//
// The schedule is a table of the visit count that the next simulation's
// action must have, computed once per Run for the budget (lim.Visits less
// the root's visits when the halving starts); with Options.Parallel > 1
// the visits in flight count as visits.

// Defaults of the Gumbel options.
const (
	DefaultGumbelM      = 16
	DefaultGumbelCVisit = 50
	DefaultGumbelCScale = 1.0
)

// minLogit stands for the logit of a zero prior.
const minLogit = -1e9

// gumbelRoot is the state of sequential halving at the root for one Run.
type gumbelRoot struct {
	valid   bool
	g       []float64 // Gumbel noise per root child (0 without noise)
	start   []int32   // each child's visits when the halving began
	sampled []bool    // the m children drawn
	table   []int32   // visits the action of simulation i must have had
	sum     int32     // root child visits when the halving began
	q       []float64 // scratch: completed Q of the children of a node
}

// halvingSchedule returns, for each of budget simulations of sequential
// halving over m actions, the number of visits that the action it visits
// must already have: every round visits each remaining action
// max(1, floor(budget / (ceil(log2 m) * remaining))) times, then halves the
// remaining actions (never below 2).
func halvingSchedule(m, budget int) []int32 {
	return appendHalvingSchedule(make([]int32, 0, budget), m, budget)
}

// appendHalvingSchedule appends halvingSchedule(m, budget) to seq[:0].
func appendHalvingSchedule(seq []int32, m, budget int) []int32 {
	seq = seq[:0]
	if m <= 1 {
		for i := 0; i < budget; i++ {
			seq = append(seq, int32(i))
		}
		return seq
	}
	rounds := int(math.Ceil(math.Log2(float64(m))))
	left, v := m, int32(0)
	for len(seq) < budget {
		extra := max(1, budget/(rounds*left))
		for e := 0; e < extra && len(seq) < budget; e++ {
			for i := 0; i < left && len(seq) < budget; i++ {
				seq = append(seq, v)
			}
			v++
		}
		left = max(2, left/2)
	}
	return seq
}

// gumbelInit draws the root's actions and the halving schedule for the
// rest of this Run.
func (s *Search) gumbelInit(lim Limit, rng *rand.Rand) {
	gr := &s.gum
	root := &s.nodes[0]
	budget := lim.Visits - int(root.n)
	if budget <= 0 || root.state != expanded {
		gr.valid = false
		return
	}
	children := s.nodes[root.first : root.first+int32(root.nchild)]
	k := len(children)
	gr.g = resize(gr.g, k)
	gr.start = gr.start[:0]
	gr.sampled = gr.sampled[:0]
	gr.sum = 0
	for i := range children {
		gr.g[i] = 0
		if lim.Noise {
			gr.g[i] = -math.Log(rng.ExpFloat64())
		}
		gr.start = append(gr.start, children[i].n+children[i].inflight)
		gr.sampled = append(gr.sampled, false)
		gr.sum += children[i].n + children[i].inflight
	}
	m := min(s.opt.GumbelM, k)
	for j := 0; j < m; j++ {
		best := -1
		for i := range children {
			if !gr.sampled[i] && (best < 0 || gr.g[i]+logit(children[i].prior) > gr.g[best]+logit(children[best].prior)) {
				best = i
			}
		}
		gr.sampled[best] = true
	}
	gr.table = appendHalvingSchedule(gr.table, m, budget)
	gr.valid = true
}

func resize(b []float64, n int) []float64 {
	if cap(b) < n {
		return make([]float64, n)
	}
	return b[:n]
}

func logit(p float32) float64 {
	if p <= 0 {
		return minLogit
	}
	return math.Log(float64(p))
}

// completedQ fills s.gum.q with the completed Q of each child of nd (for
// the side to move at nd) and returns sigma's factor (GumbelCVisit + max_b
// N(b)) * GumbelCScale.
func (s *Search) completedQ(nd *node) float64 {
	children := s.nodes[nd.first : nd.first+int32(nd.nchild)]
	q := resize(s.gum.q, len(children))
	s.gum.q = q
	var sumN, maxN int32
	var sumP, sumPQ float64
	for i := range children {
		c := &children[i]
		maxN = max(maxN, c.n)
		if c.n == 0 {
			continue
		}
		q[i] = c.sumV / float64(c.n)
		if s.opt.Solver && c.proof != proofNone {
			q[i], _ = proofValue(c.proof)
		}
		sumN += c.n
		sumP += float64(max(c.prior, 1e-30))
		sumPQ += float64(max(c.prior, 1e-30)) * q[i]
	}
	vmix := float64(nd.raw)
	if sumN > 0 && sumP > 0 {
		vmix = (vmix + float64(sumN)*sumPQ/sumP) / float64(1+sumN)
	}
	for i := range children {
		if children[i].n == 0 {
			q[i] = vmix
		}
	}
	return (s.opt.GumbelCVisit + float64(maxN)) * s.opt.GumbelCScale
}

// sigma maps a value in [-1,1] by sigma with factor f.
func sigma(f, q float64) float64 { return f * (q + 1) / 2 }

// gumbelRootPick returns the root child of the next simulation of
// sequential halving.
func (s *Search) gumbelRootPick() int32 {
	gr := &s.gum
	root := &s.nodes[0]
	children := s.nodes[root.first : root.first+int32(root.nchild)]
	var sim int32
	for i := range children {
		sim += children[i].n + children[i].inflight
	}
	sim -= gr.sum
	want := gr.table[min(max(int(sim), 0), len(gr.table)-1)]
	f := s.completedQ(root)
	skipLost := s.opt.Solver && !allLost(children)
	pick := func(exact bool, target int32) int {
		best, bestScore := -1, math.Inf(-1)
		for i := range children {
			c := &children[i]
			if !gr.sampled[i] || skipLost && c.proof == proofLoss {
				continue
			}
			if exact && c.n+c.inflight-gr.start[i] != target {
				continue
			}
			score := gr.g[i] + logit(c.prior) + sigma(f, gr.q[i])
			if score > bestScore {
				best, bestScore = i, score
			}
		}
		return best
	}
	best := pick(true, want)
	if best < 0 {
		// No sampled action has the scheduled visits (children passed
		// over by the solver): take the least visited instead.
		least := int32(math.MaxInt32)
		for i := range children {
			if gr.sampled[i] && !(skipLost && children[i].proof == proofLoss) {
				least = min(least, children[i].n+children[i].inflight-gr.start[i])
			}
		}
		best = pick(true, least)
	}
	if best < 0 {
		best = s.gumbelBestByScore(children, f)
	}
	return root.first + int32(best)
}

// gumbelBestByScore is the fallback of the root choices: the best child by
// logits and sigma(q) alone.
func (s *Search) gumbelBestByScore(children []node, f float64) int {
	best, bestScore := 0, math.Inf(-1)
	for i := range children {
		if score := logit(children[i].prior) + sigma(f, s.gum.q[i]); score > bestScore {
			best, bestScore = i, score
		}
	}
	return best
}

// gumbelChoice returns the root child to play: of the sampled actions with
// the most visits in this Run, the best by g + logits + sigma(q).
func (s *Search) gumbelChoice() int32 {
	gr := &s.gum
	root := &s.nodes[0]
	children := s.nodes[root.first : root.first+int32(root.nchild)]
	f := s.completedQ(root)
	skipLost := s.opt.Solver && !allLost(children)
	most := int32(-1)
	for i := range children {
		if gr.sampled[i] && !(skipLost && children[i].proof == proofLoss) {
			most = max(most, children[i].n-gr.start[i])
		}
	}
	best, bestScore := -1, math.Inf(-1)
	for i := range children {
		c := &children[i]
		if !gr.sampled[i] || skipLost && c.proof == proofLoss || c.n-gr.start[i] != most {
			continue
		}
		if score := gr.g[i] + logit(c.prior) + sigma(f, gr.q[i]); score > bestScore {
			best, bestScore = i, score
		}
	}
	if best < 0 {
		best = s.gumbelBestByScore(children, f)
	}
	return root.first + int32(best)
}

// gumbelPick is the deterministic selection below the root: the child
// maximising pi'(a) - N(a) / (1 + sum N), visits in flight counted.
// pi'(a) = P(a) exp(sigma(q(a))) / Z, which needs no logarithm; the
// unvisited children share one completed Q and so one exponential.
func (s *Search) gumbelPick(nd *node) int32 {
	children := s.nodes[nd.first : nd.first+int32(nd.nchild)]
	f := s.completedQ(nd)
	q := s.gum.q
	maxS := math.Inf(-1)
	var sumN int32
	for i := range children {
		q[i] = sigma(f, q[i])
		maxS = max(maxS, q[i])
		sumN += children[i].n + children[i].inflight
	}
	var z float64
	unvisited := math.NaN()
	for i := range q {
		var e float64
		if children[i].n == 0 {
			if math.IsNaN(unvisited) {
				unvisited = math.Exp(q[i] - maxS)
			}
			e = unvisited
		} else {
			e = math.Exp(q[i] - maxS)
		}
		q[i] = float64(children[i].prior) * e
		z += q[i]
	}
	if z <= 0 {
		z = 1
	}
	pk := s.newPicker(children)
	for i := range children {
		if c := &children[i]; !pk.passOver(c) {
			pk = pk.offer(i, q[i]/z-float64(c.n+c.inflight)/float64(1+sumN))
		}
	}
	return nd.first + int32(pk.best)
}

// completedPolicy returns softmax(logits + sigma(completed Q)) over the
// children of node idx.
func (s *Search) completedPolicy(idx int32) []float32 {
	nd := &s.nodes[idx]
	children := s.nodes[nd.first : nd.first+int32(nd.nchild)]
	f := s.completedQ(nd)
	l := make([]float64, len(children))
	maxL := math.Inf(-1)
	for i := range children {
		l[i] = logit(children[i].prior) + sigma(f, s.gum.q[i])
		maxL = max(maxL, l[i])
	}
	var z float64
	for i := range l {
		l[i] = math.Exp(l[i] - maxL)
		z += l[i]
	}
	out := make([]float32, len(children))
	for i := range l {
		out[i] = float32(l[i] / z)
	}
	return out
}
