package player

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"dama/configs"
	"dama/engine"
	"dama/mcts"
	"dama/tactics"
)

// Search is how a network player searches a move: its limits, the
// search's settings (Settings lists each with its flag, suffix and
// configuration key) and the hybrids around the network. A zero field is
// the search's own default or off, as mcts.Options reads it.
type Search struct {
	Visits int           // root visits a move; 0: no visit limit (then Time)
	Time   time.Duration // time a move; 0: no time limit
	// Batch is the leaves evaluated together per search step
	// (mcts.Options.Parallel); Threads the search threads
	// (mcts.Options.Threads).
	Batch, Threads int
	Pass           bool    // forced moves passed without evaluation (mcts.Options.PassForced)
	PolicyTemp     float64 // temperature of the priors (mcts.Options.PolicyTemperature); 0: as given
	CPuct          float64 // PUCT's exploration constant; 0: mcts.DefaultCPuct
	FPU            float64 // first-play urgency reduction (mcts.Options.FPUReduction)
	Hybrids        tactics.Hybrids
	// Tables are the endgame tables searched with: a folder or auto:N
	// ("" none).
	Tables string
	// TreeMB is the memory of the tree in MB (engine.TreeNodes); 0: the
	// search's default node cap.
	TreeMB int
	// MaxPlies makes a node at that game ply a draw (a match's length
	// cap, mcts.Options.MaxPlies); 0: none.
	MaxPlies int
}

// Engine is the search of dama hub, play and analyze, the web view's
// board, and a network spec unless it says +plain: engine.SearchDefaults
// (four leaves a step, forced moves passed, the priors flattened by
// engine.PlayPolicyTemperature) with tactics.DefaultHybrids, one thread,
// engine.DefaultVisits a move.
func Engine() Search {
	o := engine.SearchDefaults()
	return Search{
		Visits: engine.DefaultVisits, Batch: o.Parallel, Threads: max(o.Threads, 1),
		Pass: o.PassForced, PolicyTemp: o.PolicyTemperature, CPuct: o.CPuct, FPU: o.FPUReduction,
		Hybrids: tactics.DefaultHybrids,
	}
}

// Plain is plain PUCT, what +plain asks for: the standard first-play
// urgency and nothing else (no forced moves passed, the priors as given,
// one leaf a step, no hybrids), with the visits given.
func Plain(visits int) Search {
	return Search{Visits: visits, Threads: 1, FPU: mcts.StandardFPUReduction}
}

// Training is self-play's search under the selfplay section c: its
// visits, leaves in flight, PUCT constants, priors' temperature, forced
// moves, tables and hybrids (the root noise, the move temperature and the
// training-only techniques stay selfplay.SearchOptions'). An error names
// a selfplay.hybrids that does not read.
func Training(c configs.SelfPlay) (Search, error) {
	h, err := tactics.ParseHybrids(c.Hybrids)
	if err != nil {
		return Search{}, fmt.Errorf("selfplay.hybrids %q: %w", c.Hybrids, err)
	}
	return Search{
		Visits: c.Visits, Batch: c.LeavesInFlight, Pass: c.PassForced, PolicyTemp: c.PolicyTemp,
		CPuct: c.CPuct, FPU: c.FPUReduction, Hybrids: h, Tables: c.Tables,
	}, nil
}

// Gate is the search of the gating match under the selfplay section sc
// and the arena section ac: self-play's PUCT constants and forced moves
// at arena.visits, without noise, temperature, tables or hybrids, its
// nodes at arena.max_plies drawn.
func Gate(sc configs.SelfPlay, ac configs.Arena) Search {
	return Search{Visits: ac.Visits, Pass: sc.PassForced, CPuct: sc.CPuct, FPU: sc.FPUReduction, MaxPlies: ac.MaxPlies}
}

// Ladder is the search that rates a model on the ladder under the
// selfplay section sc and the ladder section lc: the gate's at
// ladder.visits, without a length cap. dama ladder rates by
// Ladder(configs.Default()...): plain PUCT at 800 visits, as every run's
// ladder ratings were measured.
func Ladder(sc configs.SelfPlay, lc configs.Ladder) Search {
	return Search{Visits: lc.Visits, Pass: sc.PassForced, CPuct: sc.CPuct, FPU: sc.FPUReduction}
}

// LadderDefault is the Ladder search under the default configuration:
// plain PUCT at 800 visits, as the runs' ladder ratings search, so that a
// rating by dama ladder or dama ship compares with theirs.
func LadderDefault() Search {
	d := configs.Default()
	return Ladder(d.SelfPlay, d.Ladder)
}

// LadderNote says how s, a model's search on the ladder, stands to
// LadderDefault: the same but for its limits, or what it changed.
func (s Search) LadderNote() string {
	d := LadderDefault()
	d.Visits, d.Time = s.Visits, s.Time
	if diff := s.Suffixes(d); diff != "" {
		return "search: " + s.Describe() + " (the Ladder default, plain PUCT, changed: " + diff + "; ratings compare with the runs' only by the Ladder default)"
	}
	return "search: " + s.Describe() + " (the Ladder default, as the runs' ladder ratings)"
}

// Options returns the search options of s; the tables and the hybrids,
// which need opening, are Open's.
func (s Search) Options() mcts.Options {
	o := mcts.Options{
		CPuct: s.CPuct, FPUReduction: s.FPU, PolicyTemperature: s.PolicyTemp,
		Parallel: s.Batch, Threads: s.Threads, PassForced: s.Pass, MaxPlies: s.MaxPlies,
	}
	if s.TreeMB > 0 {
		o.MaxNodes = engine.TreeNodes(s.TreeMB)
	}
	return o
}

