package main

import (
	"flag"
	"fmt"
	"os"

	"dama/rules"
)

func init() {
	var fen, pdn *string
	var game, ply *int
	register(&command{
		name:    "show",
		summary: "draw a position (from a FEN or a PDN game) with square numbers",
		usage:   "[--fen FEN | --pdn FILE [--game N] [--ply N]]",
		flags: func(fs *flag.FlagSet) {
			fen = fs.String("fen", "", "position in PDN FEN form (default: the start position)")
			pdn = fs.String("pdn", "", "PDN file; shows a game's final position and its moves")
			game = fs.Int("game", 1, "with --pdn: which game of the file (1 = first)")
			ply = fs.Int("ply", -1, "with --pdn: show the position after this many plies (-1 = the end)")
			limit(fs, "game", 1, 1e9, "")
			limit(fs, "ply", -1, 1e9, "-1: the end")
		},
		run: func(fs *flag.FlagSet, args []string) error {
			if len(args) > 0 {
				return fmt.Errorf("unexpected argument %q", args[0])
			}
			if *fen != "" && *pdn != "" {
				return fmt.Errorf("give --fen or --pdn, not both")
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
				fmt.Fprint(stdout, p.Diagram())
				return nil
			}
			text, err := os.ReadFile(*pdn)
			if err != nil {
				return err
			}
			games := rules.ReadPDNGames(string(text))
			failed := 0
			for _, g := range games {
				if g.Err != nil {
					failed++
				}
			}
			fmt.Fprintf(stdout, "%s: %d games: %d read, %d failed\n", *pdn, len(games), len(games)-failed, failed)
			for _, g := range games {
				if g.Err != nil {
					fmt.Fprintf(stdout, "  %v\n", g.Err)
				}
			}
			if len(games) == 0 {
				return fmt.Errorf("%s: no game in the file", *pdn)
			}
			if *game > len(games) {
				return fmt.Errorf("%s: --game %d out of range 1..%d", *pdn, *game, len(games))
			}
			rec := games[*game-1].Record
			if err := games[*game-1].Err; err != nil {
				fmt.Fprintf(stdout, "game %d stops before the bad move\n", *game)
			}
			n := len(rec.Moves)
			if *ply >= 0 {
				if *ply > n {
					return fmt.Errorf("%s: --ply %d out of range 0..%d", *pdn, *ply, n)
				}
				n = *ply
			}
			p := rec.Start
			for _, m := range rec.Moves[:n] {
				p = p.Play(m)
			}
			for _, t := range rec.Tags {
				fmt.Fprintf(stdout, "[%s %q]\n", t.Name, t.Value)
			}
			for i, m := range rec.Moves[:n] {
				if i%2 == 0 {
					fmt.Fprintf(stdout, "%d. ", i/2+1)
				}
				fmt.Fprintf(stdout, "%s ", m)
			}
			fmt.Fprintf(stdout, "\nafter %d of %d plies, result %s\n", n, len(rec.Moves), rec.Result)
			fmt.Fprint(stdout, p.Diagram())
			return nil
		},
	})
}
