package main

import (
	"fmt"
	"strconv"
	"strings"

	"dama/tactics"
)

// Default depths of the hybrid suffixes given without one.
const (
	defaultMinimaxDepth = 4
	defaultCombDepth    = 3
	defaultPriorsDepth  = 3
)

// searchSuffixes are the search switches after a checkpoint player's
// visits or time: "+pass" (mcts.Options.PassForced), "+mmD" (the
// tactics.Minimax oracle of depth D, default 4, with the MCTS solver so
// that its proofs go up the tree), "+cmbD" (the tactics.Combinations
// evaluator of depth D, default 3, around the network) and "+ipD" (the
// tactics.Priors evaluator of depth D, default 3, around that).
type searchSuffixes struct {
	pass    bool
	mmDepth int // 0: off
	cbDepth int // 0: off
	ipDepth int // 0: off
}

// suffixSyntax names the suffixes in errors.
const suffixSyntax = "+pass, +mm[DEPTH], +cmb[DEPTH] or +ip[DEPTH]"

// cutHybrids splits the visits or time text v of spec from its '+'
// suffixes.
func cutHybrids(spec, v string) (string, searchSuffixes, error) {
	var h searchSuffixes
	parts := strings.Split(v, "+")
	for _, s := range parts[1:] {
		var err error
		switch {
		case s == "pass":
			h.pass = true
		case strings.HasPrefix(s, "mm"):
			h.mmDepth, err = suffixDepth(s[2:], defaultMinimaxDepth)
		case strings.HasPrefix(s, "cmb"):
			h.cbDepth, err = suffixDepth(s[3:], defaultCombDepth)
		case strings.HasPrefix(s, "ip"):
			h.ipDepth, err = suffixDepth(s[2:], defaultPriorsDepth)
		default:
			err = fmt.Errorf("unknown search switch %q (want %s)", "+"+s, suffixSyntax)
		}
		if err != nil {
			return "", h, fmt.Errorf("player %q: %w", spec, err)
		}
	}
	return parts[0], h, nil
}

// suffixDepth reads the depth after a hybrid suffix ("" for def).
func suffixDepth(s string, def int) (int, error) {
	if s == "" {
		return def, nil
	}
	d, err := strconv.Atoi(s)
	if err != nil || d < 1 || d > tactics.MaxMinimaxDepth {
		return 0, fmt.Errorf("hybrid depth %q: want an integer in 1..%d", s, tactics.MaxMinimaxDepth)
	}
	return d, nil
}

// hybrids turns on the search switches h and marks the label with them.
func (p *modelPlayer) hybrids(h searchSuffixes) error {
	p.passForced(h.pass)
	if h.mmDepth > 0 {
		o, err := tactics.NewMinimax(h.mmDepth)
		if err != nil {
			return err
		}
		p.Options.Oracle, p.Options.Solver = o, true
		p.Label += fmt.Sprintf("+mm%d", h.mmDepth)
	}
	if h.cbDepth > 0 {
		c, err := tactics.NewCombinations(p.Evaluator, h.cbDepth)
		if err != nil {
			return err
		}
		p.Evaluator = c
		p.Label += fmt.Sprintf("+cmb%d", h.cbDepth)
	}
	if h.ipDepth > 0 {
		ip, err := tactics.NewPriors(p.Evaluator, h.ipDepth)
		if err != nil {
			return err
		}
		p.Evaluator = ip
		p.Label += fmt.Sprintf("+ip%d", h.ipDepth)
	}
	return nil
}
