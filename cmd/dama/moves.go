package main

import (
	"flag"
	"fmt"

	"dama/rules"
)

func init() {
	var fen func() (rules.Position, error)
	register(&command{
		name:    "moves",
		summary: "list the legal moves of a position in full FID notation",
		usage:   "[--fen FEN]",
		flags: func(fs *flagSet) {
			fen = fenFlag(fs, "position in PDN FEN form")
		},
		run: func(e *env, fs *flag.FlagSet, args []string) error {
			p, err := fen()
			if err != nil {
				return err
			}
			for _, m := range p.Legal(nil) {
				fmt.Fprintln(e.stdout, m)
			}
			return nil
		},
	})
}
