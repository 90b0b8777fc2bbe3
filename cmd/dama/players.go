package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"dama/arena"
	"dama/configs"
	"dama/engine"
	"dama/mcts"
	"dama/model"
	"dama/model/infer"
	"dama/tb"
)

// defaultMCTSVisits is the visit count of a checkpoint player given without
// "@N".
const defaultMCTSVisits = 200

// maxPlayerVisits caps the "@N" of a checkpoint player, as --visits of
// ladder and ship and the arena.visits key of configs are capped.
const maxPlayerVisits = 1_000_000

func init() {
	playerFromSpec = parsePlayerSpec
}

// checkpointBackend is the backend of checkpoint players whose spec names
// none (the --backend flag of arena).
var checkpointBackend string

// parsePlayerSpec extends arena.ParsePlayer with checkpoints: "PATH" or
// "PATH@N" is an MCTS player over the network in the checkpoint file PATH
// with N visits per move (default 200); "PATH@N:BACKEND" runs the network
// on that backend (default: --backend), e.g. to play bf16 against fp32.
// "PATH@tSECONDS" in place of "PATH@N" searches each move for that
// time (wall-clock, or CPU with --clock cpu) instead of a visit count (arena.ParseMoveTime:
// "shipped@t0.25"). Suffixes after the limit, before any ":BACKEND", in
// any order, each once (searchSuffixes): "+pass" searches with forced
// moves passed without evaluation (mcts.Options.PassForced), "+threadsN"
// with N search threads (one forward pass each; default 1), "+batchN"
// evaluating N leaves together per search step (default 1), "+tb" with the
// endgame tables of --tb (withTables), "+mmD", "+cmbD" and "+ipD" with the
// MCTS-minimax hybrids of package tactics: "shipped@t0.25+pass+cmb3".
func parsePlayerSpec(spec string) (arena.Player, error) {
	if p, err := arena.ParsePlayer(spec); err == nil {
		if checkpointClock == clockCPU {
			return arena.WithCPUTime(p)
		}
		return p, nil
	} else if !looksLikeCheckpoint(spec) {
		return nil, fmt.Errorf("%w (or a checkpoint file, PATH[@VISITS|@tSECONDS[SUFFIXES][:BACKEND]], suffixes %s)", err, suffixSyntax)
	}
	path, visits, backend, label := spec, defaultMCTSVisits, checkpointBackend, ""
	sfx := searchSuffixes{threads: 1}
	var moveTime time.Duration // with timeText, its spelling in the spec
	var timeText string
	if i := strings.LastIndexByte(spec, '@'); i >= 0 {
		v := spec[i+1:]
		if j := strings.IndexByte(v, ':'); j >= 0 {
			v, backend, label = v[:j], v[j+1:], v[j:]
			if backend == "" {
				return nil, fmt.Errorf("player %q: empty backend after ':' (valid: %s)", spec, strings.Join(infer.BackendNames(), ", "))
			}
		}
		var err error
		if v, sfx, err = cutSuffixes(spec, v); err != nil {
			return nil, err
		}
		if t, ok := strings.CutPrefix(v, "t"); ok {
			d, err := arena.ParseMoveTime(t)
			if err != nil {
				return nil, fmt.Errorf("player %q: %w", spec, err)
			}
			path, visits, moveTime, timeText = spec[:i], 0, d, v
		} else {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > maxPlayerVisits {
				return nil, fmt.Errorf("player %q: visits after @ must be an integer in 1..%d or t and a time (%s), optionally followed by %s", spec, maxPlayerVisits, arena.MoveTimeSyntax, suffixSyntax)
			}
			path, visits = spec[:i], n
		}
	}
	var tables *tb.Tables
	if sfx.tb {
		if checkpointTables == "" {
			return nil, fmt.Errorf("player %q: %s needs the tables' folder (--tb DIR)", spec, tbSuffix)
		}
		t, err := openTables(checkpointTables)
		if err != nil {
			return nil, fmt.Errorf("--tb: %w", err)
		}
		tables = t
	}
	ck, err := loadModel(path)
	if err != nil {
		return nil, err
	}
	p, err := newModelPlayer(filepath.Base(path), ck, visits, 64, backend, sfx.threads)
	if err != nil {
		return nil, fmt.Errorf("player %q: %w", spec, err)
	}
	if moveTime > 0 {
		p.timed(filepath.Base(path), moveTime, timeText)
	}
	p.passForced(sfx.pass)
	p.threads(sfx.threads)
	if sfx.batch > 0 {
		p.Options.Parallel = sfx.batch
		p.Label += fmt.Sprintf("+%s%d", batchSuffix, sfx.batch)
	}
	if sfx.cpuct.v > 0 {
		p.Options.CPuct = sfx.cpuct.v
		p.Label += sfx.cpuct.text
	}
	if sfx.ptemp.v > 0 {
		p.Options.PolicyTemperature = sfx.ptemp.v
		p.Label += sfx.ptemp.text
	}
	if tables != nil {
		withTables(&p.Options, tables)
		p.Label += tbSuffix
	}
	if err := p.hybrids(sfx); err != nil {
		return nil, fmt.Errorf("player %q: %w", spec, err)
	}
	p.Label += label
	if err := p.useClock(); err != nil {
		return nil, fmt.Errorf("player %q: %w", spec, err)
	}
	return p, nil
}

