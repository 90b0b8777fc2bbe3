package main

import (
	"context"
	"flag"

	"dama/engine"
	"dama/player"
)

// engineFlags are the player flags of hub, play and analyze
// (player.AddEngineFlags).
type engineFlags struct{ *player.Flags }

// addEngineFlags declares the engine flags on fs, for the Hub engine with
// hub.
func addEngineFlags(fs *flagSet, hub bool) engineFlags {
	f := player.AddEngineFlags(fs.FlagSet, hub)
	fs.renamed("parallel", "batch") // --parallel is games at once elsewhere
	limitPlayer(fs, f)
	return engineFlags{f}
}

// setup reads the flags and opens the network.
func (f engineFlags) setup(e *env) (*player.Network, error) { return f.Open(e.stderr) }

func init() {
	var ef engineFlags
	register(&command{
		name:    "hub",
		summary: "run as a Hub protocol engine (the protocol of Scan) on stdin/stdout, for draughts GUIs",
		usage:   "[--model CKPT|DIR|shipped|random] [--visits N] [--time TIME] [--batch N] [--threads N]",
		flags: func(fs *flagSet) {
			ef = addEngineFlags(fs, true)
		},
		run: func(e *env, fs *flag.FlagSet, args []string) error {
			n, err := ef.setup(e) // limits: the search size when the GUI's level sets none
			if err != nil {
				return err
			}
			defer n.Close()
			h := engine.NewHub(n.Evaluator, engine.HubOptions{Visits: n.Limits.Visits, Time: n.Limits.Time, Search: n.Options, Version: buildVersion(), Log: e.stderr})
			return h.Run(context.Background(), e.stdin, e.stdout)
		},
	})
}
