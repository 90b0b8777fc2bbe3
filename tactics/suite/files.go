package suite

import (
	"context"
	"fmt"
	"io"

	"dama/internal/atomicfile"
	"dama/rules"
	"dama/tb"
)

// BuildFiles builds a suite of opt's options from every game of the PDN
// files (rules.ReadPDNFile, its lines on w), g.Parallel games at a time,
// and writes it to out, after the positions of the suite already at out
// with add (which must have been built with the same options); g.Base is
// set here. It writes a line to w with the positions found; interrupted,
// it writes those of the games finished so far and returns ctx's error.
func BuildFiles(ctx context.Context, w io.Writer, files []string, out string, opt BuildOptions, g GamesOptions, add bool) error {
	if err := atomicfile.CheckWritable(out); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	var games []Game
	for _, f := range files {
		gs, err := rules.ReadPDNFile(w, f)
		if err != nil {
			return err
		}
		for i, g := range gs {
			if g.Err == nil {
				games = append(games, Game{Name: fmt.Sprintf("%s game %d", f, i+1), Record: g.Record})
			}
		}
	}
	b, err := NewBuilder(opt)
	if err != nil {
		return err
	}
	if add {
		if g.Base, err = Read(out); err == nil {
			err = b.CanExtend(g.Base, out)
		}
		if err != nil {
			return fmt.Errorf("--append: %w", err)
		}
	}
	s, err := b.Games(ctx, games, g)
	if err != nil {
		return err
	}
	if err := s.Write(out); err != nil {
		return err
	}
	fmt.Fprintf(w, "%s: %d positions from %d games\n", out, len(s.Positions), len(games))
	return ctx.Err()
}

// AuditFile audits every forced win of the suite at from (Audit: the
// other moves a search depth plies deep, nodes a search, proves winning
// too, and those tables prove where not nil), positions parallel at a
// time, writes the suite with them to out and a line to w saying how
// many it found.
func AuditFile(ctx context.Context, w io.Writer, from, out string, depth int, nodes int64, tables *tb.Tables, parallel int) error {
	if err := atomicfile.CheckWritable(out); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	s, err := Read(from)
	if err != nil {
		return err
	}
	with, wins, err := Audit(ctx, s, depth, nodes, tables, parallel)
	if err != nil {
		return fmt.Errorf("%s: %w", from, err)
	}
	if err := s.Write(out); err != nil {
		return err
	}
	by := fmt.Sprintf("at depth %d", depth)
	if tables != nil {
		by += fmt.Sprintf(" or by the tables of up to %d pieces", tables.Pieces())
	}
	fmt.Fprintf(w, "%s: %d of %d positions have another move proven to win %s (%d moves)\n", out, with, len(s.Positions), by, wins)
	return nil
}
