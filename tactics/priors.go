package tactics

import (
	"context"
	"fmt"

	"dama/mcts"
	"dama/rules"
)

// DefaultFloor is the least prior that Priors gives the moves that win
// material, shared among them.
const DefaultFloor = 0.3

// Priors is an mcts.Evaluator around another one (the network) that
// raises the priors of the moves a shallow material search finds winning
// (the informed priors of Baier and Winands' MCTS-minimax hybrids,
// MCTS-IP): at each evaluated position it searches every legal move
// Depth-1 plies at full width, forced moves not counted, then the
// captures, and when the best of them ends at least Threshold centi-men
// above the captures pending at the position (a sacrifice and a multiple
// capture: the move a policy prior gives little), those best moves share
// at least Floor of the prior, the others scaled down to make room. The
// network's value is kept. A PUCT search with a policy prior rarely
// visits a move with a small prior; this makes it look at the
// combinations the shallow search sees, and the network's values, deeper
// in the tree, judge them. Safe for concurrent use when the inner
// evaluator is.
type Priors struct {
	Inner     mcts.Evaluator
	Depth     int     // plies, the move included, 1..MaxMinimaxDepth
	Threshold int     // smallest gain in centi-men that counts; 0: DefaultThreshold
	Floor     float32 // least summed prior of the winning moves; 0: DefaultFloor
}

// NewPriors returns a Priors evaluator of depth plies around inner, with
// the default threshold and floor.
func NewPriors(inner mcts.Evaluator, depth int) (*Priors, error) {
	if depth < 1 || depth > MaxMinimaxDepth {
		return nil, fmt.Errorf("tactics: informed priors depth %d out of range 1..%d", depth, MaxMinimaxDepth)
	}
	return &Priors{Inner: inner, Depth: depth}, nil
}

// Unwrap returns the inner evaluator.
func (p *Priors) Unwrap() mcts.Evaluator { return p.Inner }

// Evaluate implements mcts.Evaluator.
func (p *Priors) Evaluate(ctx context.Context, q mcts.Query, e *mcts.Evaluation) error {
	if c := p.stacked(); c != nil {
		// c's inner evaluator, then c's value shift and p's priors from
		// one search.
		if err := c.Inner.Evaluate(ctx, q, e); err != nil {
			return err
		}
		p.adjustStacked(c, q, e)
		return nil
	}
	if err := p.Inner.Evaluate(ctx, q, e); err != nil {
		return err
	}
	p.adjustAlone(q, e)
	return nil
}

// stacked returns the Combinations evaluator right inside p (itself, or
// its batch view) when it searches to p's depth, else nil. Its search of
// the position is the best of p's moves: the two then share one search,
// and p evaluates with that evaluator's inner one and moves the value
// itself (adjustStacked), as the two one after the other would.
func (p *Priors) stacked() *Combinations {
	in := p.Inner
	if b, ok := in.(batchView); ok {
		in = b.adjuster
	}
	if c, ok := in.(*Combinations); ok && c.Depth == p.Depth {
		return c
	}
	return nil
}

// adjust raises the priors in e of the moves of q the shallow search
// finds winning (and, stacked on a Combinations evaluator, moves the
// value as it would).
func (p *Priors) adjust(q mcts.Query, e *mcts.Evaluation) {
	if c := p.stacked(); c != nil {
		p.adjustStacked(c, q, e)
		return
	}
	p.adjustAlone(q, e)
}

// adjustAlone is adjust with searches of p's own.
func (p *Priors) adjustAlone(q mcts.Query, e *mcts.Evaluation) {
	if len(q.Legal) < 2 {
		return
	}
	var buf [rules.MaxMoves]bool
	win := buf[:len(q.Legal)]
	if p.Winning(q, win) {
		p.raise(win, e)
	}
}

// adjustStacked is adjust on c's evaluation before c moved its value: one
// quiescence b and one search r of q at c's depth give c's gain, and with
// two legal moves or more r is also the best of the moves p searches one
// ply less deep after each, so that p needs its own searches only where r
// reaches its threshold.
func (p *Priors) adjustStacked(c *Combinations, q mcts.Query, e *mcts.Evaluation) {
	s := getSearcher()
	defer putSearcher(s)
	b := s.quiesce(q.Pos, 0, -winScore-1, winScore+1)
	r := s.alphaBeta(q.Pos, c.Depth, 0, -winScore-1, winScore+1)
	c.shift(gainOf(b, r), e)
	if len(q.Legal) < 2 || b >= winBound || b <= -winBound || r < b+p.threshold() {
		return
	}
	var buf [rules.MaxMoves]bool
	win := buf[:len(q.Legal)]
	p.markBest(s, q, win)
	p.raise(win, e)
}

// raise gives the moves marked in win at least Floor of the priors in e
// together, scaling the others down to make room.
func (p *Priors) raise(win []bool, e *mcts.Evaluation) {
	floor := p.Floor
	if floor <= 0 {
		floor = DefaultFloor
	}
	var have, rest float32
	for i, w := range win {
		if w {
			have += e.Priors[i]
		} else {
			rest += e.Priors[i]
		}
	}
	if have >= floor {
		return
	}
	n := 0
	for _, w := range win {
		if w {
			n++
		}
	}
	for i, w := range win {
		switch {
		case w:
			e.Priors[i] = (e.Priors[i] + (floor-have)/float32(n))
		case rest > 0:
			e.Priors[i] *= (1 - floor) / rest
		}
	}
}

// threshold returns Threshold, or its default.
func (p *Priors) threshold() int { return thresholdOr(p.Threshold) }

// Winning marks in win (len(q.Legal)) the moves of q the shallow search
// finds best, and reports whether they gain at least Threshold over the
// captures pending at q (see Priors).
func (p *Priors) Winning(q mcts.Query, win []bool) bool {
	th := p.threshold()
	s := getSearcher()
	defer putSearcher(s)
	b := s.quiesce(q.Pos, 0, -winScore-1, winScore+1)
	if b >= winBound || b <= -winBound {
		return false
	}
	// Most positions hold no combination: a null window at the threshold
	// answers whether some move reaches it, with the cutoffs that exact
	// scores of every move would forgo. The searches are fail-soft, so a
	// move that reaches it returns at least b+th.
	reached := false
	for _, m := range q.Legal {
		if v := -s.alphaBeta(q.Pos.Play(m), p.Depth-1, 1, -(b + th), -(b + th - 1)); v >= b+th {
			reached = true
			break
		}
	}
	if !reached {
		return false
	}
	p.markBest(s, q, win)
	return true
}

// markBest marks in win the moves of q whose search Depth-1 plies deep
// after the move scores best. Each move is searched above best-1, the
// best so far, so a move that scores less fails low (below every later
// best) and one that ties or beats it is scored exactly.
func (p *Priors) markBest(s *searcher, q mcts.Query, win []bool) {
	var buf [rules.MaxMoves]int
	score := buf[:len(q.Legal)]
	best := -winScore - 1
	for i, m := range q.Legal {
		score[i] = -s.alphaBeta(q.Pos.Play(m), p.Depth-1, 1, -winScore-1, -(best - 1))
		best = max(best, score[i])
	}
	for i := range win {
		win[i] = score[i] == best
	}
}
