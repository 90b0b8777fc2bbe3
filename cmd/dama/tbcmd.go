package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"time"

	"dama/rules"
	"dama/tb"
)

func init() {
	var pieces, workers, quiet *int
	var out, dir, fen *string
	register(&command{
		name:      "tb",
		summary:   "endgame tables: generate (gen), probe a position (probe), list and check (info)",
		usage:     "gen --pieces N --out DIR | probe --dir DIR --fen FEN [--quiet N] | info DIR",
		takesArgs: true,
		flags: func(fs *flag.FlagSet) {
			pieces = fs.Int("pieces", 4, "gen: every signature of 2 to this many pieces (2..8)")
			limit(fs, "pieces", 2, 8, "")
			out = fs.String("out", "", "gen: the folder of the tables (created; finished signatures in it are kept)")
			workers = fs.Int("workers", 0, "gen: signatures solved at once (0: one per CPU)")
			limit(fs, "workers", 0, 256, "0: one per CPU")
			dir = fs.String("dir", "", "probe: the folder of the tables")
			fen = fs.String("fen", "", "probe: the position in PDN FEN form")
			quiet = fs.Int("quiet", 0, "probe: the 40-move counter, plies of king moves since the last man move or capture (0..80)")
			limit(fs, "quiet", 0, rules.QuietLimit, "")
		},
		run: func(fs *flag.FlagSet, args []string) error {
			const usage = "usage: dama tb gen --pieces N --out DIR | probe --dir DIR --fen FEN | info DIR"
			if len(args) == 0 {
				return fmt.Errorf("want a verb: gen, probe or info (%s)", usage)
			}
			verb, rest := args[0], args[1:]
			switch verb {
			case "gen":
				if len(rest) > 0 || *out == "" {
					return fmt.Errorf("gen: want --out DIR and no arguments (%s)", usage)
				}
				return tbGen(*pieces, *workers, *out)
			case "probe":
				if len(rest) > 0 || *dir == "" || *fen == "" {
					return fmt.Errorf("probe: want --dir DIR and --fen FEN and no arguments (%s)", usage)
				}
				return tbProbe(*dir, *fen, *quiet)
			case "info":
				if len(rest) != 1 {
					return fmt.Errorf("info: want one folder, got %d arguments (%s)", len(rest), usage)
				}
				return tbInfo(rest[0])
			}
			return fmt.Errorf("unknown verb %q (%s)", verb, usage)
		},
	})
}

// tbGen generates the tables, resuming in a folder that has some; an
// interrupt stops it between files.
func tbGen(pieces, workers int, out string) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	start := time.Now()
	st, err := tb.Generate(ctx, tb.GenOptions{Pieces: pieces, Dir: out, Workers: workers, Log: stdout})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%d signatures of 2 to %d pieces in %s: %d already there, %d generated (%d positions, %d bytes) in %.1fs\n",
		st.Signatures, pieces, out, st.Skipped, st.Signatures-st.Skipped, st.Positions, st.Bytes, time.Since(start).Seconds())
	return nil
}

// tbProbe prints the value of a position and the value of each move.
func tbProbe(dir, fen string, quiet int) error {
	p, err := rules.ParseFEN(fen)
	if err != nil {
		return err
	}
	t, err := tb.Open(dir)
	if err != nil {
		return err
	}
	e, err := t.Probe(p)
	if err != nil {
		return fmt.Errorf("%s: %w", fen, err)
	}
	v, moves, err := t.Moves(p, quiet)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s (%s to move, 40-move counter %d): %s; stored: %v\n", p.FEN(), p.Side(), quiet, v, e)
	var keep []string
	for _, mv := range moves {
		if mv.Value == v {
			keep = append(keep, mv.Move.String())
		}
	}
	if len(moves) > 0 {
		fmt.Fprintf(stdout, "moves that keep the %s: %s\n", v, strings.Join(keep, " "))
	}
	for _, mv := range moves {
		if mv.Value == tb.Draw {
			fmt.Fprintf(stdout, "  %-12s draw\n", mv.Move)
		} else {
			fmt.Fprintf(stdout, "  %-12s %s, %d plies to a man move or capture\n", mv.Move, mv.Value, mv.Dist)
		}
	}
	return nil
}

// tbInfo lists the tables of a folder, each checked.
func tbInfo(dir string) error {
	t, err := tb.Open(dir)
	if err != nil {
		return err
	}
	var pos, bytes int64
	fmt.Fprintf(stdout, "%-6s %-28s %11s %9s %11s %11s %11s\n", "table", "material (side to move first)", "positions", "bytes", "wins", "draws", "losses")
	for _, f := range t.Files() {
		fmt.Fprintf(stdout, "%-6s %-28s %11d %9d %11d %11d %11d\n", f.Material, f.Material.Describe(), f.Positions, f.Bytes, f.Wins, f.Draws, f.Losses)
		pos += f.Positions
		bytes += f.Bytes
	}
	fmt.Fprintf(stdout, "%d tables in %s, complete up to %d pieces, %d positions, %d bytes: every checksum and entry checks\n", len(t.Files()), dir, t.Pieces(), pos, bytes)
	return nil
}
