// Package evaltest holds fake evaluators (mcts.Evaluator) for the tests of
// the packages that search: uniform priors with a constant value, and
// uniform priors with a value from the material balance. They cost nothing
// and are deterministic, so a seeded search with them repeats exactly.
// It also holds an oracle for those tests, a plain minimax over the rules
// that says whether a side can force a win, puzzles it confirms, and
// Position, a test's position from its FEN.
package evaltest

import (
	"context"
	"math"

	"dama/mcts"
	"dama/rules"
)

// Constant gives uniform priors and the same win/draw/loss to every
// position, like an untrained network.
type Constant [3]float32

// Draw is a Constant that calls every position a certain draw.
var Draw = Constant{0, 1, 0}

// Evaluate implements mcts.Evaluator.
func (c Constant) Evaluate(_ context.Context, q mcts.Query, out *mcts.Evaluation) error {
	uniform(q, out)
	out.WDL = c
	return nil
}

// Material gives uniform priors and a value v = tanh(Steep * d / 3) of the
// material balance d of the side to move (a king counts 1.5 men), as the
// win/draw/loss (max(v,0), 1-|v|, max(-v,0)). A zero Steep means 1.
type Material struct{ Steep float64 }

// Evaluate implements mcts.Evaluator.
func (m Material) Evaluate(_ context.Context, q mcts.Query, out *mcts.Evaluation) error {
	uniform(q, out)
	out.WDL = materialWDL(q.Pos, m.Steep)
	return nil
}

// materialWDL is the win/draw/loss Material gives p with steepness steep.
func materialWDL(p rules.Position, steep float64) [3]float32 {
	if steep == 0 {
		steep = 1
	}
	me, opp := p.Side(), p.Side().Opponent()
	mm, mk := p.Count(me)
	om, ok := p.Count(opp)
	v := float32(math.Tanh(steep * (float64(mm-om) + 1.5*float64(mk-ok)) / 3))
	return [3]float32{max(v, 0), 1 - float32(math.Abs(float64(v))), max(-v, 0)}
}

// uniform spreads the priors evenly over the legal moves.
func uniform(q mcts.Query, out *mcts.Evaluation) {
	for i := range out.Priors {
		out.Priors[i] = 1 / float32(len(q.Legal))
	}
}
