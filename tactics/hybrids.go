package tactics

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"dama/mcts"
)

// Hybrids chooses the MCTS-minimax hybrids of a search by their depths
// (0: off): the Minimax oracle, the Combinations evaluator around the
// network, and the Priors evaluator around that.
type Hybrids struct {
	Minimax, Combinations, Priors int
}

// DefaultHybrids are the hybrids dama hub, play and analyze and the web
// view's board search with: the three together won at equal time
// (docs/rating.md#tactics).
var DefaultHybrids = Hybrids{Minimax: 4, Combinations: 3, Priors: 3}

// Default depths of the hybrids named without one ("mm" for "mm4").
const (
	DefaultMinimaxDepth      = 4
	DefaultCombinationsDepth = 3
	DefaultPriorsDepth       = 3
)

// HybridsSyntax names the items a list of hybrids may hold, for errors.
const HybridsSyntax = "mm[DEPTH], cmb[DEPTH] or ip[DEPTH]"

// hybridItems are the names of a list's items, the default depth of each
// and its bound, and where the depth goes.
var hybridItems = []struct {
	name          string
	def, maxDepth int
	depth         func(*Hybrids) *int
}{
	{"mm", DefaultMinimaxDepth, MaxMinimaxDepth, func(h *Hybrids) *int { return &h.Minimax }},
	{"cmb", DefaultCombinationsDepth, MaxMinimaxDepth, func(h *Hybrids) *int { return &h.Combinations }},
	{"ip", DefaultPriorsDepth, MaxMinimaxDepth, func(h *Hybrids) *int { return &h.Priors }},
}

// ErrRemoved is wrapped by the error of a hybrid that was removed
// (RemovedHybrid).
var ErrRemoved = errors.New("removed")

// removedDoc is where the record of the removed hybrids is kept.
const removedDoc = "docs/rating.md#tactics"

// RemovedHybrid returns, for the name of an item that lists of hybrids no
// longer take, an error wrapping ErrRemoved that says why and where the
// record is ("abn was removed: ...; see docs/rating.md#tactics"), and nil
// for any other name. The removed items are the root verifiers: each lost
// its A/B at equal time.
func RemovedHybrid(name string) error {
	var why string
	switch name {
	case "ab":
		why = "the root verifier lost at equal time (-52 [-108, +1] at 0.25 s; with 0.1 s, 50.6% over 160 games)"
	case "abn":
		why = "the verifier judged by the network lost at equal time (-52 [-93, -14] at 0.25 s)"
	case "abw":
		why = "the verifier where the side to move is ahead lost at equal time (-21 [-51, +9]; 47.8% over 200 games)"
	case "abp":
		why = "the verifier of proven results only lost at equal time (-14 [-43, +15] at 0.25 s of CPU)"
	case "abs":
		why = "the verifier in the time the tree leaves lost at equal time (-50 [-83, -17] over 70 games)"
	default:
		return nil
	}
	return fmt.Errorf("%s was %w: %s; see %s", name, ErrRemoved, why, removedDoc)
}

// ParseHybrids reads a list of hybrids, the one syntax of dama's --hybrids
// flag, its player suffixes (+mm4 is the list "mm4") and the setting
// selfplay.hybrids: "" or "none" for none, else items separated by commas,
// each at most once, mm[DEPTH] (the Minimax oracle), cmb[DEPTH] (the
// Combinations evaluator) and ip[DEPTH] (the Priors evaluator); a depth
// left out is the item's default (DefaultMinimaxDepth...), each goes up
// to MaxMinimaxDepth. A removed item is its RemovedHybrid error. String
// writes the list back.
func ParseHybrids(s string) (Hybrids, error) {
	var h Hybrids
	if s == "" || s == "none" {
		return h, nil
	}
	for _, it := range strings.Split(s, ",") {
		name := strings.TrimRight(it, "0123456789")
		if err := RemovedHybrid(name); err != nil {
			return Hybrids{}, fmt.Errorf("tactics: hybrid %w", err)
		}
		i := hybridItem(name)
		if i < 0 {
			return Hybrids{}, fmt.Errorf("tactics: hybrid %q: want %s", it, HybridsSyntax)
		}
		item := hybridItems[i]
		d := item.depth(&h)
		if *d != 0 {
			return Hybrids{}, fmt.Errorf("tactics: hybrid %s given twice", name)
		}
		*d = item.def
		if digits := it[len(name):]; digits != "" {
			n, err := strconv.Atoi(digits)
			if err != nil || n < 1 || n > item.maxDepth {
				return Hybrids{}, fmt.Errorf("tactics: hybrid %q: depth %s: want an integer in 1..%d", it, digits, item.maxDepth)
			}
			*d = n
		}
	}
	return h, nil
}

// IsHybrid reports whether name, without a depth, is an item of a list of
// hybrids ("mm", "cmb", "ip") or one that was removed (RemovedHybrid).
func IsHybrid(name string) bool {
	return hybridItem(name) >= 0 || RemovedHybrid(name) != nil
}

// hybridItem returns the index of the hybrid item called name, or -1.
func hybridItem(name string) int {
	for i, it := range hybridItems {
		if it.name == name {
			return i
		}
	}
	return -1
}

// String returns h in the syntax of ParseHybrids, every depth written:
// "none", or a list such as "mm4,cmb3,ip3".
func (h Hybrids) String() string {
	var items []string
	for _, it := range hybridItems {
		if d := it.depth(&h); *d != 0 {
			items = append(items, it.name+strconv.Itoa(*d))
		}
	}
	if len(items) == 0 {
		return "none"
	}
	return strings.Join(items, ",")
}

// Apply turns the hybrids of h on in opt and around ev and returns the
// evaluator to search with and the player-label suffixes that name them
// ("+mm4+cmb3+ip3"). The Minimax
// oracle comes after an oracle opt already has (endgame tables answer
// first), with the solver on so that its proofs go up the tree. Around an
// evaluator that evaluates whole batches (mcts.BatchEvaluator), the
// evaluators it returns do too.
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
		ev = withBatch(c, c.Inner)
		label += fmt.Sprintf("+cmb%d", h.Combinations)
	}
	if h.Priors > 0 {
		p, err := NewPriors(ev, h.Priors)
		if err != nil {
			return nil, "", err
		}
		inner := p.Inner
		if c := p.stacked(); c != nil {
			inner = c.Inner // p moves the value too, in the same search
		}
		ev = withBatch(p, inner)
		label += fmt.Sprintf("+ip%d", h.Priors)
	}
	return ev, label, nil
}
