package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"

	"dama/broker"
	"dama/engine"
	"dama/mcts"
	"dama/model"
	"dama/model/infer"
	"dama/player"
	"dama/runfolder"
	"dama/selfplay"
	"dama/train"
)

func init() {
	var o selfplayOptions
	var bf *broker.Flags
	register(&command{
		name:      "selfplay",
		summary:   "play games of a model against itself and write them as training data",
		usage:     "--model CKPT|random --games N --out DIR [--config FILE] [--parallel N] [--visits N] [--seed N] [--chunk-pdn]\n       dama selfplay worker --run DIR [--games N] [--worker NAME] [--seed N] [--chunk N]\n       dama selfplay worker --broker URL --credential FILE [--worker NAME] [--token-file FILE|--creds FILE] [--tls-ca FILE] [--games N] [--seed N] [--chunk N]",
		takesArgs: true,
		flags:     func(fs *flagSet) { bf = selfplayFlags(fs, &o) },
		run:       func(e *env, fs *flag.FlagSet, args []string) error { return runSelfplay(e, fs, args, o, bf) },
	})
}

type selfplayOptions struct {
	model, out, config, worker string
	run                        string
	games, parallel, visits    int
	first, chunk, batch, cache int
	backend                    string
	seed                       uint64
	pdn, quiet, wait           bool
}

// selfplayFlags declares the flags of dama selfplay on fs, into o, and
// returns its broker's.
func selfplayFlags(fs *flagSet, o *selfplayOptions) *broker.Flags {
	*o = selfplayOptions{}
	fs.StringVar(&o.model, "model", "", `checkpoint file of the model, a run folder (its best model), or "random" (uniform priors, every position a draw)`)
	fs.IntVar(&o.games, "games", 0, "number of games to play")
	fs.StringVar(&o.out, "out", "", "folder for the game chunks (created if needed)")
	fs.StringVar(&o.run, "run", "", "worker: the training run folder whose best model the worker follows and whose games it adds to (--games 0: until interrupted)")
	fs.StringVar(&o.config, "config", "", "run configuration (a YAML file or a preset, as for dama train) whose selfplay section and run.seed set the games")
	fs.IntVar(&o.parallel, "parallel", 0, "games played at once (default 32; overrides the config file)")
	fs.IntVar(&o.visits, "visits", 0, "visits of a full search (default 200; overrides the config file)")
	fs.Uint64Var(&o.seed, "seed", 0, "base seed of the games (overrides the config file; workers sharing a folder need different seeds)")
	fs.BoolVar(&o.pdn, "chunk-pdn", false, "also write each chunk as a PDN file beside it")
	fs.IntVar(&o.first, "first", 0, "index of the first game (its seed is derived from the base seed and the index)")
	fs.IntVar(&o.chunk, "chunk", 100, "games per chunk file")
	fs.StringVar(&o.worker, "worker", "", "worker name in the chunk file names (default HOST-PID)")
	fs.IntVar(&o.batch, "eval-batch", 0, "most positions per network forward pass (default: games at once times leaves in flight)")
	fs.IntVar(&o.cache, "cache", 1<<16, "evaluations kept in the model's cache (0: none)")
	fs.StringVar(&o.backend, "backend", "", player.Help("backend")+" (default auto; with --model only: a run worker uses the run's selfplay.backend)")
	fs.BoolVar(&o.quiet, "quiet", false, "no progress bar; a worker: no line per chunk, errors and model changes still shown")
	fs.BoolVar(&o.wait, "wait", false, "worker --run: wait for a run folder that the trainer has not started yet (default: refuse it)")
	limit(fs, "games", 0, 1e9, "0: with --run, until interrupted")
	limit(fs, "parallel", 0, 4096, "0: the config's or 32")
	limit(fs, "visits", 0, 1e7, "0: the config's or 200")
	limit(fs, "first", 0, 1e12, "")
	limit(fs, "chunk", 1, 1e6, "")
	limit(fs, "eval-batch", 0, 65536, "0: games at once times leaves in flight")
	limit(fs, "cache", 0, 1<<30, "0: none")
	bf := broker.AddFlags(fs.FlagSet, false)
	fs.renamed("pdn", "chunk-pdn")    // --pdn FILE is a PDN file to write elsewhere
	fs.renamed("batch", "eval-batch") // --batch is the leaves a search step evaluates elsewhere
	return bf
}

