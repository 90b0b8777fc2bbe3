package selfplay

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"dama/configs"
	"dama/internal/progress"
	"dama/mcts"
	"dama/model"
	"dama/model/infer"
	"dama/runfolder"
)

// Flags are the flags of dama selfplay (AddFlags): the games of a model
// written to a folder, or a worker of a training run (Run).
type Flags struct {
	Model, Out, Run, Config, Worker, Backend string
	Games, Parallel, Visits, First, Chunk    int
	EvalBatch, Cache                         int
	Seed                                     uint64
	ChunkPDN, Quiet, Wait                    bool
}

// AddFlags declares the flags of dama selfplay on fs; backendHelp is what
// --backend means.
func AddFlags(fs *flag.FlagSet, backendHelp string) *Flags {
	f := &Flags{}
	fs.StringVar(&f.Model, "model", "", `checkpoint file of the model, a run folder (its best model), or "random" (uniform priors, every position a draw)`)
	fs.IntVar(&f.Games, "games", 0, "number of games to play")
	fs.StringVar(&f.Out, "out", "", "folder for the game chunks (created if needed)")
	fs.StringVar(&f.Run, "run", "", "worker: the training run folder whose best model the worker follows and whose games it adds to (--games 0: until interrupted)")
	fs.StringVar(&f.Config, "config", "", "run configuration (a YAML file or a preset, as for dama train) whose selfplay section and run.seed set the games")
	fs.IntVar(&f.Parallel, "parallel", 0, "games played at once (default 32; overrides the config file)")
	fs.IntVar(&f.Visits, "visits", 0, "visits of a full search (default 200; overrides the config file)")
	fs.Uint64Var(&f.Seed, "seed", 0, "base seed of the games (overrides the config file; workers sharing a folder need different seeds)")
	fs.BoolVar(&f.ChunkPDN, "chunk-pdn", false, "also write each chunk as a PDN file beside it")
	fs.IntVar(&f.First, "first", 0, "index of the first game (its seed is derived from the base seed and the index)")
	fs.IntVar(&f.Chunk, "chunk", 100, "games per chunk file")
	fs.StringVar(&f.Worker, "worker", "", "worker name in the chunk file names (default HOST-PID)")
	fs.IntVar(&f.EvalBatch, "eval-batch", 0, "most positions per network forward pass (default: games at once times leaves in flight)")
	fs.IntVar(&f.Cache, "cache", 1<<16, "evaluations kept in the model's cache (0: none)")
	fs.StringVar(&f.Backend, "backend", "", backendHelp+" (default auto; with --model only: a run worker uses the run's selfplay.backend)")
	fs.BoolVar(&f.Quiet, "quiet", false, "no progress bar; a worker: no line per chunk, errors and model changes still shown")
	fs.BoolVar(&f.Wait, "wait", false, "worker --run: wait for a run folder that the trainer has not started yet (default: refuse it)")
	return f
}

// OpenModel opens the network of --model (a checkpoint file, or a run
// folder's best: runfolder.ResolveModel) for the games of cfg: forward
// passes of at most --eval-batch positions (default: the games at once
// times the leaves in flight), --cache evaluations cached, on --backend.
// It returns the digest of the checkpoint's bytes (ModelDigest) for the
// chunks' header.
func (f *Flags) OpenModel(cfg Config) (*infer.Evaluator, string, error) {
	path, err := runfolder.ResolveModel(f.Model)
	if err != nil {
		return nil, "", err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, "", err
	}
	ck, err := model.Load(path)
	if err != nil {
		return nil, "", err
	}
	batch := f.EvalBatch
	if batch <= 0 {
		batch = cfg.Parallel * cfg.LeavesInFlight
	}
	ev, err := infer.OpenEvaluator(ck.Net, infer.EvaluatorOptions{MaxBatch: batch, CacheSize: f.Cache, Backend: f.Backend})
	return ev, ModelDigest(data), err
}

