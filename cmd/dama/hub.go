package main

import (
	"context"
	"flag"

	"dama/engine"
	"dama/player"
)

// engineFlags are the player flags of hub, play and analyze: the Engine
// default's search, its network and its backend.
type engineFlags struct{ *player.Flags }

// addEngineFlags declares the engine flags on fs; hub says whether they
// serve the Hub engine, where --visits, --time and --threads apply only
// when the GUI sets no level.
func addEngineFlags(fs *flagSet, hub bool) engineFlags {
	f := player.AddFlags(fs.FlagSet, player.Engine(), "model", "visits", "time", "batch", "threads", "cache", "tree-mb", "backend", "pass-forced", "tb", "hybrids", "policy-temp")
	fs.Lookup("pass-forced").Usage += "; --pass-forced=false searches as training does"
	fs.Lookup("policy-temp").Usage += "; an arena player's +ptX"
	fs.Lookup("batch").Usage += "; an arena player's +batchN"
	if hub {
		for _, name := range []string{"visits", "time", "threads"} {
			fs.Lookup(name).Usage += "; used when the GUI sets no level"
		}
	}
	fs.renamed("parallel", "batch") // --parallel is games at once elsewhere
	for _, r := range f.Ranges() {
		limit(fs, r.Flag, r.Lo, r.Hi, r.Note)
	}
	return engineFlags{f}
}

// setup reads the flags and opens the network.
func (f engineFlags) setup(e *env) (*player.Network, error) {
	spec, err := f.Spec(e.stderr)
	if err != nil {
		return nil, err
	}
	env, err := f.Env(0, e.stderr)
	if err != nil {
		return nil, err
	}
	return spec.Open(env)
}

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
