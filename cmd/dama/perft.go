package main

import (
	"flag"
	"fmt"
	"time"

	"dama/rules"
)

func init() {
	var fen func() (rules.Position, error)
	var depth *int
	var divide, full *bool
	register(&command{
		name:    "perft",
		summary: "count the move sequences of each depth (checks the move generator)",
		usage:   "[--fen FEN] [--depth N] [--divide] [--full]",
		flags: func(fs *flagSet) {
			fen = fenFlag(fs, "position in PDN FEN form")
			depth = fs.Int("depth", 7, "deepest depth to count (1..20)")
			limit(fs, "depth", 1, 20, "")
			divide = fs.Bool("divide", false, "print the count under each root move at the deepest depth")
			full = fs.Bool("full", false, "play every move of the last ply instead of counting them (slower)")
		},
		run: func(e *env, fs *flag.FlagSet, args []string) error {
			p, err := fen()
			if err != nil {
				return err
			}
			if *divide {
				moves, counts := rules.Divide(p, *depth)
				var sum uint64
				for i, m := range moves {
					fmt.Fprintf(e.stdout, "%s %d\n", m, counts[i])
					sum += counts[i]
				}
				fmt.Fprintf(e.stdout, "moves %d nodes %d\n", len(moves), sum)
				return nil
			}
			count := rules.PerftBulk
			if *full {
				count = rules.Perft
			}
			for d := 1; d <= *depth; d++ {
				start := time.Now()
				n := count(p, d)
				el := time.Since(start)
				fmt.Fprintf(e.stdout, "%d %d %.3fs %.1f Mnodes/s\n", d, n, el.Seconds(), float64(n)/el.Seconds()/1e6)
			}
			return nil
		},
	})
}
