package report

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
	"time"

	"dama/runfolder"
)

// WriteTable prints the generations table and its totals.
func (rep *Report) WriteTable(w io.Writer) error {
	ew := &errWriter{w: w}
	if rep.Empty() {
		fmt.Fprintf(ew, "run %s: nothing to report yet (no %s/NNNN.json, %s or %s records)\n",
			rep.Dir, runfolder.GenerationsDir, runfolder.MetricsFile, runfolder.ArenaFile)
		if p := rep.Progress; p != nil {
			fmt.Fprintf(ew, "in progress: %s\n", p.Describe(time.Now()))
		}
		if rep.Waiting+rep.Quarantined > 0 {
			rep.writeChunks(ew)
		}
		return ew.err
	}
	promoted := 0
	for _, g := range rep.Generations {
		if g.Promoted {
			promoted++
		}
	}
	fmt.Fprintf(ew, "run %s: %d generations completed, %d promoted", rep.Dir, len(rep.Generations), promoted)
	if n := len(rep.Generations); n > 0 {
		last := rep.Generations[n-1]
		fmt.Fprintf(ew, "; best %s at %s Elo over generation 0 (chained)", orDash(last.Best), fmtElo(last.BestChainElo, last.BestChainErr))
	}
	fmt.Fprintln(ew)

	if len(rep.Generations) > 0 {
		fmt.Fprintln(ew)
		tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "gen\tgames\tpositions\tsteps\tpolicy\tvalue\tscore\tElo (95%)\tpromoted\tbest\tbest Elo\tself-play s\ttrain s\tarena s\tsp/tr/ar %\t")
		for _, g := range rep.Generations {
			score, elo, half := g.Score, g.Elo, math.NaN()
			if g.Match != nil {
				score, elo, half = g.Match.Score, g.Match.Elo, (g.Match.EloHigh-g.Match.EloLow)/2
			}
			fmt.Fprintf(tw, "%d\t%d\t%d\t%d\t%.4f\t%.4f\t%.1f%%\t%s\t%s\t%s\t%+.0f\t%.1f\t%.1f\t%.1f\t%s\t\n",
				g.Gen, g.Games, g.Positions, g.Steps, g.PolicyLoss, g.ValueLoss,
				100*score, fmtElo(elo, half), yesNo(g.Promoted), orDash(g.Best), g.BestChainElo,
				g.SelfPlaySec, g.TrainSec, g.ArenaSec,
				split(g.SelfPlaySec, g.TrainSec, g.ArenaSec))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	} else {
		fmt.Fprintln(ew, "no generation completed yet")
	}

	if p := rep.Progress; p != nil {
		fmt.Fprintf(ew, "in progress: %s\n", p.Describe(time.Now()))
	}
	rep.writeTotals(ew)
	rep.writeChunks(ew)
	rep.writeChanges(ew)
	rep.writeLadder(ew)
	return ew.err
}

// writeChunks counts the chunks waiting for a plan and those refused.
func (rep *Report) writeChunks(w io.Writer) {
	fmt.Fprintf(w, "chunks: %d waiting for a plan in %s/, %d quarantined in %s/ (each with its reason in a .why file)\n",
		rep.Waiting, runfolder.GamesDir, rep.Quarantined, runfolder.QuarantineDir)
}

// writeChanges lists the configuration changes made on resume: the
// generations before each ran with the old values.
func (rep *Report) writeChanges(w io.Writer) {
	for _, c := range rep.Changes {
		var kv []string
		for _, v := range c.Changes {
			kv = append(kv, fmt.Sprintf("%s %s -> %s", v.Key, v.Old, v.New))
		}
		fmt.Fprintf(w, "configuration changed from generation %d: %s\n", c.Generation, strings.Join(kv, ", "))
	}
}

// writeLadder prints the ladder ratings of the run, the absolute scale (the
// chained gating Elo above is relative and drifts).
func (rep *Report) writeLadder(w io.Writer) {
	if len(rep.Ladder) == 0 {
		return
	}
	fmt.Fprintln(w, "\nladder (anchored ratings of the best model against the reference players):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "gen\tmodel\tElo\t95% interval\tgames\tvisits\tCPU-hours\tself-play games\tladder\t")
	for _, l := range rep.Ladder {
		bound := ""
		switch l.Bound {
		case "above":
			bound = " (lower bound)"
		case "below":
			bound = " (upper bound)"
		}
		fmt.Fprintf(tw, "%d\t%s\t%+.0f%s\t[%+.0f, %+.0f]\t%d\t%d\t%.2f\t%d\t%s\t\n",
			l.Gen, l.Model, l.Elo, bound, l.Low, l.High, l.Games, l.Visits, l.CPUHours, l.TotalGames, l.Ladder)
	}
	tw.Flush()
}

func (rep *Report) writeTotals(w io.Writer) {
	if len(rep.Generations) == 0 {
		return
	}
	var games, positions, steps int
	var sp, tr, ar, trainedEst float64
	for _, g := range rep.Generations {
		games += g.Games
		positions += g.Positions
		steps += g.Steps
		sp += g.SelfPlaySec
		tr += g.TrainSec
		ar += g.ArenaSec
		trainedEst += g.SamplesPerSec * g.TrainSec
	}
	stages := sp + tr + ar
	var cpu float64
	for _, g := range rep.Generations {
		cpu += g.CPUSec
	}
	fmt.Fprintf(w, "\ntotal: %d games, %d positions, %d training steps", games, positions, steps)
	if cpu > 0 {
		fmt.Fprintf(w, ", %.2f trainer CPU-hours", cpu/3600)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "time: %s in stages (self-play %s, train %s, arena %s)",
		fmtDur(stages), pct(sp, stages), pct(tr, stages), pct(ar, stages))
	last := rep.Generations[len(rep.Generations)-1]
	if !rep.Start.IsZero() && !last.Finished.IsZero() && last.Finished.After(rep.Start) {
		fmt.Fprintf(w, ", %s wall clock from start to generation %d", fmtDur(last.Finished.Sub(rep.Start).Seconds()), last.Gen)
	}
	fmt.Fprintln(w)
	// Samples trained: the metrics' counter at the end of the last completed
	// generation when the metrics cover it, else the generations' own speeds.
	trained := trainedEst
	if n := rep.samplesTrained(last.Gen); n > 0 {
		trained = float64(n)
	}
	if tr > 0 && trained > 0 {
		fmt.Fprintf(w, "training: %.0f samples/s (%.0f samples in %s)\n", trained/tr, trained, fmtDur(tr))
	} else {
		fmt.Fprintln(w, "training: speed unknown (no training time recorded)")
	}
}

// samplesTrained is the metrics' samples counter at the end of generation
// gen (or the latest earlier one), 0 when the metrics do not tell.
func (rep *Report) samplesTrained(gen int) int64 {
	var n int64
	for g, s := range rep.samplesByGen {
		if g <= gen && s > n {
			n = s
		}
	}
	return n
}

func fmtElo(elo, half float64) string {
	if !finite(elo) {
		return "?"
	}
	if !finite(half) || half <= 0 {
		return fmt.Sprintf("%+.0f", elo)
	}
	return fmt.Sprintf("%+.0f ±%.0f", elo, half)
}

func split(sp, tr, ar float64) string {
	t := sp + tr + ar
	if t <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f/%.0f/%.0f", 100*sp/t, 100*tr/t, 100*ar/t)
}

func pct(x, total float64) string {
	if total <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", 100*x/total)
}

func fmtDur(sec float64) string {
	return seconds(sec).Round(time.Second).String()
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// errWriter keeps the first write error so that printing code stays flat.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}
