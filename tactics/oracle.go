package tactics

import (
	"fmt"

	"dama/mcts"
)

// MaxMinimaxDepth bounds the depth of a Minimax oracle.
const MaxMinimaxDepth = 8

// Minimax is an mcts.Oracle: a shallow full-width win/loss search at each
// new leaf (the MCTS-minimax hybrid of Baier and Winands, "MCTS-Minimax
// Hybrids", 2015, with minimax in the selection's leaves). It proves the
// side to move won when it can leave the opponent without a move within
// Depth plies, and lost when every move lets the opponent do so; positions
// with one legal move (most forced captures) do not count against Depth.
// Draws are not proven, and a line whose draw by repetition or by the
// 40-move rule the leaf's history cannot rule out proves nothing (see
// searcher.open), so every proof holds under the rules. A game length cap
// (mcts.Options.MaxPlies) is not seen. Safe for concurrent use.
type Minimax struct {
	Depth int // plies at full width, 1..MaxMinimaxDepth
}

// NewMinimax returns a Minimax oracle of depth plies.
func NewMinimax(depth int) (*Minimax, error) {
	if depth < 1 || depth > MaxMinimaxDepth {
		return nil, fmt.Errorf("tactics: minimax depth %d out of range 1..%d", depth, MaxMinimaxDepth)
	}
	return &Minimax{Depth: depth}, nil
}

// Prove implements mcts.Oracle.
func (o *Minimax) Prove(q mcts.Query) (mcts.Proof, bool) {
	s := getSearcher()
	defer putSearcher(s)
	switch s.prove(q.Pos, o.Depth, q.QuietPlies) {
	case won:
		return mcts.ProofWin, true
	case lost:
		return mcts.ProofLoss, true
	}
	return mcts.ProofNone, false
}
