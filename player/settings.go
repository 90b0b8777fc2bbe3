package player

import (
	"fmt"
	"strings"

	"dama/checkerboard"
	"dama/configs"
	"dama/engine"
	"dama/tactics"
)

// Setting is one setting of a player, as each way of writing a player
// spells it. A field is empty where that way does not set it.
type Setting struct {
	Name    string // what the setting is, in one word: "batch"
	Flag    string // its command-line flag, without dashes: "batch"
	Suffix  string // its spec suffix: "+batchN"
	Key     string // its configuration keys: "selfplay.leaves_in_flight"
	Meaning string // what it means, for help texts
	Range   string // the values it takes: "1..256"
	// Lo and Hi bound the flag's value where it is a number (both 0
	// otherwise); Note says what a special value of the flag means.
	Lo, Hi float64
	Note   string
}

// Bounds of the settings that more than one place checks.
const (
	// MaxVisits caps the visits of a spec ("@N"), as the visits keys of
	// configs are capped.
	MaxVisits = 1_000_000
	// MaxFlagVisits caps --visits.
	MaxFlagVisits = 1_000_000_000
	// MaxBatch bounds the leaves evaluated together per search step.
	MaxBatch = 256
	// MinCPuct and MaxCPuct bound the exploration constant of +cpuctX.
	MinCPuct = 0.01
	MaxCPuct = 20.0
	// MaxFlagTime caps --time, in seconds.
	MaxFlagTime = 1e6
	// MaxCache caps --cache.
	MaxCache = 1 << 30
	// DefaultCache is the evaluations a player's network caches unless a
	// flag says otherwise.
	DefaultCache = 1 << 16
	// MaxAutoTables is the most pieces of a --tb auto:N. The engine
	// commands go one piece further than self-play's selfplay.tables
	// (whose every worker would generate or read them): the 5-piece
	// tables are generated once, in minutes, and take 200 MB to hold.
	MaxAutoTables = 5
)

// The clocks of --clock: what a time a move counts.
const (
	ClockWall = "wall" // the wall clock
	ClockCPU  = "cpu"  // the CPU time of the thread that plays the move
)