// runSelfplay plays the games of a model (no verb), or works for a
// training run (worker: --run DIR or --broker URL).
func runSelfplay(e *env, fs *flag.FlagSet, args []string, o selfplayOptions, bf *broker.Flags) error {
	verb, rest := verbOf(args, "worker")
	if len(rest) > 0 {
		return fmt.Errorf("unexpected argument %q (the verb is worker, before or after the flags)", rest[0])
	}
	switch {
	case verb == "" && o.run != "":
		sayOld(e.stderr, "selfplay --run DIR", "selfplay worker --run DIR")
		verb = "worker"
	case verb == "" && bf.URL != "":
		sayOld(e.stderr, "selfplay --broker URL", "selfplay worker --broker URL")
		verb = "worker"
	case verb == "worker" && o.run == "" && bf.URL == "":
		return errors.New("selfplay worker needs --run DIR (a run folder) or --broker URL")
	}
	if _, err := infer.ResolveBackend(o.backend); err != nil {
		return fmt.Errorf("--backend: %w", err)
	}
	if o.chunk < 1 {
		return fmt.Errorf("--chunk %d: want at least 1 game per chunk file", o.chunk)
	}
	if bf.URL != "" {
		if o.run != "" {
			return errors.New("--run and --broker do not go together: a worker follows a run folder or a broker")
		}
		return runSelfplayBrokerWorker(e, fs, o, bf)
	}
	if bad := givenOf(fs, broker.ClientFlags...); bad != "" {
		return fmt.Errorf("--%s goes with --broker", bad)
	}
	if o.run != "" && o.backend != "" {
		return errors.New("--backend goes with --model: a run worker uses the run's selfplay.backend")
	}
	if o.run != "" {
		return runSelfplayWorker(e, fs, o)
	}
	switch {
	case o.model == "":
		return errors.New(`--model is required (a checkpoint file, or "random")`)
	case o.out == "":
		return errors.New("--out is required")
	case o.games < 1:
		return fmt.Errorf("--games %d: want at least 1", o.games)
	case o.first < 0:
		return fmt.Errorf("--first %d: must not be negative", o.first)
	}
	var seed *uint64
	if isFlagSet(fs, "seed") {
		seed = &o.seed
	}
	cfg, err := selfplay.Settings(o.config, o.parallel, o.visits, seed)
	if err != nil {
		return err
	}

	h := selfplay.Header{Model: o.model, ConfigDigest: cfg.Digest()}
	var ev mcts.Evaluator = engine.Uniform{} // "random"
	if o.model != "random" {
		path, err := runfolder.ResolveModel(o.model)
		if err != nil {
			return err
		}
		o.model = path
		data, err := os.ReadFile(o.model)
		if err != nil {
			return err
		}
		h.ModelDigest = selfplay.ModelDigest(data)
		ck, err := model.Load(o.model)
		if err != nil {
			return err
		}
		batch := o.batch
		if batch <= 0 {
			batch = cfg.Parallel * cfg.LeavesInFlight
		}
		mev, err := infer.OpenEvaluator(ck.Net, infer.EvaluatorOptions{MaxBatch: batch, CacheSize: o.cache, Backend: o.backend})
		if err != nil {
			return err
		}
		defer mev.Close()
		fmt.Fprintf(e.stderr, "selfplay: network backend %s (%s)\n", mev.Backend(), infer.ExplainBackend(o.backend))
		ev = mev
	}
	fo := selfplay.FolderOptions{Dir: o.out, Worker: o.worker, PerChunk: o.chunk, PDN: o.pdn, Header: h, First: o.first, Games: o.games, Progress: barWriter(e, o.quiet)}
	ctx, stop := e.interrupt()
	defer stop()
	sum, err := selfplay.WriteFolder(ctx, ev, cfg, fo)
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, sum)
	return nil
}

// workerSettings checks the flags of a worker (--run or --broker, named in
// mode) and returns its name, seed, games per chunk and log.
func workerSettings(e *env, fs *flag.FlagSet, o selfplayOptions, mode string) (worker string, seed uint64, chunk int, log io.Writer, err error) {
	if bad := givenOf(fs, "model", "out", "config", "parallel", "visits", "pdn", "first", "batch", "cache"); bad != "" {
		return "", 0, 0, nil, fmt.Errorf("--%s does not go with --%s: a worker takes its settings and model from the run", bad, mode)
	}
	if o.games < 0 {
		return "", 0, 0, nil, fmt.Errorf("--games %d: must not be negative", o.games)
	}
	worker = o.worker
	if worker == "" {
		worker = selfplay.DefaultWorkerName()
	}
	seed = o.seed
	if seed == 0 {
		seed = selfplay.WorkerSeed(worker)
	}
	// Every line carries the time and the worker's name; --quiet hides
	// only the progress lines.
	log = selfplay.StampedLog(e.stdout, nil)
	chunk = o.chunk
	if !isFlagSet(fs, "chunk") {
		chunk = 16
	}
	return worker, seed, chunk, log, nil
}

// runSelfplayWorker is dama selfplay worker --run: a worker of a training run.
func runSelfplayWorker(e *env, fs *flag.FlagSet, o selfplayOptions) error {
	worker, seed, chunk, log, err := workerSettings(e, fs, o, "run")
	if err != nil {
		return err
	}
	ctx, stop := e.terminate()
	defer stop()
	return train.Worker(ctx, train.WorkerOptions{Dir: o.run, Name: worker, Games: o.games, PerChunk: chunk, Seed: seed, Log: log, Quiet: o.quiet, Wait: o.wait})
}

// runSelfplayBrokerWorker is dama selfplay worker --broker: a worker of a training
// run that reaches it only through the broker.
func runSelfplayBrokerWorker(e *env, fs *flag.FlagSet, o selfplayOptions, bf *broker.Flags) error {
	wo, err := bf.Worker(o.worker)
	if err != nil {
		return err
	}
	o.worker = wo.Name
	if wo.Name, wo.Seed, wo.PerChunk, wo.Log, err = workerSettings(e, fs, o, "broker"); err != nil {
		return err
	}
	wo.Games, wo.Quiet = o.games, o.quiet
	ctx, stop := e.terminate()
	defer stop()
	return broker.Work(ctx, wo)
}

// isFlagSet reports whether the flag name was given on the command line.
func isFlagSet(fs *flag.FlagSet, name string) bool { return givenOf(fs, name) != "" }

// givenOf returns the last of the flags names that the command line gave,
// "" for none.
func givenOf(fs *flag.FlagSet, names ...string) string {
	given := ""
	fs.Visit(func(f *flag.Flag) {
		if slices.Contains(names, f.Name) {
			given = f.Name
		}
	})
	return given
}
