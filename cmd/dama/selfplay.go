package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"

	"dama/broker"
	"dama/engine"
	"dama/mcts"
	"dama/model/infer"
	"dama/player"
	"dama/selfplay"
	"dama/train"
)

func init() {
	var o *selfplay.Flags
	var bf *broker.Flags
	register(&command{
		name:      "selfplay",
		summary:   "play games of a model against itself and write them as training data",
		usage:     "--model CKPT|random --games N --out DIR [--config FILE] [--parallel N] [--visits N] [--seed N] [--chunk-pdn]\n       dama selfplay worker --run DIR [--games N] [--worker NAME] [--seed N] [--chunk N]\n       dama selfplay worker --broker URL --credential FILE [--worker NAME] [--token-file FILE|--creds FILE] [--tls-ca FILE] [--games N] [--seed N] [--chunk N]",
		takesArgs: true,
		verbs:     []string{"worker"},
		flags:     func(fs *flagSet) { bf = selfplayFlags(fs, &o) },
		run:       func(e *env, fs *flag.FlagSet, args []string) error { return runSelfplay(e, fs, args, o, bf) },
	})
}

// selfplayFlags declares the flags of dama selfplay on fs, into o, and
// returns its broker's.
func selfplayFlags(fs *flagSet, o **selfplay.Flags) *broker.Flags {
	*o = selfplay.AddFlags(fs.FlagSet, player.Help("backend"))
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
func runSelfplay(e *env, fs *flag.FlagSet, args []string, o *selfplay.Flags, bf *broker.Flags) error {
	verb, rest := verbOf(args)
	if len(rest) > 0 {
		return fmt.Errorf("selfplay worker: unexpected argument %q (flags may come before or after the verb)", rest[0])
	}
	switch {
	case verb == "" && o.Run != "":
		sayOld(e.stderr, "selfplay --run DIR", "selfplay worker --run DIR")
		verb = "worker"
	case verb == "" && bf.URL != "":
		sayOld(e.stderr, "selfplay --broker URL", "selfplay worker --broker URL")
		verb = "worker"
	case verb == "worker" && o.Run == "" && bf.URL == "":
		return errors.New("selfplay worker needs --run DIR (a run folder) or --broker URL")
	}
	if _, err := infer.ResolveBackend(o.Backend); err != nil {
		return fmt.Errorf("--backend: %w", err)
	}
	if o.Chunk < 1 {
		return fmt.Errorf("--chunk %d: want at least 1 game per chunk file", o.Chunk)
	}
	if bf.URL != "" {
		if o.Run != "" {
			return errors.New("--run and --broker do not go together: a worker follows a run folder or a broker")
		}
		return runSelfplayBrokerWorker(e, fs, o, bf)
	}
	if bad := givenOf(fs, broker.ClientFlags...); bad != "" {
		return fmt.Errorf("--%s goes with --broker", bad)
	}
	if o.Run != "" && o.Backend != "" {
		return errors.New("--backend goes with --model: a run worker uses the run's selfplay.backend")
	}
	if o.Run != "" {
		return runSelfplayWorker(e, fs, o)
	}
	switch {
	case o.Model == "":
		return errors.New(`--model is required (a checkpoint file, or "random")`)
	case o.Out == "":
		return errors.New("--out is required")
	case o.Games < 1:
		return fmt.Errorf("--games %d: want at least 1", o.Games)
	case o.First < 0:
		return fmt.Errorf("--first %d: must not be negative", o.First)
	}
	var seed *uint64
	if isFlagSet(fs, "seed") {
		seed = &o.Seed
	}
	cfg, err := selfplay.Settings(o.Config, o.Parallel, o.Visits, seed)
	if err != nil {
		return err
	}

	h := selfplay.Header{Model: o.Model, ConfigDigest: cfg.Digest()}
	var ev mcts.Evaluator = engine.Uniform{} // "random"
	if o.Model != "random" {
		mev, digest, err := o.OpenModel(cfg)
		if err != nil {
			return err
		}
		defer mev.Close()
		h.ModelDigest = digest
		fmt.Fprintf(e.stderr, "selfplay: network backend %s (%s)\n", mev.Backend(), infer.ExplainBackend(o.Backend))
		ev = mev
	}
	fo := selfplay.FolderOptions{Dir: o.Out, Worker: o.Worker, PerChunk: o.Chunk, PDN: o.ChunkPDN, Header: h, First: o.First, Games: o.Games, Progress: barWriter(e, o.Quiet)}
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
func workerSettings(e *env, fs *flag.FlagSet, o *selfplay.Flags, mode string) (worker string, seed uint64, chunk int, log io.Writer, err error) {
	if bad := givenOf(fs, "model", "out", "config", "parallel", "visits", "pdn", "first", "batch", "cache"); bad != "" {
		return "", 0, 0, nil, fmt.Errorf("--%s does not go with --%s: a worker takes its settings and model from the run", bad, mode)
	}
	if o.Games < 0 {
		return "", 0, 0, nil, fmt.Errorf("--games %d: must not be negative", o.Games)
	}
	worker = o.Worker
	if worker == "" {
		worker = selfplay.DefaultWorkerName()
	}
	seed = o.Seed
	if seed == 0 {
		seed = selfplay.WorkerSeed(worker)
	}
	// Every line carries the time and the worker's name; --quiet hides
	// only the progress lines.
	log = selfplay.StampedLog(e.stdout, nil)
	chunk = o.Chunk
	if !isFlagSet(fs, "chunk") {
		chunk = 16
	}
	return worker, seed, chunk, log, nil
}

// runSelfplayWorker is dama selfplay worker --run: a worker of a training run.
func runSelfplayWorker(e *env, fs *flag.FlagSet, o *selfplay.Flags) error {
	worker, seed, chunk, log, err := workerSettings(e, fs, o, "run")
	if err != nil {
		return err
	}
	ctx, stop := e.terminate()
	defer stop()
	return train.Worker(ctx, train.WorkerOptions{Dir: o.Run, Name: worker, Games: o.Games, PerChunk: chunk, Seed: seed, Log: log, Quiet: o.Quiet, Wait: o.Wait})
}

// runSelfplayBrokerWorker is dama selfplay worker --broker: a worker of a training
// run that reaches it only through the broker.
func runSelfplayBrokerWorker(e *env, fs *flag.FlagSet, o *selfplay.Flags, bf *broker.Flags) error {
	wo, err := bf.Worker(o.Worker)
	if err != nil {
		return err
	}
	o.Worker = wo.Name
	if wo.Name, wo.Seed, wo.PerChunk, wo.Log, err = workerSettings(e, fs, o, "broker"); err != nil {
		return err
	}
	wo.Games, wo.Quiet = o.Games, o.Quiet
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