// Settings returns every setting of a player, once, in the order a spec
// writes its suffixes.
func Settings() []Setting {
	return []Setting{
		{Name: "model", Flag: "model", Meaning: `the network: a checkpoint file, a run folder (its best model), "shipped" (the model shipped in the binary) or "random" (a uniform evaluator, no network)`, Range: "a path, shipped or random"},
		{Name: "visits", Flag: "visits", Suffix: "@N", Key: "selfplay.visits, arena.visits, ladder.visits",
			Meaning: "MCTS visits of the root a move; with a time too, the first limit reached ends the search",
			Range:   fmt.Sprintf("1..%d (--visits 0: none, with --time)", MaxVisits), Lo: 0, Hi: MaxFlagVisits, Note: "0: no visit limit"},
		{Name: "time", Flag: "time", Suffix: "@tSECONDS",
			Meaning: "seconds per move; a time given alone is the limit, the visits unlimited; with visits too, the first limit reached ends the search",
			Range:   "0.001..3600 s: t0.25, t1.0, t2s, t250ms in a spec (a bare integer is refused)", Lo: 0, Hi: MaxFlagTime, Note: "0: no time limit"},
		{Name: "plain", Suffix: "+plain",
			Meaning: "search as plain PUCT before the other suffixes: no forced moves passed, the priors as the network gives them, one leaf a step, no hybrids (what a bare network spec meant before it meant the Engine default)",
			Range:   "-"},
		{Name: "pass", Flag: "pass-forced", Suffix: "+pass", Key: "selfplay.pass_forced",
			Meaning: "search past positions with one legal move (mostly forced captures) without evaluating them, so tactical lines reach deeper (mcts.Options.PassForced; +76 Elo at 800 visits, docs/experiments.md)",
			Range:   "on or off"},
		{Name: "threads", Flag: "threads", Suffix: "+threadsN",
			Meaning: "search threads: workers descending one tree, each with its own forward passes (one core each; more than the cores is allowed, with a warning)",
			Range:   fmt.Sprintf("1..%d", engine.MaxThreads), Lo: 1, Hi: engine.MaxThreads},
		{Name: "batch", Flag: "batch", Suffix: "+batchN", Key: "selfplay.leaves_in_flight",
			Meaning: "leaves evaluated together per search step of each thread, with virtual loss (mcts.Options.Parallel)",
			Range:   fmt.Sprintf("1..%d", MaxBatch), Lo: 1, Hi: MaxBatch},
		{Name: "cpuct", Suffix: "+cpuctX", Key: "selfplay.cpuct",
			Meaning: "the exploration constant of PUCT (mcts.Options.CPuct)",
			Range:   fmt.Sprintf("%g..%g (selfplay.cpuct: (0,100])", float64(MinCPuct), float64(MaxCPuct))},
		{Name: "fpu", Key: "selfplay.fpu_reduction",
			Meaning: "first-play urgency: an unvisited child is valued at its parent's value minus this (mcts.Options.FPUReduction)",
			Range:   "0..2"},
		{Name: "policy-temp", Flag: "policy-temp", Suffix: "+ptX", Key: "selfplay.policy_temp",
			Meaning: "temperature of the network's priors in the search: above 1 flattens them, so that a long search looks at more moves (docs/rating.md#tuning-the-search-for-play)",
			Range:   fmt.Sprintf("%g..%g", float64(configs.MinPolicyTemp), float64(configs.MaxPolicyTemp)), Lo: configs.MinPolicyTemp, Hi: configs.MaxPolicyTemp},
		{Name: "tables", Flag: "tb", Suffix: "+tb", Key: "selfplay.tables",
			Meaning: "endgame tables: positions in them are proven in the search and played by them (a won ending won within the 40-move rule, a drawn one not lost); a spec's +tb takes the folder of the command's --tb",
			Range:   fmt.Sprintf("a folder (dama tb gen), or auto:N (N in 2..%d) for those of up to N pieces in the user's cache folder, generated there first where missing (5 pieces: some 4 CPU-minutes, once); empty: none", MaxAutoTables)},
		{Name: "hybrids", Flag: "hybrids", Suffix: "+mm[D], +cmb[D], +ip[D]", Key: "selfplay.hybrids",
			Meaning: "MCTS-minimax hybrids (docs/rating.md#tactics): mm[D] proves wins and losses at leaves, cmb[D] moves the value by a material search at leaves, ip[D] gives winning moves informed priors; --hybrids takes them comma-separated, or none; a spec naming any replaces the default list",
			Range:   fmt.Sprintf("D in 1..%d (defaults mm%d, cmb%d, ip%d)", tactics.MaxMinimaxDepth, tactics.DefaultMinimaxDepth, tactics.DefaultCombinationsDepth, tactics.DefaultPriorsDepth)},
		{Name: "tree", Flag: "tree-mb", Meaning: "memory of the search tree in MB; a full tree stops growing and the search goes on",
			Range: fmt.Sprintf("%d..%d", engine.MinTreeMB, engine.MaxTreeMB), Lo: engine.MinTreeMB, Hi: engine.MaxTreeMB},
		{Name: "cache", Flag: "cache", Key: "selfplay.cache_size", Meaning: "evaluations of the network cached",
			Range: fmt.Sprintf("0..%d", MaxCache), Lo: 0, Hi: MaxCache, Note: "0: none"},
		{Name: "backend", Flag: "backend", Suffix: ":BACKEND", Key: "selfplay.backend",
			Meaning: "forward pass of the network: auto (int8 where an amd64 CPU has AVX2, else fp32), fp32, bf16 (needs AVX512_BF16) or int8 (needs AVX2 or AVX-VNNI/AVX512_VNNI, or FEAT_DotProd on arm64); a spec's :BACKEND overrides --backend",
			Range:   "auto, fp32, bf16, int8"},
		{Name: "engine", Suffix: hubSyntax,
			Meaning: "an external engine speaking the Hub protocol (the protocol of Scan; dama hub is one) as a player of arena, tactics and ladder --model: COMMAND is split into words as a shell would, and its limit is sent as the engine's level (visits as level nodes=N, a time as level move-time=S; without one the Engine default's visits; ladder --model hub:COMMAND takes --visits or --time); dama checks every move, and a crash, a hang, a handshake not finished, an illegal or a garbled move loses the game, the engine restarted for the next (docs/rating.md#other-engines-as-opponents)",
			Range:   "a command; its stderr and the protocol go to a log file named on stderr"},
		{Name: "library", Suffix: checkerboard.PlayerPrefix + "PATH.so[@tSECONDS]",
			Meaning: "a CheckerBoard engine library on Linux (getmove and enginecommand, such as dama's own libdama-cb.so) as a player of arena and tactics: each game runs it in a harness process of its own (built with gcc on first use), maxtime the given time (1 s without one); dama checks every board and CBmove it returns, and a crash, a hang or a move that is not legal loses the game (docs/engines.md#checkerboard)",
			Range:   "a library file"},
		{Name: "clock", Flag: "clock",
			Meaning: "what a time a move counts: wall, the wall clock, or cpu, the CPU time of the thread that plays the move (Linux), so that other work on the machine takes nothing from a timed player; each such player's search and forward passes then run on the move's thread (one search thread)",
			Range:   ClockWall + " or " + ClockCPU},
	}
}

// setting returns the setting called name; it panics on a name Settings
// does not list (a programming error).
func setting(name string) Setting {
	for _, s := range Settings() {
		if s.Name == name || s.Flag == name {
			return s
		}
	}
	panic("player: no setting " + name)
}

// Help returns the meaning of the setting whose flag is name, for a flag
// of the same meaning declared elsewhere (self-play's --backend).
func Help(name string) string { return setting(name).Meaning }

// Syntax is the syntax of a network spec, for errors and help texts.
func Syntax() string {
	var sfx []string
	for _, s := range Settings() {
		if strings.HasPrefix(s.Suffix, "+") {
			sfx = append(sfx, s.Suffix)
		}
	}
	return "PATH[@VISITS|@tSECONDS][SUFFIXES][:BACKEND], suffixes " + strings.Join(sfx, ", ") + ", each at most once, in any order"
}

// SuffixHelp is the table of a spec's suffixes, one line each, for help
// texts.
func SuffixHelp() string {
	var b strings.Builder
	for _, s := range Settings() {
		if s.Suffix == "" {
			continue
		}
		fmt.Fprintf(&b, "  %-24s %s (%s)\n", s.Suffix, s.Meaning, s.Range)
	}
	return b.String()
}

// refSyntax names the reference players, for errors.
const refSyntax = "random, alphabeta:DEPTH, classic:DEPTH, classic:nNODES or classic:tSECONDS"
