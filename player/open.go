package player

import (
	"fmt"
	"io"
	"runtime"
	"strings"

	"dama/arena"
	"dama/checkerboard"
	"dama/checkpoints"
	"dama/configs"
	"dama/engine"
	"dama/mcts"
	"dama/model"
	"dama/model/infer"
	"dama/runfolder"
	"dama/tb"
)

// Env is what the players of one command share, from its flags.
type Env struct {
	// Backend is the forward pass of a network whose spec names none
	// (--backend); "" or "auto": the fastest this CPU runs.
	Backend string
	// Tables are the endgame tables of the players marked +tb (--tb): a
	// folder or auto:N; "": none.
	Tables string
	// CPUClock counts a time a move in CPU time of the thread that plays
	// the move (--clock cpu), not wall-clock time.
	CPUClock bool
	// Cache is the evaluations each network caches; 0: none.
	Cache int
	// Games is how many games a network player plays at once, whose
	// positions its forward passes batch: 0 for one game searched at a
	// time (hub, play, analyze), else a match's (arena, ladder, tactics).
	Games int
	// Log receives the backend each match network runs on, the tables
	// generated, and warnings; nil: nothing.
	Log io.Writer
}

// warn writes a warning line to e.Log (nothing for an empty one).
func (e Env) warn(w string) {
	if w != "" && e.Log != nil {
		fmt.Fprintln(e.Log, "warning:", w)
	}
}

// matchBatch is the most positions a forward pass of a match network
// takes, whatever is queued up to it.
const matchBatch = 64

// Network is a network player opened: its evaluator (with the hybrids
// around the network), its search options (with the tables and the
// hybrids' oracle) and limits.
type Network struct {
	Evaluator mcts.Evaluator
	Options   mcts.Options
	Limits    engine.Limits
	Name      string           // the network for people: "shipped model (small, step 12, backend int8)"
	net       *infer.Evaluator // nil for the uniform evaluator
}

// Close releases the network's evaluator.
func (n *Network) Close() {
	if n.net != nil {
		n.net.Close()
	}
}

// Open opens the network of s (Shipped where Model is "") and sets its
// search up. For one game at a time (env.Games 0) the evaluator batches
// up to Search.Batch positions with env.Cache; for a match, up to 64, a
// forward-pass goroutine per core for a timed player (each game its own,
// as each classic player's game has its own goroutine), and each search
// thread (or the one thread of a CPU-timed player) runs its own forward
// passes (infer.Direct).
func (s Spec) Open(env Env) (*Network, error) {
	if !s.IsNetwork() {
		return nil, fmt.Errorf("player %s is not a network", s)
	}
	if err := s.Search.Check(); err != nil {
		return nil, fmt.Errorf("player %s: %w", s, err)
	}
	n := &Network{Options: s.Search.Options(), Limits: s.Search.Limits()}
	if s.Search.Tables != "" {
		t, err := OpenTables(s.Search.Tables, env.Log)
		if err != nil {
			return nil, fmt.Errorf("--tb: %w", err)
		}
		n.Options.Oracle = tb.Oracle{T: t}
		n.Options.Solver = true // the tables' proofs go up the tree
	}
	backend := s.Backend
	if backend == "" {
		backend = env.Backend
	}
	switch s.Model {
	case Random:
		n.Evaluator, n.Name = engine.Uniform{}, "uniform evaluator"
	default:
		name := s.Model
		if name == "" || name == Shipped {
			name = Shipped
		}
		ck := s.Checkpoint
		if ck == nil {
			var err error
			if ck, err = LoadModel(name); err != nil {
				return nil, err
			}
		}
		o := infer.EvaluatorOptions{MaxBatch: max(s.Search.Batch, 1), CacheSize: env.Cache, Backend: backend}
		timed := s.Search.Time > 0
		if env.Games > 0 {
			o.MaxBatch = max(matchBatch, o.MaxBatch)
			if timed {
				o.Workers = runtime.NumCPU()
			}
		}
		ev, err := infer.OpenEvaluator(ck.Net, o)
		if err != nil {
			return nil, err
		}
		if name == Shipped {
			name = "shipped model"
		}
		n.net, n.Evaluator = ev, ev
		n.Name = fmt.Sprintf("%s (%s, step %d, backend %s)", name, ck.Net.Config, ck.Step, ev.Backend())
		if env.Games > 0 {
			if env.Log != nil {
				fmt.Fprintf(env.Log, "%s: network backend %s (%s)\n", s, ev.Backend(), infer.ExplainBackend(backend))
			}
			if s.Search.Threads > 1 || timed && env.CPUClock {
				n.Evaluator = ev.Direct() // each thread's, or a CPU-timed move's, forward passes on its goroutine
			}
		}
	}
	ev, _, err := s.Search.Hybrids.Apply(&n.Options, n.Evaluator)
	if err != nil {
		n.Close()
		return nil, fmt.Errorf("player %s: %w", s, err)
	}
	n.Evaluator = ev
	return n, nil
}

