package main

import (
	"context"
	"flag"
	"fmt"

	"dama/engine"
	"dama/rules"
)

func init() {
	var ef engineFlags
	var fen func() (rules.Position, error)
	var top *int
	register(&command{
		name:    "analyze",
		summary: "show the network's value and top moves for a position, and the search's principal variation",
		usage:   "[--model CKPT|DIR|shipped|random] [--fen FEN] [--visits N] [--time TIME] [--top N]",
		flags: func(fs *flagSet) {
			ef = addEngineFlags(fs, false)
			fen = fenFlag(fs, "position in PDN FEN form")
			top = fs.Int("top", 10, "moves listed (0: all)")
			limit(fs, "top", 0, 1000, "0: all")
		},
		run: func(e *env, fs *flag.FlagSet, args []string) error {
			p, err := fen()
			if err != nil {
				return err
			}
			n, err := ef.setup(e)
			if err != nil {
				return err
			}
			defer n.Close()
			a, err := engine.Analyze(context.Background(), n.Evaluator, rules.NewGame(p), n.Limits, n.Options)
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "Network: %s\n", n.Name)
			fmt.Fprintf(e.stdout, "%s\n", p.Diagram())
			return a.Write(e.stdout, *top)
		},
	})
}
