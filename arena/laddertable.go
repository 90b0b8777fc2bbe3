package arena

import (
	"fmt"
	"io"
	"text/tabwriter"

	"dama/internal/atomicfile"
)

// Write writes the ladder file to path (Encode), through a temporary file
// renamed into place.
func (l *Ladder) Write(path string) error {
	b, err := l.Encode()
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, b)
}

// WriteTable writes the ladder as people read it: a line on how it was
// measured, then its rungs and ratings with their 95% intervals.
func (l *Ladder) WriteTable(w io.Writer) {
	rev := l.Revision
	if rev == "" {
		rev = "-"
	}
	fmt.Fprintf(w, "ladder v%d, measured %s (revision %s), anchor %s = 0, openings %d plies from seed %d\n",
		l.Version, l.Created.Format("2006-01-02"), rev, l.Anchor, l.OpeningPlies, l.Seed)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "rung\tplayer\tElo\t±95%\tms/move\t")
	for i, r := range l.Rungs {
		fmt.Fprintf(tw, "%d\t%s\t%+.0f\t%.0f\t%.1f\t\n", i+1, r.Player, r.Elo, 1.96*r.StdErr, r.MoveMillis)
	}
	tw.Flush()
}

// WriteTable writes the climb's games against each rung played (the
// results as Pentanomial.Counts, the score and the score expected at the
// rating), then the rating (String).
func (r LadderResult) WriteTable(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "rung\tElo\tgames\t+\t=\t-\tscore\texpected\t")
	for _, rr := range r.Rungs {
		wins, draws, losses := rr.Pairs.Counts()
		n := 2 * rr.Pairs.Pairs()
		if n == 0 {
			continue
		}
		fmt.Fprintf(tw, "%s\t%+.0f\t%d\t%d\t%d\t%d\t%.1f%%\t%.1f%%\t\n", rr.Rung.Player, rr.Rung.Elo, n, wins, draws, losses, 100*rr.Pairs.Score(), 100*rr.Expected)
	}
	tw.Flush()
	fmt.Fprintln(w, r)
}

// CalibrationMatches is the number of matches a calibration plays
// (Calibrate, or Extend of a ladder of below rungs) when it adds players
// rungs that each play the span rungs below them.
func CalibrationMatches(below, players, span int) int {
	n := 0
	for i := range players {
		n += min(span, below+i)
	}
	return n
}