// useClock makes a timed p count its time by --clock; call it once p is
// complete (its hybrids wrap its evaluator).
func (p *modelPlayer) useClock() error {
	if checkpointClock != clockCPU {
		return nil
	}
	_, err := arena.WithCPUTime(p.MCTSPlayer)
	return err
}

// The clocks of --clock: what a time per move counts.
const (
	clockWall = "wall"
	clockCPU  = "cpu"
)

// checkpointClock is the --clock of arena and tactics: clockWall or
// clockCPU, the CPU time of the thread that plays each move
// (arena.WithCPUTime) for every timed player.
var checkpointClock = clockWall

// clockFlag adds --clock to fs.
func clockFlag(fs *flag.FlagSet) {
	fs.Func("clock", `what a time per move (tSECONDS) counts: wall, the wall clock (default), or cpu, the CPU time of the thread that plays the move (Linux), so that other work on the machine takes nothing from a timed player; each such player's search and forward passes then run on the move's thread (one search thread)`, func(s string) error {
		switch s {
		case clockWall, clockCPU:
		default:
			return fmt.Errorf("want %s or %s", clockWall, clockCPU)
		}
		if s == clockCPU {
			if err := arena.CheckCPUClock(); err != nil {
				return err
			}
		}
		checkpointClock = s
		return nil
	})
}

// tbSuffix after a checkpoint player's visits makes it play with the
// endgame tables of --tb (withTables).
const tbSuffix = "+tb"

// checkpointTables is the folder of endgame tables of the checkpoint
// players marked +tb (the --tb flag of arena and ladder).
var checkpointTables string

// tbFlagUsage is the help text of the --tb flags.
const tbFlagUsage = "folder of endgame tables (dama tb gen), or auto:N (N in 2..5) for those of up to N pieces in the user's cache folder, generated there first where missing (5 pieces: some 4 CPU-minutes, once): positions in them are proven in the search and played by them (a won ending won within the 40-move rule, a drawn one not lost); empty: none"

// maxAutoEnginePieces is the most pieces of a --tb auto:N. The engine
// commands go one piece further than self-play's selfplay.tables (whose
// every worker would generate or read them): the 5-piece tables are
// generated once, in minutes, and take 200 MB to hold.
const maxAutoEnginePieces = 5

// tablesFlag registers --tb, the tables of the checkpoint players marked
// +tb (and what more the command does with them, when more is not empty),
// on fs.
func tablesFlag(fs *flag.FlagSet, more string) {
	checkpointTables = ""
	fs.StringVar(&checkpointTables, "tb", "", `the endgame tables of checkpoint players marked +tb ("PATH@N+tb")`+more+": "+tbFlagUsage)
}

// openTables opens (once per process: players sharing a folder share its
// memory) and checks the endgame tables that a --tb names: a folder, or
// "auto:N" for those of the user's cache folder, generated there first
// where missing (a line on stderr says what it found or made).
func openTables(name string) (*tb.Tables, error) {
	n, ok := configs.ParseAutoTables(name, maxAutoEnginePieces)
	switch {
	case !ok:
		return tb.Shared(name)
	case n == 0:
		return nil, fmt.Errorf("%q: want a folder or %sN with N in 2..%d", name, configs.AutoTablesPrefix, maxAutoEnginePieces)
	}
	return tb.SharedCache(n, stderr)
}

// withTables makes a search use t: table positions below the root are
// proven leaves (mcts.Options.Oracle, with the solver to carry their
// proofs up), and table roots are played by the tables (engine.Searcher,
// arena.MCTSPlayer).
func withTables(opt *mcts.Options, t *tb.Tables) {
	opt.Oracle = tb.Oracle{T: t}
	opt.Solver = true
}

// threadsSuffix, then a count, after a checkpoint player's limit sets its
// search threads (mcts.Options.Threads).
const threadsSuffix = "threads"