// Limits returns the limits of one search of s.
func (s Search) Limits() engine.Limits {
	return engine.Limits{Visits: s.Visits, Time: s.Time}
}

// Check reports the first setting of s out of its range, naming it as a
// spec would.
func (s Search) Check() error {
	switch {
	case s.Visits < 0 || s.Visits > MaxFlagVisits:
		return fmt.Errorf("visits %d out of range 0..%d", s.Visits, MaxFlagVisits)
	case s.Time < 0:
		return fmt.Errorf("time %v must not be negative", s.Time)
	case s.Visits == 0 && s.Time == 0:
		return fmt.Errorf("no limit: want visits, a time, or both")
	case s.Batch < 0 || s.Batch > MaxBatch:
		return fmt.Errorf("batch %d out of range 1..%d", s.Batch, MaxBatch)
	case s.Threads < 0 || s.Threads > engine.MaxThreads:
		return fmt.Errorf("threads %d out of range 1..%d", s.Threads, engine.MaxThreads)
	case s.TreeMB < 0 || s.TreeMB > engine.MaxTreeMB:
		return fmt.Errorf("tree %d MB out of range %d..%d", s.TreeMB, engine.MinTreeMB, engine.MaxTreeMB)
	}
	return s.Options().Validate()
}

// Suffixes writes the settings of s that differ from base as a spec's
// suffixes, in the order a spec's label writes them ("+pass+threads2+mm4"):
// "+plain" first where base has something s turns off, s is then written
// against Plain. The limits and the tables' folder are not written (the
// folder is a command's --tb: "+tb").
func (s Search) Suffixes(base Search) string {
	// What no suffix turns off: forced moves passed, flattened priors,
	// hybrids, tables.
	temp := func(t float64) float64 {
		if t == 0 {
			return 1
		}
		return t
	}
	plain := base.Pass && !s.Pass || temp(base.PolicyTemp) != 1 && temp(s.PolicyTemp) == 1 ||
		base.Hybrids != (tactics.Hybrids{}) && s.Hybrids == (tactics.Hybrids{}) || base.Tables != "" && s.Tables == ""
	var b strings.Builder
	if plain {
		b.WriteString("+plain")
		base = Plain(0)
	}
	if s.Pass && !base.Pass {
		b.WriteString("+pass")
	}
	if s.Threads > 1 && s.Threads != base.Threads {
		fmt.Fprintf(&b, "+threads%d", s.Threads)
	}
	if s.Batch != base.Batch && max(s.Batch, 1) != max(base.Batch, 1) {
		fmt.Fprintf(&b, "+batch%d", max(s.Batch, 1))
	}
	cpuct := func(c float64) float64 {
		if c == 0 {
			return mcts.DefaultCPuct
		}
		return c
	}
	if cpuct(s.CPuct) != cpuct(base.CPuct) {
		b.WriteString("+cpuct" + strconv.FormatFloat(cpuct(s.CPuct), 'f', -1, 64))
	}
	if temp(s.PolicyTemp) != temp(base.PolicyTemp) {
		b.WriteString("+pt" + strconv.FormatFloat(s.PolicyTemp, 'f', -1, 64))
	}
	if s.Tables != "" && base.Tables == "" {
		b.WriteString("+tb")
	}
	if s.Hybrids != base.Hybrids && s.Hybrids != (tactics.Hybrids{}) {
		b.WriteString("+" + strings.ReplaceAll(s.Hybrids.String(), ",", "+"))
	}
	return b.String()
}

// limitText writes the limits of s as a spec's after "@": "800", "t1s",
// or "" with both or neither (a label then names them apart).
func (s Search) limitText() string {
	switch {
	case s.Time > 0 && s.Visits == 0:
		return "t" + strconv.FormatFloat(s.Time.Seconds(), 'f', -1, 64) + "s"
	case s.Time == 0 && s.Visits > 0:
		return strconv.Itoa(s.Visits)
	}
	return ""
}

// Describe says in words what s is, for a command's output: its limits
// and its settings, "800 visits, plain PUCT" or "1s a move, forced moves
// passed, 4 leaves a step, priors at temperature 1.8, hybrids mm4,cmb3,ip3".
func (s Search) Describe() string {
	var parts []string
	switch {
	case s.Visits > 0 && s.Time > 0:
		parts = append(parts, fmt.Sprintf("%d visits or %v a move", s.Visits, s.Time))
	case s.Time > 0:
		parts = append(parts, fmt.Sprintf("%v a move", s.Time))
	default:
		parts = append(parts, fmt.Sprintf("%d visits a move", s.Visits))
	}
	n := len(parts)
	if s.Pass {
		parts = append(parts, "forced moves passed")
	}
	if s.Threads > 1 {
		parts = append(parts, fmt.Sprintf("%d threads", s.Threads))
	}
	if s.Batch > 1 {
		parts = append(parts, fmt.Sprintf("%d leaves a step", s.Batch))
	}
	if s.CPuct > 0 && s.CPuct != mcts.DefaultCPuct {
		parts = append(parts, fmt.Sprintf("cpuct %g", s.CPuct))
	}
	if s.FPU != mcts.StandardFPUReduction {
		parts = append(parts, fmt.Sprintf("FPU reduction %g", s.FPU))
	}
	if s.PolicyTemp > 0 && s.PolicyTemp != 1 {
		parts = append(parts, fmt.Sprintf("priors at temperature %g", s.PolicyTemp))
	}
	if s.Tables != "" {
		parts = append(parts, "endgame tables "+s.Tables)
	}
	if s.Hybrids != (tactics.Hybrids{}) {
		parts = append(parts, "hybrids "+s.Hybrids.String())
	}
	if len(parts) == n {
		parts = append(parts, "plain PUCT")
	}
	return strings.Join(parts, ", ")
}
