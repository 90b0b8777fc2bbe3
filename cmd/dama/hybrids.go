package main

import (
	"fmt"
	"strconv"
	"strings"

	"dama/configs"
	"dama/mcts"
	"dama/tactics"
)

// searchSuffixes are the search switches after a checkpoint player's
// visits or time, each at most once: "+pass" (mcts.Options.PassForced),
// "+threadsN" (mcts.Options.Threads), "+batchN" (N leaves evaluated
// together per search step, mcts.Options.Parallel, as the Hub's
// --parallel), "+tb" (the endgame tables of --tb),
// "+mmD" (the tactics.Minimax oracle of depth D, default 4, with the MCTS
// solver so that its proofs go up the tree), "+cmbD" (the
// tactics.Combinations evaluator of depth D, default 3, around the
// network), "+ipD" (the tactics.Priors evaluator of depth D, default 3,
// around that), "+cpuctX"
// (mcts.Options.CPuct) and "+ptX" (mcts.Options.PolicyTemperature), X a
// decimal number.
type searchSuffixes struct {
	pass    bool
	threads int // search threads; 1 when not given
	batch   int // leaves per search step; 0 when not given (1)
	tb      bool
	hy      tactics.Hybrids
	cpuct   tuned // +cpuctX; zero when not given (the default)
	ptemp   tuned // +ptX; zero when not given (1)
}

// tuned is a search constant given by a suffix, with its spelling for
// the player's label.
type tuned struct {
	v    float64
	text string // the suffix as given, "+cpuct2.5"
}

// The suffixes that set a search constant, and their ranges.
const (
	cpuctSuffix = "cpuct"
	ptempSuffix = "pt"
	minCPuct    = 0.01
	maxCPuct    = 20
)

// parseTuned reads the X of "+NAMEX", a number in [lo, hi].
func parseTuned(name, x string, lo, hi float64, what string) (tuned, error) {
	v, err := strconv.ParseFloat(x, 64)
	if err != nil || !(v >= lo && v <= hi) {
		return tuned{}, fmt.Errorf("+%s%s: want %s, a number in %g..%g", name, x, what, lo, hi)
	}
	return tuned{v: v, text: "+" + name + x}, nil
}

// suffixSyntax names the suffixes in errors.
const suffixSyntax = "+pass, +threadsN, +batchN, +cpuctX, +ptX, +tb, +mm[DEPTH], +cmb[DEPTH] or +ip[DEPTH]"

// cutSuffixes splits the visits or time text v of spec from its '+'
// suffixes.
func cutSuffixes(spec, v string) (string, searchSuffixes, error) {
	h := searchSuffixes{threads: 1}
	parts := strings.Split(v, "+")
	seen := map[string]bool{}
	var hybrids []string
	for _, s := range parts[1:] {
		var err error
		name := strings.TrimRight(s, "0123456789.")
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
		case name == batchSuffix:
			h.batch, err = parseBatch(s[len(batchSuffix):])
		case name == cpuctSuffix:
			h.cpuct, err = parseTuned(name, s[len(name):], minCPuct, maxCPuct, "the exploration constant of PUCT")
		case name == ptempSuffix:
			h.ptemp, err = parseTuned(name, s[len(name):], configs.MinPolicyTemp, configs.MaxPolicyTemp, "the temperature of the network's priors")
		case tactics.RemovedHybrid(name) != nil:
			return "", h, fmt.Errorf("player %q: +%w", spec, tactics.RemovedHybrid(name))
		case tactics.IsHybrid(name):
			// The hybrid suffixes together are one list of
			// tactics.ParseHybrids, read after the loop.
			hybrids = append(hybrids, s)
		default:
			err = fmt.Errorf("unknown suffix %q", "+"+s)
		}
		if err != nil {
			return "", h, fmt.Errorf("player %q: %w (visits after @ are followed by %s, each once)", spec, err, suffixSyntax)
		}
	}
	if len(hybrids) > 0 {
		hy, err := tactics.ParseHybrids(strings.Join(hybrids, ","))
		if err != nil {
			return "", h, fmt.Errorf("player %q: %w (visits after @ are followed by %s, each once)", spec, err, suffixSyntax)
		}
		h.hy = hy
	}
	return parts[0], h, nil
}

// batchSuffix, then a count, after a checkpoint player's limit sets the
// leaves it evaluates together per search step (mcts.Options.Parallel).
const batchSuffix = "batch"

// maxBatch bounds +batchN, as the Hub's --parallel.
const maxBatch = 256

// parseBatch reads the N of "+batchN".
func parseBatch(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > maxBatch {
		return 0, fmt.Errorf("+%s%s: want a leaf count in 1..%d", batchSuffix, s, maxBatch)
	}
	return n, nil
}

// apply turns the hybrids of h on in opt and around ev (pass, threads and
// tables are left to the caller; tactics.Hybrids.Apply) and returns the
// evaluator to search with and the suffixes for a label.
func (h searchSuffixes) apply(opt *mcts.Options, ev mcts.Evaluator) (mcts.Evaluator, string, error) {
	return h.hy.Apply(opt, ev)
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

// parseHybridsFlag reads the --hybrids flag of hub, play, analyze and
// ladder: a comma-separated list of mm[DEPTH], cmb[DEPTH] and ip[DEPTH],
// or none, in the syntax of tactics.ParseHybrids (that of selfplay.hybrids
// too).
func parseHybridsFlag(s string) (searchSuffixes, error) {
	hy, err := tactics.ParseHybrids(s)
	if err != nil {
		return searchSuffixes{}, fmt.Errorf("--hybrids %q: %w (or none)", s, err)
	}
	h := searchSuffixes{threads: 1}
	h.hy = hy
	return h, nil
}

// defaultHybrids is the --hybrids default of hub, play and analyze: the
// hybrids that won at equal time (docs/rating.md#tactics).
const defaultHybrids = "mm4,cmb3,ip3"

// hybridsUsage is the help text of --hybrids.
const hybridsUsage = "MCTS-minimax hybrids, comma-separated: mm[DEPTH] (shallow win/loss proofs at leaves), cmb[DEPTH] (material search at leaves moves the value), ip[DEPTH] (informed priors for winning moves), or none; see docs/rating.md#tactics"
