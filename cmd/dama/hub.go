package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"dama/configs"
	"dama/engine"
	"dama/mcts"
	"dama/model"
	"dama/model/infer"
)

// engineStdin is where the interactive commands (hub, play) read; tests
// replace it.
var engineStdin io.Reader = os.Stdin

// engineFlags are the flags shared by hub, play and analyze.
type engineFlags struct {
	model    *string
	visits   *int
	seconds  *float64
	parallel *int
	threads  *int
	cache    *int
	treeMB   *int
	backend  *string
	pass     *bool // mcts.Options.PassForced
	tables   *string
	hybrids  *string
	ptemp    *float64 // mcts.Options.PolicyTemperature
}

// addEngineFlags declares the engine flags on fs; hub says whether they
// serve the Hub engine, where --visits and --time apply only when the GUI
// sets no level.
func addEngineFlags(fs *flag.FlagSet, visits int, hub bool) *engineFlags {
	play := engine.SearchDefaults()
	when := ""
	if hub {
		when = "; used when the GUI sets no level"
	}
	defer func() {
		limit(fs, "visits", 0, 1e9, "0: no visit limit")
		limit(fs, "time", 0, 1e6, "0: no time limit")
		limit(fs, "parallel", 1, 256, "")
		limit(fs, "threads", 1, engine.MaxThreads, "")
		limit(fs, "cache", 0, 1<<30, "0: none")
		limit(fs, "tree-mb", engine.MinTreeMB, engine.MaxTreeMB, "")
		limit(fs, "policy-temp", configs.MinPolicyTemp, configs.MaxPolicyTemp, "")
	}()
	return &engineFlags{
		model:    fs.String("model", "", `checkpoint file of the network, a run folder (its best model), "random" for a uniform evaluator (no network), or "shipped" (the default): the model shipped in the binary`),
		visits:   fs.Int("visits", visits, "MCTS visits per move (0: no visit limit; then --time must be set)"+when),
		seconds:  fs.Float64("time", 0, "seconds per move (0: no time limit)"+when),
		parallel: fs.Int("parallel", play.Parallel, "leaves evaluated together per search step of each thread (network batch size)"),
		threads:  fs.Int("threads", 1, "search threads: workers descending one tree, each with its own forward pass (one core each; more than the cores is allowed, with a warning)"+when),
		cache:    fs.Int("cache", 1<<16, "evaluations cached"),
		backend:  fs.String("backend", "auto", backendUsage()),
		pass:     fs.Bool("pass-forced", play.PassForced, passForcedUsage+"; --pass-forced=false searches as training does"),
		tables:   fs.String("tb", "", tbFlagUsage),
		hybrids:  fs.String("hybrids", defaultHybrids, hybridsUsage),
		ptemp:    fs.Float64("policy-temp", play.PolicyTemperature, "temperature of the network's priors in the search: above 1 flattens them, so that a long search looks at more moves (see docs/rating.md#tuning-the-search-for-play); an arena player's +ptX"),
		treeMB:   fs.Int("tree-mb", engine.TreeMB(0), fmt.Sprintf("memory of the search tree in MB (%d bytes a node, twice while the root moves); a full tree stops growing and the search goes on", mcts.NodeBytes)),
	}
}

// limits returns the search limits the flags ask for.
func (f *engineFlags) limits() (engine.Limits, error) {
	if *f.visits < 0 || *f.seconds < 0 {
		return engine.Limits{}, fmt.Errorf("--visits and --time must not be negative")
	}
	lim := engine.Limits{Visits: *f.visits}
	if *f.seconds > 0 {
		if *f.seconds < 0.001 {
			return engine.Limits{}, fmt.Errorf("--time %v: want 0 (no time limit) or 0.001..1000000 seconds", *f.seconds)
		}
		lim.Time = secondsDuration(*f.seconds)
	}
	if lim.Visits == 0 && lim.Time == 0 {
		return engine.Limits{}, fmt.Errorf("--visits 0 needs a --time limit")
	}
	return lim, nil
}