// Player returns s as a player of matches: a reference player, an
// external engine (arena.HubPlayer, its log in a file named on env.Log),
// or its network (Open, with env.Games at least 1) searched by an
// arena.MCTSPlayer, timed in CPU time with env.CPUClock; the Close of a
// network or an engine releases it.
func (s Spec) Player(env Env) (arena.Player, error) {
	if s.IsHub() {
		return s.openHub(env)
	}
	if strings.HasPrefix(s.Ref, checkerboard.PlayerPrefix) {
		return checkerboard.ParsePlayer(s.Ref)
	}
	if !s.IsNetwork() {
		p, err := arena.ParsePlayer(s.Ref)
		if err != nil {
			return nil, err
		}
		if env.CPUClock {
			return arena.WithCPUTime(p)
		}
		return p, nil
	}
	env.Games = max(env.Games, 1)
	n, err := s.Open(env)
	if err != nil {
		return nil, err
	}
	p := &networkPlayer{
		MCTSPlayer: &arena.MCTSPlayer{Label: s.String(), Evaluator: n.Evaluator, Visits: s.Search.Visits, Time: s.Search.Time, Options: n.Options},
		net:        n,
	}
	if env.CPUClock && s.Search.Time > 0 {
		if _, err := arena.WithCPUTime(p.MCTSPlayer); err != nil {
			n.Close()
			return nil, fmt.Errorf("player %s: %w", s, err)
		}
	}
	return p, nil
}

// networkPlayer is a network player of matches that owns its network.
type networkPlayer struct {
	*arena.MCTSPlayer
	net *Network
}

// NewPlayer parses spec (Parse) and returns its player for the games of
// env (Spec.Player).
func NewPlayer(spec string, env Env) (arena.Player, error) {
	s, err := Parse(spec, env)
	if err != nil {
		return nil, err
	}
	return s.Player(env)
}

// Close releases the network.
func (p *networkPlayer) Close() error {
	p.net.Close()
	return nil
}

// LoadModel loads the checkpoint that path stands for: the shipped model
// (Shipped), a checkpoint file, a run folder (its best model) or a run
// folder's best file.
func LoadModel(path string) (*model.Checkpoint, error) {
	if path == Shipped {
		ck, err := checkpoints.Shipped()
		if err != nil {
			return nil, fmt.Errorf("%w (a checkpoint file or a run folder)", err)
		}
		return ck, nil
	}
	p, err := runfolder.ResolveModel(path)
	if err != nil {
		return nil, err
	}
	return model.Load(p)
}

// OpenTables opens (once per process: players sharing a folder share its
// memory) and checks the endgame tables that name stands for: a folder,
// or "auto:N" (N in 2..MaxAutoTables) for those of the user's cache
// folder, generated there first where missing (a line on log says what
// it found or made).
func OpenTables(name string, log io.Writer) (*tb.Tables, error) {
	n, ok := configs.ParseAutoTables(name, MaxAutoTables)
	switch {
	case !ok:
		return tb.Shared(name)
	case n == 0:
		return nil, fmt.Errorf("%q: want a folder or %sN with N in 2..%d", name, configs.AutoTablesPrefix, MaxAutoTables)
	}
	if log == nil {
		log = io.Discard
	}
	return tb.SharedCache(n, log)
}
