package main

import (
	"context"
	"flag"
	"fmt"

	"dama/engine"
	"dama/rules"
)

func init() {
	var ef *engineFlags
	var fen func() (rules.Position, error)
	var top *int
	register(&command{
		name:    "analyze",
		summary: "show the network's value and top moves for a position, and the search's principal variation",
		usage:   "[--model CKPT|DIR|shipped|random] [--fen FEN] [--visits N] [--top N]",
		flags: func(fs *flag.FlagSet) {
			ef = addEngineFlags(fs, engine.DefaultVisits, false)
			fen = fenFlag(fs, "position in PDN FEN form")
			top = fs.Int("top", 10, "moves listed (0: all)")
			limit(fs, "top", 0, 1000, "0: all")
		},
		run: func(fs *flag.FlagSet, args []string) error {
			p, err := fen()
			if err != nil {
				return err
			}
			es, err := ef.setup()
			if err != nil {
				return err
			}
			defer es.close()
			a, err := engine.Analyze(context.Background(), es.ev, rules.NewGame(p), es.limits, es.options)
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "Network: %s\n", es.name)
			fmt.Fprintf(stdout, "%s\n", p.Diagram())
			return a.Write(stdout, *top)
		},
	})
}
