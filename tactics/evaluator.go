package tactics

import (
	"context"
	"fmt"
	"math"

	"dama/mcts"
)

// Defaults of a Combinations evaluator.
const (
	// DefaultThreshold is the smallest gain, in centi-men, that moves a
	// value: one man.
	DefaultThreshold = ManValue
	// DefaultSlope is the shift of the value's logit (atanh of W-L) per
	// man gained.
	DefaultSlope = 0.8
	// maxGainMen caps the gain a value is shifted by (a won game counts
	// as this many men).
	maxGainMen = 4
)

// Combinations is an mcts.Evaluator around another one (the network): a
// shallow material search at each leaf corrects the value where it finds
// a combination (Baier and Winands' MCTS-minimax hybrids with a heuristic
// evaluation, 2015, minimax in the leaves; the capture quiescence of
// classical engines). At a leaf it plays out the pending captures (which
// are compulsory) to a quiet material balance b, and searches Depth plies
// at full width, forced moves not counted, then the captures, to a
// balance r. When r differs from b by at least Threshold centi-men (a
// sacrifice followed by a multiple capture, or a threat the side to move
// cannot parry) the network's value is moved by that many men: its logit
// atanh(W-L) shifted by Slope per man, the draw probability scaled to fit.
// The priors are the network's. Safe for concurrent use when the inner
// evaluator is.
type Combinations struct {
	Inner     mcts.Evaluator
	Depth     int     // plies at full width, 1..MaxMinimaxDepth
	Threshold int     // smallest gain in centi-men that moves a value; 0: DefaultThreshold
	Slope     float64 // logit shift per man; 0: DefaultSlope
}

// NewCombinations returns a Combinations evaluator of depth plies around
// inner, with the default threshold and slope.
func NewCombinations(inner mcts.Evaluator, depth int) (*Combinations, error) {
	if depth < 1 || depth > MaxMinimaxDepth {
		return nil, fmt.Errorf("tactics: combination search depth %d out of range 1..%d", depth, MaxMinimaxDepth)
	}
	return &Combinations{Inner: inner, Depth: depth}, nil
}

// Unwrap returns the inner evaluator.
func (c *Combinations) Unwrap() mcts.Evaluator { return c.Inner }

// Evaluate implements mcts.Evaluator.
func (c *Combinations) Evaluate(ctx context.Context, q mcts.Query, e *mcts.Evaluation) error {
	if err := c.Inner.Evaluate(ctx, q, e); err != nil {
		return err
	}
	c.adjust(q, e)
	return nil
}

// adjust moves the network's value e of q by the gain the shallow search
// finds there.
func (c *Combinations) adjust(q mcts.Query, e *mcts.Evaluation) {
	c.shift(c.Gain(q), e)
}

// shift moves the value e by gain centi-men when the gain reaches the
// threshold either way.
func (c *Combinations) shift(gain int, e *mcts.Evaluation) {
	if th := thresholdOr(c.Threshold); gain > -th && gain < th {
		return
	}
	slope := c.Slope
	if slope <= 0 {
		slope = DefaultSlope
	}
	e.WDL = ShiftWDL(e.WDL, slope*float64(gain)/ManValue)
}

// thresholdOr returns a hybrid's threshold th, or DefaultThreshold for 0.
func thresholdOr(th int) int {
	if th <= 0 {
		return DefaultThreshold
	}
	return th
}

// Gain returns what the shallow search finds at q beyond the captures
// pending there, in centi-men for the side to move, within ±maxGainMen
// men (a forced win or loss counts as that).
func (c *Combinations) Gain(q mcts.Query) int {
	s := getSearcher()
	defer putSearcher(s)
	b := s.quiesce(q.Pos, 0, -winScore-1, winScore+1)
	return gainOf(b, s.alphaBeta(q.Pos, c.Depth, 0, -winScore-1, winScore+1))
}

// gainOf returns the gain of a search's balance r over the quiescence's b
// (see Gain).
func gainOf(b, r int) int {
	const cap = maxGainMen * ManValue
	switch {
	case r >= winBound:
		return cap
	case r <= -winBound:
		return -cap
	case b >= winBound || b <= -winBound:
		return 0 // the captures decide: nothing to add
	}
	return min(max(r-b, -cap), cap)
}

// ShiftWDL moves the value W-L of wdl by shift on the logit scale:
// W'-L' = tanh(atanh(W-L) + shift); the draw probability is scaled by
// (1-|W'-L'|)/(1-|W-L|), so that the three stay probabilities.
func ShiftWDL(wdl [3]float32, shift float64) [3]float32 {
	w, d, l := float64(wdl[0]), float64(wdl[1]), float64(wdl[2])
	v := w - l
	const edge = 0.999
	vc := min(max(v, -edge), edge)
	nv := math.Tanh(math.Atanh(vc) + shift)
	nd := 0.0
	if 1-math.Abs(v) > 1e-9 {
		nd = min(max(d*(1-math.Abs(nv))/(1-math.Abs(v)), 0), 1-math.Abs(nv))
	}
	nw := max((1+nv-nd)/2, 0)
	nl := max((1-nv-nd)/2, 0)
	return [3]float32{float32(nw), float32(nd), float32(nl)}
}
