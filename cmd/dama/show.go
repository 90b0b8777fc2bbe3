package main

import (
	"flag"
	"fmt"

	"dama/rules"
)

func init() {
	var fen, pdn *string
	var game, ply *int
	register(&command{
		name:      "show",
		summary:   "draw a position (from a FEN or a PDN game) with square numbers",
		usage:     "[--fen FEN | FILE.pdn [--game N] [--ply N]]",
		takesArgs: true,
		flags: func(fs *flagSet) {
			fen = fs.String("fen", "", "position in PDN FEN form (default: the start position)")
			game = fs.Int("game", 1, "with a PDN file: which game of the file (1 = first)")
			ply = fs.Int("ply", -1, "with a PDN file: show the position after this many plies (-1 = the end)")
			pdn = fs.String("pdn", "", "a PDN file to show")
			fs.oldSpelling("pdn", "show FILE.pdn") // --pdn FILE is a PDN file to write elsewhere
			limit(fs, "game", 1, 1e9, "")
			limit(fs, "ply", -1, 1e9, "-1: the end")
		},
		run: func(e *env, fs *flag.FlagSet, args []string) error {
			switch {
			case len(args) > 1 || len(args) == 1 && *pdn != "":
				return fmt.Errorf("unexpected argument %q: show takes one PDN file", args[len(args)-1])
			case len(args) == 1:
				*pdn = args[0]
			}
			if *fen != "" && *pdn != "" {
				return fmt.Errorf("give --fen or a PDN file, not both")
			}
			if *pdn == "" {
				s := *fen
				if s == "" {
					s = rules.StartFEN
				}
				p, err := rules.ParseFEN(s)
				if err != nil {
					return err
				}
				fmt.Fprint(e.stdout, p.Diagram())
				return nil
			}
			games, err := rules.ReadPDNFile(e.stdout, *pdn)
			if err != nil {
				return err
			}
			if *game > len(games) {
				return fmt.Errorf("%s: --game %d out of range 1..%d", *pdn, *game, len(games))
			}
			rec := games[*game-1].Record
			if err := games[*game-1].Err; err != nil {
				fmt.Fprintf(e.stdout, "game %d stops before the bad move\n", *game)
			}
			n := len(rec.Moves)
			if *ply >= 0 {
				if *ply > n {
					return fmt.Errorf("%s: --ply %d out of range 0..%d", *pdn, *ply, n)
				}
				n = *ply
			}
			rec.WriteAt(e.stdout, n)
			return damaged(*pdn, games)
		},
	})
}

// damaged is the error of a PDN file some of whose games could not be
// read, or that ends inside a game (readPDNFile has named each), once
// show has shown what it could: a damaged file exits non-zero (issue 49).
func damaged(path string, games []rules.PDNGame) error {
	var bad []error
	for _, g := range games {
		if err := g.Problem(); err != nil {
			bad = append(bad, err)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return fmt.Errorf("%s: %d of its %d games could not be read whole (the first: %v)", path, len(bad), len(games), bad[0])
}