// Settings returns the self-play settings of a run configuration: the
// selfplay section of config (a YAML file or a preset, loaded and
// validated by configs.Load as a trainer loads it; "" for the documented
// defaults) and its run.seed as the base seed, with parallel and visits
// over it where above 0 and seed where not nil, checked as Validate
// checks them.
func Settings(config string, parallel, visits int, seed *uint64) (Config, error) {
	cfg := configs.Default()
	base := uint64(0)
	if config != "" {
		c, err := configs.Load(config, nil, nil)
		if err != nil {
			return Config{}, fmt.Errorf("--config %s: %w", config, err)
		}
		if c.Run.Seed < 0 {
			return Config{}, fmt.Errorf("--config %s: run.seed %d must not be negative for self-play", config, c.Run.Seed)
		}
		cfg, base = *c, uint64(c.Run.Seed)
	}
	if parallel > 0 {
		cfg.SelfPlay.Parallel = parallel
	}
	if visits > 0 {
		cfg.SelfPlay.Visits = visits
	}
	if seed != nil {
		base = *seed
	}
	// The section with the overrides, as self-play checks it (its ranges
	// and selfplay.hybrids, which configs leaves to selfplay).
	sc := Config{SelfPlay: cfg.SelfPlay, Seed: base}
	if err := sc.Validate(); err != nil {
		return Config{}, err
	}
	return sc, nil
}

// FolderOptions say which games WriteFolder plays and where it writes
// them.
type FolderOptions struct {
	Dir      string // the folder of the chunks, created if needed
	Worker   string // the worker's name in the files' names ("": DefaultWorkerName)
	PerChunk int    // games per chunk file
	PDN      bool   // also write each chunk as PDN beside it
	Header   Header // the chunks' header
	// First is the index of the first game, Games how many to play.
	First, Games int
	Progress     io.Writer // where the progress bar goes; nil: none
}

// FolderSummary is what WriteFolder played and wrote.
type FolderSummary struct {
	Stats
	Dir            string
	Written, Files int // games and chunk files written
	Elapsed        time.Duration
	Interrupted    bool
}

// String is the summary in one line.
func (s FolderSummary) String() string {
	note := ""
	if s.Interrupted {
		note = " (interrupted)"
	}
	return fmt.Sprintf("selfplay%s: %d games in %d files in %s, %s; %d positions, mean %.1f plies, %.0f positions/s, %.0f games/h, %.1fs",
		note, s.Written, s.Files, s.Dir, s.Summary(), s.Positions, s.MeanLength(),
		float64(s.Positions)/s.Elapsed.Seconds(), float64(s.Games)/s.Elapsed.Hours(), s.Elapsed.Seconds())
}

// WriteFolder plays o.Games games of ev under cfg (Run) and writes them
// to o.Dir in chunks. The end of ctx stops it: the whole games played by
// then are written and the summary says it was interrupted. A game that
// fails is the error, after the games already played are written.
func WriteFolder(ctx context.Context, ev mcts.Evaluator, cfg Config, o FolderOptions) (FolderSummary, error) {
	sum := FolderSummary{Dir: o.Dir}
	if o.Worker == "" {
		o.Worker = DefaultWorkerName()
	}
	cw, err := NewChunkWriter(o.Dir, o.Worker, o.PerChunk, o.Header, o.PDN)
	if err != nil {
		return sum, err
	}
	bar := progress.New(o.Progress, o.Games, "selfplay")
	start := time.Now()
	runErr := Run(ctx, ev, cfg, o.First, o.Games, func(g *Game) error {
		sum.Add(g)
		el := time.Since(start).Seconds()
		bar.Describe(fmt.Sprintf("selfplay: %.0f pos/s, mean %.0f plies, W/D/L %s", float64(sum.Positions)/el, sum.MeanLength(), sum.Shares()))
		bar.Add(1)
		return cw.Add(g)
	})
	bar.Finish()
	sum.Interrupted = runErr != nil && errors.Is(runErr, context.Canceled) && ctx.Err() != nil
	// The whole games already played are kept even when the run failed.
	flushErr := cw.Flush()
	switch {
	case runErr != nil && !sum.Interrupted:
		return sum, errors.Join(runErr, flushErr)
	case flushErr != nil:
		return sum, flushErr
	}
	sum.Written, sum.Files, sum.Elapsed = cw.Written(), len(cw.Files()), time.Since(start)
	return sum, nil
}