func (f *engineFlags) searchOptions() (mcts.Options, error) {
	if *f.parallel < 1 || *f.parallel > 256 {
		return mcts.Options{}, fmt.Errorf("--parallel %d out of range [1, 256]", *f.parallel)
	}
	if *f.treeMB < engine.MinTreeMB || *f.treeMB > engine.MaxTreeMB {
		return mcts.Options{}, fmt.Errorf("--tree-mb %d out of range [%d, %d]", *f.treeMB, engine.MinTreeMB, engine.MaxTreeMB)
	}
	warning, err := engine.CheckThreads(*f.threads)
	if err != nil {
		return mcts.Options{}, fmt.Errorf("--threads: %w", err)
	}
	if warning != "" {
		fmt.Fprintln(stderr, "warning:", warning)
	}
	o := engine.SearchDefaults()
	o.Parallel, o.Threads, o.MaxNodes, o.PassForced, o.PolicyTemperature = *f.parallel, *f.threads, engine.TreeNodes(*f.treeMB), *f.pass, *f.ptemp
	return o, nil
}

// engineSetup is what hub, play and analyze need from their flags.
type engineSetup struct {
	limits  engine.Limits
	options mcts.Options
	ev      mcts.Evaluator
	name    string // the network, for people
	close   func() // releases the evaluator
}

// setup checks the flags and opens the network.
func (f *engineFlags) setup() (*engineSetup, error) {
	lim, err := f.limits()
	if err != nil {
		return nil, err
	}
	opt, err := f.searchOptions()
	if err != nil {
		return nil, err
	}
	h, err := parseHybridsFlag(*f.hybrids)
	if err != nil {
		return nil, err
	}
	if *f.tables != "" {
		t, err := openTables(*f.tables)
		if err != nil {
			return nil, fmt.Errorf("--tb: %w", err)
		}
		withTables(&opt, t)
	}
	ev, name, closeEv, err := f.evaluator()
	if err != nil {
		return nil, err
	}
	if ev, _, err = h.apply(&opt, ev); err != nil {
		closeEv()
		return nil, err
	}
	return &engineSetup{limits: lim, options: opt, ev: ev, name: name, close: closeEv}, nil
}

// evaluator opens the network named by --model; close releases it.
func (f *engineFlags) evaluator() (ev mcts.Evaluator, name string, close func(), err error) {
	var ck *model.Checkpoint
	switch *f.model {
	case "", shippedModel:
		if ck, err = loadModel(shippedModel); err != nil {
			return nil, "", nil, fmt.Errorf(`%w, or "random"`, err)
		}
		*f.model = "shipped model"
	case "random":
		return engine.Uniform{}, "uniform evaluator", func() {}, nil
	default:
		if ck, err = loadModel(*f.model); err != nil {
			return nil, "", nil, err
		}
	}
	if *f.cache < 0 {
		return nil, "", nil, fmt.Errorf("--cache must not be negative")
	}
	// With --threads above 1 each search thread runs its own forward
	// passes (engine.NewSearcher takes the evaluator's batch view).
	e, err := infer.OpenEvaluator(ck.Net, infer.EvaluatorOptions{MaxBatch: max(*f.parallel, 1), CacheSize: *f.cache, Backend: *f.backend})
	if err != nil {
		return nil, "", nil, err
	}
	return e, fmt.Sprintf("%s (%s, step %d, backend %s)", *f.model, ck.Net.Config, ck.Step, e.Backend()), e.Close, nil
}

func init() {
	var ef *engineFlags
	register(&command{
		name:    "hub",
		summary: "run as a Hub protocol engine (the protocol of Scan) on stdin/stdout, for draughts GUIs",
		usage:   "[--model CKPT|DIR|shipped|random] [--visits N] [--time S] [--parallel N] [--threads N]",
		flags: func(fs *flag.FlagSet) {
			ef = addEngineFlags(fs, engine.DefaultVisits, true)
		},
		run: func(fs *flag.FlagSet, args []string) error {
			es, err := ef.setup() // limits: the search size when the GUI's level sets none
			if err != nil {
				return err
			}
			defer es.close()
			h := engine.NewHub(es.ev, engine.HubOptions{Visits: es.limits.Visits, Time: es.limits.Time, Search: es.options, Version: buildVersion(), Log: stderr})
			return h.Run(context.Background(), engineStdin, stdout)
		},
	})
}
