package tactics

import (
	"fmt"
	"strconv"
	"strings"

	"dama/arena/classic"
	"dama/mcts"
)

// Hybrids chooses the MCTS-minimax hybrids of a search by their depths
// (0: off): the Minimax oracle, the Combinations evaluator around the
// network, the Priors evaluator around that, and the Verifier of the
// chosen move at the root, of the kind Kind.
type Hybrids struct {
	Minimax, Combinations, Priors, Verify int
	Kind                                  VerifyKind
}

// VerifyKind is the kind of a Hybrids' Verifier, named by its item.
type VerifyKind uint8

// The kinds of Verifier.
const (
	// VerifyPlain ("ab") replaces the chosen move by one a margin better.
	VerifyPlain VerifyKind = iota
	// VerifyJudged ("abn") gives the Verifier the evaluator the tree
	// searches with as its Judge.
	VerifyJudged
	// VerifyAhead ("abw") checks only where the side to move is ahead
	// (Verifier.AheadOnly).
	VerifyAhead
	// VerifyProof ("abp") checks only where the side to move is ahead,
	// and replaces only by a forced result (Verifier.AheadOnly and
	// Verifier.ProofOnly).
	VerifyProof
	// VerifySpare ("abs") checks anywhere, in the time a timed tree
	// search leaves once its choice is settled or decided and in none of
	// the tree's, and replaces only by a forced result (Verifier.Spare
	// and Verifier.ProofOnly, every share 0).
	VerifySpare
)

// DefaultHybrids are the hybrids dama hub, play and analyze and the web
// view's board search with: the three together won at equal time
// (docs/rating.md#tactics).
var DefaultHybrids = Hybrids{Minimax: 4, Combinations: 3, Priors: 3}

// Default depths of the hybrids named without one ("mm" for "mm4").
const (
	DefaultMinimaxDepth      = 4
	DefaultCombinationsDepth = 3
	DefaultPriorsDepth       = 3
	DefaultVerifyDepth       = 12
)

// HybridsSyntax names the items a list of hybrids may hold, for errors.
const HybridsSyntax = "mm[DEPTH], cmb[DEPTH], ip[DEPTH], ab[DEPTH], abn[DEPTH], abw[DEPTH], abp[DEPTH] or abs[DEPTH]"

// hybridItems are the names of a list's items, the default depth of each
// and its bound, and where the depth goes.
var hybridItems = []struct {
	name          string
	def, maxDepth int
	depth         func(*Hybrids) *int
	kind          VerifyKind // of a verifier's item
}{
	{"mm", DefaultMinimaxDepth, MaxMinimaxDepth, func(h *Hybrids) *int { return &h.Minimax }, 0},
	{"cmb", DefaultCombinationsDepth, MaxMinimaxDepth, func(h *Hybrids) *int { return &h.Combinations }, 0},
	{"ip", DefaultPriorsDepth, MaxMinimaxDepth, func(h *Hybrids) *int { return &h.Priors }, 0},
	{"ab", DefaultVerifyDepth, classic.MaxDepth, verifyDepth, VerifyPlain},
	{"abn", DefaultVerifyDepth, classic.MaxDepth, verifyDepth, VerifyJudged},
	{"abw", DefaultVerifyDepth, classic.MaxDepth, verifyDepth, VerifyAhead},
	{"abp", DefaultVerifyDepth, classic.MaxDepth, verifyDepth, VerifyProof},
	{"abs", DefaultVerifyDepth, classic.MaxDepth, verifyDepth, VerifySpare},
}

func verifyDepth(h *Hybrids) *int { return &h.Verify }

// ParseHybrids reads a list of hybrids, the one syntax of dama's --hybrids
// flag, its player suffixes (+mm4 is the list "mm4") and the setting
// selfplay.hybrids: "" or "none" for none, else items separated by commas,
// each at most once, mm[DEPTH] (the Minimax oracle), cmb[DEPTH] (the
// Combinations evaluator), ip[DEPTH] (the Priors evaluator), ab[DEPTH]
// (the Verifier), abn[DEPTH] (the Verifier with the network as its
// Judge), abw[DEPTH] (the Verifier where the side to move is ahead,
// Verifier.AheadOnly), abp[DEPTH] (abw replacing only by a forced
// result, Verifier.ProofOnly) and abs[DEPTH] (a forced result anywhere,
// in the time the tree leaves, Verifier.Spare; at most one of ab, abn,
// abw, abp and abs); a
// depth left out is the item's default
// (DefaultMinimaxDepth...), mm, cmb and ip go up to MaxMinimaxDepth, ab
// up to classic.MaxDepth. String writes the list back.
func ParseHybrids(s string) (Hybrids, error) {
	var h Hybrids
	if s == "" || s == "none" {
		return h, nil
	}
	for _, it := range strings.Split(s, ",") {
		name := strings.TrimRight(it, "0123456789")
		i := hybridItem(name)
		if i < 0 {
			return Hybrids{}, fmt.Errorf("tactics: hybrid %q: want %s", it, HybridsSyntax)
		}
		item := hybridItems[i]
		d := item.depth(&h)
		if *d != 0 {
			if d == &h.Verify && h.Kind != item.kind {
				return Hybrids{}, fmt.Errorf("tactics: two of the verifiers ab, abn, abw, abp and abs given together (at most one)")
			}
			return Hybrids{}, fmt.Errorf("tactics: hybrid %s given twice", name)
		}
		*d = item.def
		if d == &h.Verify {
			h.Kind = item.kind
		}
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
// hybrids ("mm", "ab", ...).
func IsHybrid(name string) bool { return hybridItem(name) >= 0 }

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
		d := it.depth(&h)
		if *d == 0 || d == &h.Verify && h.Kind != it.kind {
			continue // off, or the other spelling of the verifier
		}
		items = append(items, it.name+strconv.Itoa(*d))
	}
	if len(items) == 0 {
		return "none"
	}
	return strings.Join(items, ",")
}

// Apply turns the hybrids of h on in opt and around ev and returns the
// evaluator to search with and the player-label suffixes that name them
// ("+mm4+cmb3+ip3+ab12"); the Verifier goes into opt.Check. The Minimax
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
	if h.Verify > 0 {
		v, err := NewVerifier(h.Verify)
		if err != nil {
			return nil, "", err
		}
		switch h.Kind {
		case VerifyJudged:
			v.Judge = ev
		case VerifyAhead:
			v.AheadOnly = true
		case VerifyProof:
			v.AheadOnly, v.ProofOnly = true, true
		case VerifySpare:
			v.ProofOnly, v.Spare = true, true
			v.Share, v.KingShare, v.QuietShare = 0, 0, 0
		}
		opt.Check = v
		label += "+" + Hybrids{Verify: h.Verify, Kind: h.Kind}.String()
	}
	return ev, label, nil
}
