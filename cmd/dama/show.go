package main

import (
	"flag"
	"fmt"
	"io"
	"os"

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
			games, err := readPDNFile(e.stdout, *pdn)
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
			p := rec.Start
			for _, m := range rec.Moves[:n] {
				p = p.Play(m)
			}
			for _, t := range rec.Tags {
				fmt.Fprintf(e.stdout, "[%s %q]\n", t.Name, t.Value)
			}
			for i, m := range rec.Moves[:n] {
				if i%2 == 0 {
					fmt.Fprintf(e.stdout, "%d. ", i/2+1)
				}
				fmt.Fprintf(e.stdout, "%s ", m)
			}
			fmt.Fprintf(e.stdout, "\nafter %d of %d plies, result %s\n", n, len(rec.Moves), rec.Result)
			fmt.Fprint(e.stdout, p.Diagram())
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

// readPDNFile reads the games of a PDN file for a command that shows or
// uses them. It prints how many were read and why each bad one failed, and
// is an error when no game could be read: a file of another game (a
// GameType other than 22, squares up to 50) is named as such, not as a
// list of illegal moves.
func readPDNFile(w io.Writer, path string) ([]rules.PDNGame, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	games := rules.ReadPDNGames(string(text))
	if len(games) == 0 {
		return nil, fmt.Errorf("%s: no game in the file", path)
	}
	failed, other := 0, ""
	for _, g := range games {
		if g.Err != nil {
			failed++
		}
		if other == "" {
			other = g.OtherGame
		}
	}
	if failed == len(games) && other != "" {
		return nil, fmt.Errorf("%s is not Italian 8x8 draughts, the only game dama reads: %s", path, other)
	}
	fmt.Fprintf(w, "%s: %d games: %d read, %d failed\n", path, len(games), len(games)-failed, failed)
	for _, g := range games {
		if err := g.Problem(); err != nil { // a game cut short is read, and named
			fmt.Fprintf(w, "  %v\n", err)
		}
	}
	if failed == len(games) {
		return nil, fmt.Errorf("%s: none of its %d games could be read (the first: %v)", path, len(games), games[0].Err)
	}
	return games, nil
}
