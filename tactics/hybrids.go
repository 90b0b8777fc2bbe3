package tactics

import (
	"fmt"

	"dama/mcts"
)

// Hybrids chooses the MCTS-minimax hybrids of a search by their depths
// (0: off): the Minimax oracle, the Combinations evaluator around the
// network, the Priors evaluator around that, and the Verifier of the
// chosen move at the root.
type Hybrids struct {
	Minimax, Combinations, Priors, Verify int
}

// DefaultHybrids are the hybrids dama hub, play and analyze and the web
// view's board search with: the three together won at equal time
// (docs/rating.md#tactics).
var DefaultHybrids = Hybrids{Minimax: 4, Combinations: 3, Priors: 3}

// Apply turns the hybrids of h on in opt and around ev and returns the
// evaluator to search with and the player-label suffixes that name them
// ("+mm4+cmb3+ip3+ab12"); the Verifier goes into opt.Check. The Minimax oracle comes after an oracle opt already
// has (endgame tables answer first), with the solver on so that its proofs
// go up the tree.
func (h Hybrids) Apply(opt *mcts.Options, ev mcts.Evaluator) (mcts.Evaluator, string, error) {
	label := ""
	if h.Minimax > 0 {
		o, err := NewMinimax(h.Minimax)
		if err != nil {
			return nil, "", err
		}
		if opt.Oracle != nil {
			opt.Oracle = mcts.Oracles{opt.Oracle, o}
		} else {
			opt.Oracle = o
		}
		opt.Solver = true
		label += fmt.Sprintf("+mm%d", h.Minimax)
	}
	if h.Combinations > 0 {
		c, err := NewCombinations(ev, h.Combinations)
		if err != nil {
			return nil, "", err
		}
		ev = c
		label += fmt.Sprintf("+cmb%d", h.Combinations)
	}
	if h.Priors > 0 {
		p, err := NewPriors(ev, h.Priors)
		if err != nil {
			return nil, "", err
		}
		ev = p
		label += fmt.Sprintf("+ip%d", h.Priors)
	}
	if h.Verify > 0 {
		v, err := NewVerifier(h.Verify)
		if err != nil {
			return nil, "", err
		}
		opt.Check = v
		label += fmt.Sprintf("+ab%d", h.Verify)
	}
	return ev, label, nil
}
