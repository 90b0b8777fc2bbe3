package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"dama/broker"
	"dama/internal/timeflag"
	"dama/runfolder"
	"dama/train"
	"dama/web"
)

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

func init() {
	var config, runDir, initFrom *string
	var workers *int
	var sets, allow multiFlag
	var quiet *bool
	var maxCPU *time.Duration
	var bo *broker.Flags
	var hw *web.Flags
	register(&command{
		name:    "train",
		summary: "run the training loop: self-play, train, arena, promote (resumable)",
		usage:   "[--config FILE|quick|workstation] [--run DIR] [--init CKPT] [--max-cpu TIME] [--selfplay-workers N] [--set key=value]... [--allow-change KEY]... [--serve ADDR | --broker URL [--token-file FILE|--creds FILE]] [--tls-cert FILE --tls-key FILE] [--tls-ca FILE] [--http ADDR [--http-token-file FILE]]",
		flags: func(fs *flagSet) {
			sets, allow = nil, nil
			config = fs.String("config", "", "configuration: a YAML file or a preset name (quick, workstation); default: the run's archived config, else quick")
			runDir = fs.String("run", "", "run folder (default checkpoints/<run.name>)")
			initFrom = fs.String("init", "", "start a new run from this checkpoint (e.g. the shipped model) instead of a random network; its network must match model.*")
			workers = fs.Int("selfplay-workers", 1, "1: play self-play games in this process; 0: only train and gate on games from 'dama selfplay worker --run DIR' workers")
			fs.Var(&sets, "set", "override one configuration key, e.g. --set selfplay.visits=64 (repeatable)")
			fs.Var(&allow, "allow-change", "let a resumed run take a new value of this configuration key (repeatable, or KEY,KEY); the change and the generation it starts at are recorded in the run's "+runfolder.ChangesFile+"; model.* keys never change")
			quiet = fs.Bool("quiet", false, "no progress bars")
			maxCPU = timeflag.Duration(fs.FlagSet, "max-cpu", 0, "stop before a generation once the trainer has used this much CPU time (for A/B runs of equal CPU time); 0 = no limit")
			limit(fs, "selfplay-workers", 0, 1, "0: external workers only")
			bo = broker.AddFlags(fs.FlagSet, true)
			hw = webFlags(fs, "")
		},
		run: func(e *env, fs *flag.FlagSet, args []string) error {
			allowKeys, err := runfolder.AllowChangeKeys(allow)
			if err != nil {
				return err
			}
			if err := bo.CheckTrainer(); err != nil {
				return err
			}
			if bo.Used() && !isFlagSet(fs, "selfplay-workers") {
				*workers = 0 // with a broker the workers play
			}
			if *workers < 0 || *workers > 1 {
				return fmt.Errorf("--selfplay-workers %d: want 0 (external workers) or 1 (self-play in this process)", *workers)
			}
			// The self-play settings are checked as self-play reads them
			// (selfplay.hybrids), before a broker, a web page or the run
			// folder starts.
			cfg, dir, err := train.LoadConfig(*config, *runDir, os.Environ(), sets)
			if err != nil {
				return err
			}
			if cfg.Run.Workers > 0 {
				runtime.GOMAXPROCS(cfg.Run.Workers)
			}
			ctx, stop := e.terminate()
			defer stop()
			opt := train.Options{
				Config: cfg, Dir: dir, SelfPlay: *workers == 1,
				Revision: buildVersion(), Log: e.stdout, Init: *initFrom, MaxCPU: *maxCPU,
				AllowChange: allowKeys,
			}
			if !*quiet {
				opt.Progress = train.Bars(e.stderr)
			}
			fmt.Fprintf(e.stdout, "run %s: config %s, model %s, %d generations (0 = until interrupted)\n",
				dir, cfg.Run.Name, cfg.Model.Preset, cfg.Run.Generations)
			finished := false // the last generation is done: workers are told to stop
			if bo.Used() {
				closeBroker, err := startBroker(ctx, e, bo, dir, &opt)
				if err != nil {
					return err
				}
				defer func() { closeBroker(finished) }()
			}
			if *hw.Addr != "" {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					return err
				}
				wctx, stopWeb := context.WithCancel(ctx)
				wait, err := hw.Start(wctx, e.stdout, dir)
				if err != nil {
					stopWeb()
					return err
				}
				defer func() { stopWeb(); wait() }()
			}
			err = train.Loop(ctx, opt)
			finished = err == nil
			if errors.Is(err, context.Canceled) {
				return fmt.Errorf("interrupted; run the same command again to resume %s", dir)
			}
			if err != nil {
				return err
			}
			best, _ := (&runfolder.Run{Dir: dir}).Best()
			fmt.Fprintf(e.stdout, "done: best model %s\n", filepath.Join(dir, best))
			return nil
		},
	})
}
