package tb

import (
	"fmt"
	"io"
	"strings"
	"time"

	"dama/rules"
)

// WriteInfo writes the tables as people read them: a line a table (its
// material, positions, bytes and results), the totals, and how Open
// vouched for the entries (Check).
func (t *Tables) WriteInfo(w io.Writer) {
	var pos, bytes int64
	fmt.Fprintf(w, "%-6s %-28s %11s %9s %11s %11s %11s\n", "table", "material (side to move first)", "positions", "bytes", "wins", "draws", "losses")
	for _, f := range t.Files() {
		fmt.Fprintf(w, "%-6s %-28s %11d %9d %11d %11d %11d\n", f.Material, f.Material.Describe(), f.Positions, f.Bytes, f.Wins, f.Draws, f.Losses)
		pos += f.Positions
		bytes += f.Bytes
	}
	fmt.Fprintf(w, "%d tables in %s, complete up to %d pieces, %d positions, %d bytes: every checksum checks\n", len(t.Files()), t.Dir(), t.Pieces(), pos, bytes)
	c := t.Check()
	switch {
	case c.Verified > 0 && c.Stamped > 0:
		fmt.Fprintf(w, "entries: %d tables verified against one ply now (%d entries), %d vouched for by %s and sampled (%d entries), all consistent\n", c.Verified, c.Entries, c.Stamped, StampName, c.Sampled)
	case c.Verified > 0:
		fmt.Fprintf(w, "entries: all %d tables verified against one ply now (%d entries), all consistent\n", c.Verified, c.Entries)
	default:
		fmt.Fprintf(w, "entries: all %d tables vouched for by %s and sampled (%d entries), all consistent (dama tb verify checks them all)\n", c.Stamped, StampName, c.Sampled)
	}
	if c.StampNote != "" {
		fmt.Fprintln(w, "note: "+c.StampNote)
	}
}

// WriteMoves writes the value of p at the 40-move counter quiet and the
// entry stored, the moves that keep that value, and the value of every
// move (Moves).
func (t *Tables) WriteMoves(w io.Writer, p rules.Position, quiet int) error {
	entry, err := t.Probe(p)
	if err != nil {
		return err
	}
	v, moves, err := t.Moves(p, quiet)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%s (%s to move, 40-move counter %d): %s; stored: %v\n", p.FEN(), p.Side(), quiet, v, entry)
	var keep []string
	for _, mv := range moves {
		if mv.Value == v {
			keep = append(keep, mv.Move.String())
		}
	}
	if len(moves) > 0 {
		fmt.Fprintf(w, "moves that keep the %s: %s\n", v, strings.Join(keep, " "))
	}
	for _, mv := range moves {
		if mv.Value == Draw {
			fmt.Fprintf(w, "  %-12s draw\n", mv.Move)
		} else {
			fmt.Fprintf(w, "  %-12s %s, %d plies to a man move or capture\n", mv.Move, mv.Value, mv.Dist)
		}
	}
	return nil
}

// WriteSummary writes r as people read it: the examples of
// inconsistencies, a line for the whole check of the folder dir (on
// threads threads, in elapsed), and a line for each table found
// inconsistent.
func (r Report) WriteSummary(w io.Writer, dir string, threads int, elapsed time.Duration) {
	pieces := 0
	for _, t := range r.Tables {
		pieces = max(pieces, t.Material.Pieces())
	}
	for _, c := range r.Examples {
		fmt.Fprintln(w, c)
	}
	fmt.Fprintf(w, "%d tables of 2 to %d pieces in %s: %d entries checked against one ply on %d threads in %.1fs: %d inconsistencies; %d tables verified (recorded in %s)\n",
		len(r.Tables), pieces, dir, r.Entries, threads, elapsed.Seconds(), r.Inconsistencies, len(r.Verified), StampName)
	for _, t := range r.Tables {
		if t.Inconsistencies > 0 {
			fmt.Fprintf(w, "%s: %d of %d entries inconsistent, %d of them contradicted by the other tables alone\n", t.Path, t.Inconsistencies, t.Checked, t.Own)
		}
	}
}