// parseThreads reads the N of "+threadsN"; more threads than cores is
// allowed, with a warning on stderr (once).
func parseThreads(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("+%s%s: %q is not an integer", threadsSuffix, s, s)
	}
	warning, err := engine.CheckThreads(n)
	if err != nil {
		return 0, fmt.Errorf("+%s%s: %w", threadsSuffix, s, err)
	}
	if warning != "" {
		threadsWarning.Do(func() { fmt.Fprintln(stderr, "warning:", warning) })
	}
	return n, nil
}

// threadsWarning gives the warning of more threads than cores once.
var threadsWarning sync.Once

// threads sets mcts.Options.Threads and marks the label (n > 1).
func (p *modelPlayer) threads(n int) {
	p.Options.Threads = n
	if n > 1 {
		p.Label += fmt.Sprintf("+%s%d", threadsSuffix, n)
	}
}

// timed makes the player, opened with visits 0, search each move for d
// and names it label@TEXT (text: d as the user spelt it, e.g. "t0.25").
func (p *modelPlayer) timed(label string, d time.Duration, text string) {
	p.Visits, p.Time = 0, d
	p.Label = label + "@" + text
}

// passForced sets mcts.Options.PassForced and marks the label.
func (p *modelPlayer) passForced(on bool) {
	p.Options.PassForced = on
	if on {
		p.Label += passSuffix
	}
}

// passForcedUsage is the help text of the --pass-forced flags.
const passForcedUsage = "search past positions with one legal move (mostly forced captures) without evaluating them, so tactical lines reach deeper (mcts.Options.PassForced; +76 Elo at 800 visits, see docs/experiments.md)"

// passSuffix after a checkpoint player's visits turns on
// mcts.Options.PassForced.
const passSuffix = "+pass"

func looksLikeCheckpoint(spec string) bool {
	path := spec
	if i := strings.LastIndexByte(spec, '@'); i >= 0 {
		path = spec[:i]
	}
	_, err := os.Stat(path)
	return err == nil || path == shippedModel || strings.HasSuffix(path, ".ckpt")
}

// modelPlayer is an MCTS player that owns its network evaluator.
type modelPlayer struct {
	*arena.MCTSPlayer
	ev *infer.Evaluator
}

// newModelPlayer opens the network on backend ("" or "auto": the
// default one) and reports the backend on stderr. Visits 0 makes a player
// to be given a time per move (timed): its evaluator runs a forward-pass
// goroutine per core, so that games played at once each have one, as a
// classic player's games each have their own goroutine; otherwise one
// goroutine batches the positions of all its games. With threads > 1
// (set by the threads method) each search thread of each game runs its
// own forward passes (the evaluator's batch view, infer.Direct), as does
// the one thread of a timed player with --clock cpu (useClock).
func newModelPlayer(label string, ck *model.Checkpoint, visits, batch int, backend string, threads int) (*modelPlayer, error) {
	workers := 1
	if visits == 0 {
		workers = runtime.NumCPU()
	}
	ev, err := infer.OpenEvaluator(ck.Net, infer.EvaluatorOptions{MaxBatch: batch, CacheSize: 1 << 16, Backend: backend, Workers: workers})
	if err != nil {
		return nil, err
	}
	logBackend(label, ev, backend)
	var mev mcts.Evaluator = ev
	if threads > 1 || visits == 0 && checkpointClock == clockCPU {
		mev = ev.Direct() // a CPU-timed move's forward passes on its thread
	}
	return &modelPlayer{
		MCTSPlayer: &arena.MCTSPlayer{Label: fmt.Sprintf("%s@%d", label, visits), Evaluator: mev, Visits: visits, Options: mcts.Options{FPUReduction: mcts.StandardFPUReduction}},
		ev:         ev,
	}, nil
}

// logBackend says on stderr which backend runs the network of who, asked
// for as requested, and why (infer.ExplainBackend).
func logBackend(who string, ev *infer.Evaluator, requested string) {
	fmt.Fprintf(stderr, "%s: network backend %s (%s)\n", who, ev.Backend(), infer.ExplainBackend(requested))
}

// backendUsage is the help text of the --backend flags.
func backendUsage() string {
	return "forward pass of the network: auto (bf16 where the CPU has AVX512_BF16, else int8 where an amd64 CPU has AVX2, else fp32), fp32, bf16 (needs AVX512_BF16) or int8 (needs AVX2 or AVX-VNNI/AVX512_VNNI, or FEAT_DotProd on arm64); one of " + strings.Join(infer.BackendNames(), ", ")
}

// checkBackendFlag checks the name given to --backend before any work: an
// unknown name, or one this CPU cannot run, is an error naming the valid
// ones.
func checkBackendFlag(name string) error {
	if _, err := infer.ResolveBackend(name); err != nil {
		return fmt.Errorf("--backend: %w", err)
	}
	return nil
}

// Close stops the evaluator.
func (p *modelPlayer) Close() error {
	p.ev.Close()
	return nil
}
