package main

import (
	"flag"
	"fmt"

	"dama/rules"
)

func init() {
	var fen *string
	register(&command{
		name:    "moves",
		summary: "list the legal moves of a position in full FID notation",
		usage:   "[--fen FEN]",
		flags: func(fs *flag.FlagSet) {
			fen = fs.String("fen", rules.StartFEN, "position in PDN FEN form")
		},
		run: func(fs *flag.FlagSet, args []string) error {
			if len(args) > 0 {
				return fmt.Errorf("unexpected argument %q", args[0])
			}
			p, err := rules.ParseFEN(*fen)
			if err != nil {
				return err
			}
			for _, m := range p.Legal(nil) {
				fmt.Fprintln(stdout, m)
			}
			return nil
		},
	})
}
