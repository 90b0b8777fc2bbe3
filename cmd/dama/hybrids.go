package main

import (
	"fmt"
	"strconv"
	"strings"

	"dama/arena/classic"
	"dama/mcts"
	"dama/tactics"
)

// Default depths of the hybrid suffixes given without one.
const (
	defaultMinimaxDepth = 4
	defaultCombDepth    = 3
	defaultPriorsDepth  = 3
	defaultVerifyDepth  = 12
)

// searchSuffixes are the search switches after a checkpoint player's
// visits or time, each at most once: "+pass" (mcts.Options.PassForced),
// "+threadsN" (mcts.Options.Threads), "+tb" (the endgame tables of --tb),
// "+mmD" (the tactics.Minimax oracle of depth D, default 4, with the MCTS
// solver so that its proofs go up the tree), "+cmbD" (the
// tactics.Combinations evaluator of depth D, default 3, around the
// network), "+ipD" (the tactics.Priors evaluator of depth D, default 3,
// around that) and "+abD" (the tactics.Verifier of the chosen move, an
// alpha-beta search of depth D, default 12, within a quarter of a timed
// move's time where a capture is near).
type searchSuffixes struct {
	pass    bool
	threads int // search threads; 1 when not given
	tb      bool
	mmDepth int // 0: off
	cbDepth int // 0: off
	ipDepth int // 0: off
	abDepth int // 0: off
}

// suffixSyntax names the suffixes in errors.
const suffixSyntax = "+pass, +threadsN, +tb, +mm[DEPTH], +cmb[DEPTH], +ip[DEPTH] or +ab[DEPTH]"

// cutSuffixes splits the visits or time text v of spec from its '+'
// suffixes.
func cutSuffixes(spec, v string) (string, searchSuffixes, error) {
	h := searchSuffixes{threads: 1}
	parts := strings.Split(v, "+")
	seen := map[string]bool{}
	for _, s := range parts[1:] {
		var err error
		name := strings.TrimRight(s, "0123456789")
		if seen[name] {
			return "", h, fmt.Errorf("player %q: search switch +%s given twice (visits after @ are followed by %s, each once)", spec, name, suffixSyntax)
		}
		seen[name] = true
		switch {
		case "+"+s == passSuffix:
			h.pass = true
		case "+"+s == tbSuffix:
			h.tb = true
		case name == threadsSuffix:
			h.threads, err = parseThreads(s[len(threadsSuffix):])
		case name == "mm":
			h.mmDepth, err = suffixDepth(s[2:], defaultMinimaxDepth, tactics.MaxMinimaxDepth)
		case name == "cmb":
			h.cbDepth, err = suffixDepth(s[3:], defaultCombDepth, tactics.MaxMinimaxDepth)
		case name == "ip":
			h.ipDepth, err = suffixDepth(s[2:], defaultPriorsDepth, tactics.MaxMinimaxDepth)
		case name == "ab":
			h.abDepth, err = suffixDepth(s[2:], defaultVerifyDepth, classic.MaxDepth)
		default:
			err = fmt.Errorf("unknown suffix %q", "+"+s)
		}
		if err != nil {
			return "", h, fmt.Errorf("player %q: %w (visits after @ are followed by %s, each once)", spec, err, suffixSyntax)
		}
	}
	return parts[0], h, nil
}

// suffixDepth reads the depth after a hybrid suffix ("" for def), at
// most maxDepth.
func suffixDepth(s string, def, maxDepth int) (int, error) {
	if s == "" {
		return def, nil
	}
	d, err := strconv.Atoi(s)
	if err != nil || d < 1 || d > maxDepth {
		return 0, fmt.Errorf("hybrid depth %q: want an integer in 1..%d", s, maxDepth)
	}
	return d, nil
}

// apply turns the hybrids of h on in opt and around ev (pass, threads and
// tables are left to the caller; tactics.Hybrids.Apply) and returns the
// evaluator to search with and the suffixes for a label.
func (h searchSuffixes) apply(opt *mcts.Options, ev mcts.Evaluator) (mcts.Evaluator, string, error) {
	return tactics.Hybrids{Minimax: h.mmDepth, Combinations: h.cbDepth, Priors: h.ipDepth, Verify: h.abDepth}.Apply(opt, ev)
}

// hybrids turns on the hybrids of h and marks the label with them.
func (p *modelPlayer) hybrids(h searchSuffixes) error {
	ev, label, err := h.apply(&p.Options, p.Evaluator)
	if err != nil {
		return err
	}
	p.Evaluator = ev
	p.Label += label
	return nil
}

// parseHybridsFlag reads the --hybrids flag of hub, play and analyze: a
// comma-separated list of mm[DEPTH], cmb[DEPTH], ip[DEPTH] and ab[DEPTH], or none.
func parseHybridsFlag(s string) (searchSuffixes, error) {
	if s == "" || s == "none" {
		return searchSuffixes{threads: 1}, nil
	}
	_, h, err := cutSuffixes("", "+"+strings.ReplaceAll(s, ",", "+"))
	if err != nil || h.pass || h.tb || h.threads != 1 {
		return searchSuffixes{}, fmt.Errorf("--hybrids %q: want none or a comma-separated list of mm[DEPTH], cmb[DEPTH], ip[DEPTH] and ab[DEPTH] (tactics in the search)", s)
	}
	return h, nil
}

// defaultHybrids is the --hybrids default of hub, play and analyze: the
// hybrids that won at equal time (docs/rating.md#tactics).
const defaultHybrids = "mm4,cmb3,ip3"

// hybridsUsage is the help text of --hybrids.
const hybridsUsage = "MCTS-minimax hybrids, comma-separated: mm[DEPTH] (shallow win/loss proofs at leaves), cmb[DEPTH] (material search at leaves moves the value), ip[DEPTH] (informed priors for winning moves), ab[DEPTH] (an alpha-beta search verifies the chosen move at the root, in a quarter of a timed move where a capture is near), or none; see docs/rating.md#tactics"
