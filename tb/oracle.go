package tb

import (
	"dama/mcts"
)

// Oracle is the tables as an mcts.Oracle: positions of at most Pieces
// pieces are proven with their exact value at the query's 40-move counter.
type Oracle struct{ T *Tables }

// Prove returns the value of q.Pos at counter q.QuietPlies. It declines
// (ok false) positions with more pieces than the tables and positions that
// occurred before in the game (q.Repetitions > 0), which a repetition may
// draw whatever the table says (see the package doc); a position whose win
// needs more quiet plies than the 40-move rule leaves is proven a draw.
func (o Oracle) Prove(q mcts.Query) (mcts.Proof, bool) {
	if q.Repetitions > 0 || !o.T.Has(q.Pos) {
		return mcts.ProofNone, false
	}
	e, err := o.T.Probe(q.Pos)
	if err != nil {
		return mcts.ProofNone, false
	}
	switch e.Under(q.QuietPlies) {
	case Win:
		return mcts.ProofWin, true
	case Loss:
		return mcts.ProofLoss, true
	}
	return mcts.ProofDraw, true
}

// TablesOf returns the tables of o when o is an Oracle or an mcts.Oracles
// holding one (the search's oracle of a player with tables and a shallow
// search), and nil otherwise.
func TablesOf(o mcts.Oracle) *Tables {
	switch o := o.(type) {
	case Oracle:
		return o.T
	case mcts.Oracles:
		for _, x := range o {
			if t := TablesOf(x); t != nil {
				return t
			}
		}
	}
	return nil
}
