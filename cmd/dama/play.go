package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"

	"dama/engine"
	"dama/internal/atomicfile"
	"dama/rules"
)

func init() {
	var ef engineFlags
	var as, pdn *string
	var fen func() (rules.Position, error)
	register(&command{
		name:    "play",
		summary: "play a game against the network in the terminal (moves in FID notation)",
		usage:   "[--model CKPT|DIR|shipped|random] [--as white|black] [--visits N] [--time TIME] [--fen FEN] [--pdn FILE]",
		flags: func(fs *flagSet) {
			ef = addEngineFlags(fs, false)
			as = fs.String("as", "white", "the side you play: white or black")
			fen = fenFlag(fs, "start position in PDN FEN form")
			pdn = fs.String("pdn", "", "file to save the game to as PDN (default: print it at the end)")
		},
		run: func(e *env, fs *flag.FlagSet, args []string) error {
			var human rules.Color
			switch *as {
			case "white", "w":
				human = rules.White
			case "black", "b":
				human = rules.Black
			default:
				return fmt.Errorf("--as %q: want white or black", *as)
			}
			start, err := fen()
			if err != nil {
				return err
			}
			n, err := ef.setup(e)
			if err != nil {
				return err
			}
			defer n.Close()
			fmt.Fprintf(e.stdout, "dama: %s\n", n.Name)
			rec, err := engine.Play(context.Background(), n.Evaluator, e.stdin, e.stdout, engine.PlayOptions{
				Human: human, Start: &start, Limits: n.Limits, Search: n.Options,
			})
			if err != nil {
				return err
			}
			var buf bytes.Buffer
			if err := rules.WritePDN(&buf, rec); err != nil {
				return err
			}
			if *pdn == "" {
				fmt.Fprintf(e.stdout, "\n%s", buf.String())
				return nil
			}
			if err := atomicfile.WriteFile(*pdn, buf.Bytes()); err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "game saved to %s\n", *pdn)
			return nil
		},
	})
}
