// Package report reads a training run's folder (through package
// runfolder, nothing else) and presents it: the generations table with
// chained Elo, totals and ladder ratings that dama report prints, and the
// PNG plots of losses, Elo, arena scores and ladder ratings.
package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"dama/configs"
	"dama/runfolder"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Report is what dama report shows of a run folder: one row per completed
// generation joined with its gating match, the training losses reduced to a
// bounded number of points, and totals.
//
// Elo figures of the best model are chained estimates: the Elo of a
// promoted candidate over generation 0 is the sum of the gating estimates
// (candidate minus the best it played) of every promotion up to it. The
// chain drifts with the error of each match; its 95% interval assumes the
// matches are independent and adds their variances.
type Report struct {
	Dir         string
	Generations []GenerationRow          // completed generations, by increasing Gen
	Arena       []runfolder.ArenaRecord  // the last match of each generation, by increasing Gen
	Losses      []LossPoint              // bucket means of metrics.jsonl, by increasing step
	Ladder      []runfolder.LadderRecord // ladder ratings of the best model, by increasing Gen
	Changes     []runfolder.ConfigChange // configuration changes made on resume (dama train --allow-change), oldest first

	MetricLines int                     // lines of metrics.jsonl read
	ArenaLines  int                     // lines of arena.jsonl read
	LastMetric  *runfolder.MetricRecord // the newest training step, nil if none
	Start       time.Time               // estimated start of the run, zero if unknown

	// Promotion is the candidate's score (0..1) that promotes it under the
	// run's gating, drawn in arena.png (0 when unknown or none):
	// arena.threshold in threshold mode, the score of the midpoint of
	// Elo0 and Elo1 with the SPRT. PromotionLabel describes it.
	Promotion      float64
	PromotionLabel string

	samplesByGen map[int]int64 // samples counter at the last step of each generation
}

// GenerationRow is one completed generation with its gating match.
type GenerationRow struct {
	runfolder.GenerationRecord
	Match *runfolder.ArenaRecord // the gating match, nil if arena.jsonl has none for Gen

	// CandidateElo is the chained Elo of this generation's candidate over
	// generation 0: the best's chained Elo before the match plus the
	// candidate's gating Elo.
	CandidateElo float64
	// BestChainElo is the chained Elo of the best model after this
	// generation, and BestChainErr half its 95% interval.
	BestChainElo float64
	BestChainErr float64
}

// LossPoint is the mean of the training losses over a bucket of steps.
type LossPoint struct {
	Step                 float64 // mean step of the bucket
	Policy, Value, Total float64
	Steps                int // metric lines in the bucket
}

// maxLossBuckets bounds the loss points kept: when 2*maxLossBuckets full
// buckets are held, neighbours are merged and the bucket width doubles, so
// memory stays bounded however long the run.
const maxLossBuckets = 1000

// z95 is the normal quantile of a two-sided 95% interval.
const z95 = 1.959964

// Load reads the records of a run folder. A run without records
// gives an empty report, not an error; a record that does not decode gives
// an error naming its file and line.
func Load(r *runfolder.Run) (*Report, error) {
	st, err := os.Stat(r.Dir)
	if err != nil {
		return nil, fmt.Errorf("run folder: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("run folder %s: not a directory", r.Dir)
	}
	rep := &Report{Dir: r.Dir, samplesByGen: map[int]int64{}}
	if cfg, err := configs.Load(r.Path(runfolder.ConfigFile), nil, nil); err == nil {
		switch a := cfg.Arena; a.Gating {
		case "threshold":
			rep.Promotion = a.Threshold
			rep.PromotionLabel = fmt.Sprintf("promotion threshold (%.0f%%)", 100*a.Threshold)
		case "sprt":
			mid := (a.Elo0 + a.Elo1) / 2
			rep.Promotion = eloScore(mid)
			rep.PromotionLabel = fmt.Sprintf("SPRT midpoint (%+.0f Elo, %.1f%%)", mid, 100*eloScore(mid))
		}
	}

	var ls lossSeries
	var last runfolder.MetricRecord
	var firstMetric time.Time
	err = runfolder.ReadJSONL(r, runfolder.MetricsFile, func(m runfolder.MetricRecord) error {
		rep.MetricLines++
		ls.add(m)
		last = m
		rep.samplesByGen[m.Gen] = m.Samples
		if firstMetric.IsZero() && !m.Time.IsZero() {
			firstMetric = m.Time
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	rep.Losses = ls.points()
	if rep.MetricLines > 0 {
		rep.LastMetric = &last
	}

	byGen := map[int]runfolder.ArenaRecord{}
	var firstArena time.Time
	err = runfolder.ReadJSONL(r, runfolder.ArenaFile, func(a runfolder.ArenaRecord) error {
		rep.ArenaLines++
		byGen[a.Gen] = a // a rerun of a killed match replaces the earlier line
		if firstArena.IsZero() && !a.Time.IsZero() {
			firstArena = a.Time
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, a := range byGen {
		rep.Arena = append(rep.Arena, a)
	}
	sort.Slice(rep.Arena, func(i, j int) bool { return rep.Arena[i].Gen < rep.Arena[j].Gen })

	err = runfolder.ReadJSONL(r, runfolder.LadderFile, func(l runfolder.LadderRecord) error {
		if n := len(rep.Ladder); n > 0 && rep.Ladder[n-1].Gen == l.Gen {
			rep.Ladder[n-1] = l // a rerun after a kill replaces the line
		} else {
			rep.Ladder = append(rep.Ladder, l)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.SliceStable(rep.Ladder, func(i, j int) bool { return rep.Ladder[i].Gen < rep.Ladder[j].Gen })

	if rep.Changes, err = r.ReadChanges(); err != nil {
		return nil, err
	}

	gens, err := readGenerations(r)
	if err != nil {
		return nil, err
	}
	var chain, chainVar float64
	for _, g := range gens {
		row := GenerationRow{GenerationRecord: g}
		elo, sigma := g.Elo, 0.0
		if a, ok := byGen[g.Gen]; ok {
			row.Match = &a
			elo = a.Elo
			sigma = eloSigma(a)
		}
		if !finite(elo) {
			elo = 0
		}
		row.CandidateElo = chain + elo
		if g.Promoted {
			chain += elo
			chainVar += sigma * sigma
		}
		row.BestChainElo = chain
		row.BestChainErr = z95 * math.Sqrt(chainVar)
		rep.Generations = append(rep.Generations, row)
	}

	for _, t := range []time.Time{firstMetric, firstArena} {
		if !t.IsZero() && (rep.Start.IsZero() || t.Before(rep.Start)) {
			rep.Start = t
		}
	}
	if len(gens) > 0 && !gens[0].Finished.IsZero() {
		g := gens[0]
		t := g.Finished.Add(-seconds(g.SelfPlaySec + g.TrainSec + g.ArenaSec))
		if rep.Start.IsZero() || t.Before(rep.Start) {
			rep.Start = t
		}
	}
	return rep, nil
}

// readGenerations reads generations/NNNN.json in order of generation,
// skipping files with other names (temporary files of a writer).
func readGenerations(r *runfolder.Run) ([]runfolder.GenerationRecord, error) {
	ents, err := os.ReadDir(r.Path(runfolder.GenerationsDir))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []runfolder.GenerationRecord
	for _, e := range ents {
		gen, ok := generationFileGen(e.Name())
		if !ok || e.IsDir() {
			continue
		}
		path := r.Path(runfolder.GenerationsDir, e.Name())
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		var g runfolder.GenerationRecord
		if err := json.Unmarshal(b, &g); err != nil {
			return nil, jsonFileError(path, b, err)
		}
		if g.Gen != gen {
			return nil, fmt.Errorf("%s: field gen is %d, want %d from the file name", path, g.Gen, gen)
		}
		out = append(out, g)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Gen < out[j].Gen })
	return out, nil
}

// generationFileGen parses "0007.json" as 7; other names are not
// generation records.
func generationFileGen(name string) (int, bool) {
	base, ok := strings.CutSuffix(name, ".json")
	if !ok || len(base) < 4 {
		return 0, false
	}
	for _, c := range base {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(base)
	return n, err == nil
}

// jsonFileError names the file, line and column of a JSON decoding error.
func jsonFileError(path string, b []byte, err error) error {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	if off < 0 || off > int64(len(b)) {
		return fmt.Errorf("%s: %w", path, err)
	}
	line := 1 + bytes.Count(b[:off], []byte("\n"))
	col := int(off) - bytes.LastIndexByte(b[:off], '\n')
	return fmt.Errorf("%s line %d column %d: %w", path, line, col, err)
}

// eloSigma is the standard error of a match's Elo from its 95% interval.
func eloSigma(a runfolder.ArenaRecord) float64 {
	w := a.EloHigh - a.EloLow
	if !finite(w) || w <= 0 {
		return 0
	}
	return w / (2 * z95)
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// Empty reports whether the run has no records at all.
func (rep *Report) Empty() bool {
	return len(rep.Generations) == 0 && rep.MetricLines == 0 && rep.ArenaLines == 0
}

// WriteTable prints the generations table and its totals.
func (rep *Report) WriteTable(w io.Writer) error {
	ew := &errWriter{w: w}
	if rep.Empty() {
		fmt.Fprintf(ew, "run %s: nothing to report yet (no %s/NNNN.json, %s or %s records)\n",
			rep.Dir, runfolder.GenerationsDir, runfolder.MetricsFile, runfolder.ArenaFile)
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

	if m := rep.LastMetric; m != nil && (len(rep.Generations) == 0 || m.Gen > rep.Generations[len(rep.Generations)-1].Gen) {
		fmt.Fprintf(ew, "generation %d in progress: step %d, policy loss %.4f, value loss %.4f, %.0f samples/s\n",
			m.Gen, m.Step, m.PolicyLoss, m.ValueLoss, m.SamplesPerSec)
	}
	rep.writeTotals(ew)
	rep.writeChanges(ew)
	rep.writeLadder(ew)
	return ew.err
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

// lossSeries reduces a stream of metrics to at most 2*maxLossBuckets bucket
// means of equal width (the last bucket may be partial).
type lossSeries struct {
	width int // metric lines per full bucket
	full  []LossPoint
	cur   LossPoint // sums, not means, while filling
}

func (s *lossSeries) add(m runfolder.MetricRecord) {
	if s.width == 0 {
		s.width = 1
	}
	s.cur.Step += float64(m.Step)
	s.cur.Policy += m.PolicyLoss
	s.cur.Value += m.ValueLoss
	s.cur.Total += m.Total
	s.cur.Steps++
	if s.cur.Steps < s.width {
		return
	}
	s.full = append(s.full, s.cur.mean())
	s.cur = LossPoint{}
	if len(s.full) < 2*maxLossBuckets {
		return
	}
	for i := 0; i < len(s.full)/2; i++ {
		a, b := s.full[2*i], s.full[2*i+1]
		s.full[i] = LossPoint{
			Step:   (a.Step + b.Step) / 2,
			Policy: (a.Policy + b.Policy) / 2,
			Value:  (a.Value + b.Value) / 2,
			Total:  (a.Total + b.Total) / 2,
			Steps:  a.Steps + b.Steps,
		}
	}
	s.full = s.full[:len(s.full)/2]
	s.width *= 2
}

func (p LossPoint) mean() LossPoint {
	n := float64(p.Steps)
	return LossPoint{Step: p.Step / n, Policy: p.Policy / n, Value: p.Value / n, Total: p.Total / n, Steps: p.Steps}
}

func (s *lossSeries) points() []LossPoint {
	out := append([]LossPoint(nil), s.full...)
	if s.cur.Steps > 0 {
		out = append(out, s.cur.mean())
	}
	return out
}

// Plot files written by WritePlots.
const (
	LossPlot     = "losses.png"
	EloPlot      = "elo.png"
	EloGamesPlot = "elo_games.png"
	ArenaPlot    = "arena.png"
	// LadderPlot and LadderGamesPlot show the ladder rating against the
	// trainer's CPU-hours and against self-play games.
	LadderPlot      = "ladder.png"
	LadderGamesPlot = "ladder_games.png"
)

// Plot size and resolution.
const (
	plotWidth  = 9 * vg.Inch
	plotHeight = 5.5 * vg.Inch
	plotDPI    = 110
)

var (
	colPolicy   = color.RGBA{R: 31, G: 119, B: 180, A: 255}
	colValue    = color.RGBA{R: 255, G: 127, B: 14, A: 255}
	colTotal    = color.RGBA{R: 60, G: 60, B: 60, A: 255}
	colAccepted = color.RGBA{R: 44, G: 160, B: 44, A: 255}
	colRejected = color.RGBA{R: 214, G: 39, B: 40, A: 255}
	colGuide    = color.RGBA{R: 150, G: 150, B: 150, A: 255}
)

// WritePlots writes the PNG plots that the records allow into dir (created
// if needed), each under a temporary name renamed into place, and returns
// the paths written. A plot without data is skipped.
func (rep *Report) WritePlots(dir string) ([]string, error) {
	type job struct {
		name string
		make func() (*plot.Plot, error)
	}
	var jobs []job
	if len(rep.Losses) > 0 {
		jobs = append(jobs, job{LossPlot, rep.lossPlot})
	}
	if len(rep.Generations) > 0 {
		jobs = append(jobs,
			job{EloPlot, func() (*plot.Plot, error) { return rep.eloPlot(false) }},
			job{EloGamesPlot, func() (*plot.Plot, error) { return rep.eloPlot(true) }})
	}
	if len(rep.Arena) > 0 {
		jobs = append(jobs, job{ArenaPlot, rep.arenaPlot})
	}
	if len(rep.Ladder) > 0 {
		jobs = append(jobs,
			job{LadderPlot, func() (*plot.Plot, error) { return rep.ladderPlot(false) }},
			job{LadderGamesPlot, func() (*plot.Plot, error) { return rep.ladderPlot(true) }})
	}
	if len(jobs) == 0 {
		return nil, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("plots folder: %w", err)
	}
	var written []string
	for _, j := range jobs {
		p, err := j.make()
		if err != nil {
			return written, fmt.Errorf("plot %s: %w", j.name, err)
		}
		path := filepath.Join(dir, j.name)
		if err := savePNG(p, path); err != nil {
			return written, err
		}
		written = append(written, path)
	}
	return written, nil
}

func savePNG(p *plot.Plot, path string) error {
	c := vgimg.NewWith(vgimg.UseWH(plotWidth, plotHeight), vgimg.UseDPI(plotDPI), vgimg.UseBackgroundColor(color.White))
	p.Draw(draw.New(c))
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(&buf); err != nil {
		return fmt.Errorf("encoding %s: %w", path, err)
	}
	return runfolder.WriteFileAtomic(path, buf.Bytes())
}

func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = vg.Points(14)
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.X.Label.TextStyle.Font.Size = vg.Points(12)
	p.Y.Label.TextStyle.Font.Size = vg.Points(12)
	p.Legend.TextStyle.Font.Size = vg.Points(11)
	p.X.Tick.Marker = niceTicks{}
	p.Y.Tick.Marker = niceTicks{}
	p.Add(plotter.NewGrid())
	return p
}

func (rep *Report) lossPlot() (*plot.Plot, error) {
	p := newPlot("Training losses", "training step", "loss")
	p.Legend.Top = true
	series := []struct {
		name string
		col  color.RGBA
		get  func(LossPoint) float64
	}{
		{"policy", colPolicy, func(l LossPoint) float64 { return l.Policy }},
		{"value", colValue, func(l LossPoint) float64 { return l.Value }},
		{"total", colTotal, func(l LossPoint) float64 { return l.Total }},
	}
	win := len(rep.Losses) / 25 // moving average over about 4% of the run
	for _, s := range series {
		raw := make(plotter.XYs, len(rep.Losses))
		for i, l := range rep.Losses {
			raw[i] = plotter.XY{X: l.Step, Y: s.get(l)}
		}
		if err := checkXYs(raw); err != nil {
			return nil, fmt.Errorf("%s loss: %w", s.name, err)
		}
		if win > 1 {
			faint, err := plotter.NewLine(raw)
			if err != nil {
				return nil, err
			}
			faint.Color = color.NRGBA{R: s.col.R, G: s.col.G, B: s.col.B, A: 70}
			faint.Width = vg.Points(0.8)
			p.Add(faint)
		}
		line, err := plotter.NewLine(smooth(raw, win))
		if err != nil {
			return nil, err
		}
		line.Color = s.col
		line.Width = vg.Points(2)
		p.Add(line)
		p.Legend.Add(s.name, line)
	}
	per := 1
	if n := len(rep.Losses); n > 0 {
		per = max(1, rep.Losses[0].Steps)
	}
	switch {
	case win > 1 && per > 1:
		p.X.Label.Text = fmt.Sprintf("training step (faint: means of %d steps; bold: moving average of about %d steps)", per, win*per)
	case win > 1:
		p.X.Label.Text = fmt.Sprintf("training step (faint: each step; bold: moving average of %d steps)", win)
	case per > 1:
		p.X.Label.Text = fmt.Sprintf("training step (means of %d steps)", per)
	}
	return p, nil
}

// smooth returns the centred moving average of xys over win points; the
// window narrows symmetrically near the ends, so a trend is not bent there.
func smooth(xys plotter.XYs, win int) plotter.XYs {
	if win <= 1 {
		return xys
	}
	out := make(plotter.XYs, len(xys))
	half := win / 2
	for i := range xys {
		h := min(half, i, len(xys)-1-i)
		lo, hi := i-h, i+h+1
		var sum float64
		for _, v := range xys[lo:hi] {
			sum += v.Y
		}
		out[i] = plotter.XY{X: xys[i].X, Y: sum / float64(hi-lo)}
	}
	return out
}

// checkXYs rejects values that gonum/plot cannot draw.
func checkXYs(xys plotter.XYs) error {
	for i, v := range xys {
		if !finite(v.X) || !finite(v.Y) {
			return fmt.Errorf("point %d is not finite (%v, %v)", i, v.X, v.Y)
		}
	}
	return nil
}

// eloPlot draws the chained Elo of the best model over wall-clock time, or
// over cumulative self-play games.
func (rep *Report) eloPlot(overGames bool) (*plot.Plot, error) {
	xs := make([]float64, len(rep.Generations))
	var xlabel string
	if overGames {
		games := 0
		for i, g := range rep.Generations {
			games += g.Games
			if g.TotalGames > 0 {
				games = g.TotalGames
			}
			xs[i] = float64(games)
		}
		xlabel = "self-play games (cumulative)"
	} else {
		var unit string
		var scale float64
		xs, unit, scale = rep.wallClock()
		for i := range xs {
			xs[i] /= scale
		}
		xlabel = "wall-clock " + unit + " since the start of the run"
	}
	title := "Elo of the best model over generation 0, by wall-clock time"
	if overGames {
		title = "Elo of the best model over generation 0, by self-play games"
	}
	p := newPlot(title, xlabel, "Elo over generation 0 (chained gating estimates)")
	p.Legend.Top = true
	p.Legend.Left = true

	best := plotter.XYs{{X: 0, Y: 0}}
	acc := plotter.XYs{{X: 0, Y: 0}}
	accErr := plotter.YErrors{{}}
	accLabels := []string{"g0"}
	var rej plotter.XYs
	for i, g := range rep.Generations {
		best = append(best, plotter.XY{X: xs[i], Y: g.BestChainElo})
		if g.Promoted {
			acc = append(acc, plotter.XY{X: xs[i], Y: g.BestChainElo})
			accErr = append(accErr, struct{ Low, High float64 }{g.BestChainErr, g.BestChainErr})
			accLabels = append(accLabels, "g"+strconv.Itoa(g.Gen))
		} else {
			rej = append(rej, plotter.XY{X: xs[i], Y: g.CandidateElo})
		}
	}
	for _, s := range []plotter.XYs{best, acc, rej} {
		if err := checkXYs(s); err != nil {
			return nil, err
		}
	}
	line, err := plotter.NewLine(best)
	if err != nil {
		return nil, err
	}
	line.StepStyle = plotter.PostStep
	line.Color = color.NRGBA{R: colAccepted.R, G: colAccepted.G, B: colAccepted.B, A: 150}
	line.Width = vg.Points(1.5)
	p.Add(line)
	p.Legend.Add("best model", line)

	bars := &plotter.YErrorBars{XYs: acc, YErrors: accErr, LineStyle: plotter.DefaultLineStyle, CapWidth: vg.Points(6)}
	bars.Color = colAccepted
	p.Add(bars)
	sc, err := plotter.NewScatter(acc)
	if err != nil {
		return nil, err
	}
	sc.GlyphStyle = draw.GlyphStyle{Color: colAccepted, Radius: vg.Points(4), Shape: draw.CircleGlyph{}}
	p.Add(sc)
	p.Legend.Add("accepted model (bar: 95% interval of the chain)", sc)
	if len(acc) <= 40 {
		lb, err := plotter.NewLabels(plotter.XYLabels{XYs: acc, Labels: accLabels})
		if err != nil {
			return nil, err
		}
		lb.Offset = vg.Point{X: vg.Points(5), Y: vg.Points(4)}
		p.Add(lb)
	}
	if len(rej) > 0 {
		rs, err := plotter.NewScatter(rej)
		if err != nil {
			return nil, err
		}
		rs.GlyphStyle = draw.GlyphStyle{Color: colRejected, Radius: vg.Points(5), Shape: draw.CrossGlyph{}}
		p.Add(rs)
		p.Legend.Add("rejected candidate (best + its gating Elo)", rs)
	}
	padX(p, 0.03)
	padY(p, 0.08)
	return p, nil
}

// wallClock returns the x of each generation in seconds since the run's
// start (from the recorded finish times, or the running sum of stage times
// when those are missing), a unit name and the seconds per unit.
func (rep *Report) wallClock() (xs []float64, unit string, scale float64) {
	xs = make([]float64, len(rep.Generations))
	useFinish := !rep.Start.IsZero()
	for _, g := range rep.Generations {
		if g.Finished.IsZero() {
			useFinish = false
		}
	}
	var sum float64
	for i, g := range rep.Generations {
		sum += g.SelfPlaySec + g.TrainSec + g.ArenaSec
		if useFinish {
			xs[i] = g.Finished.Sub(rep.Start).Seconds()
		} else {
			xs[i] = sum
		}
	}
	span := 0.0
	if n := len(xs); n > 0 {
		span = xs[n-1]
	}
	switch {
	case span >= 3*3600:
		return xs, "hours", 3600
	case span >= 180:
		return xs, "minutes", 60
	default:
		return xs, "seconds", 1
	}
}

func (rep *Report) arenaPlot() (*plot.Plot, error) {
	p := newPlot("Gating matches: candidate's score against the best (95% interval)", "generation", "candidate's score %")
	p.X.Tick.Marker = intTicks{}
	p.Legend.Top = true

	var acc, rej plotter.XYs
	var accErr, rejErr plotter.YErrors
	for _, a := range rep.Arena {
		s := 100 * a.Score
		lo, hi := s, s
		if eloSigma(a) > 0 {
			lo, hi = 100*eloScore(a.EloLow), 100*eloScore(a.EloHigh)
		}
		e := struct{ Low, High float64 }{math.Max(0, s-lo), math.Max(0, hi-s)}
		pt := plotter.XY{X: float64(a.Gen), Y: s}
		if a.Promoted {
			acc, accErr = append(acc, pt), append(accErr, e)
		} else {
			rej, rejErr = append(rej, pt), append(rejErr, e)
		}
	}
	even, err := plotter.NewLine(plotter.XYs{{X: float64(rep.Arena[0].Gen) - 0.5, Y: 50}, {X: float64(rep.Arena[len(rep.Arena)-1].Gen) + 0.5, Y: 50}})
	if err != nil {
		return nil, err
	}
	even.Color = colGuide
	even.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(even)
	p.Legend.Add("even (50%)", even)
	if rep.Promotion > 0 {
		y := 100 * rep.Promotion
		line, err := plotter.NewLine(plotter.XYs{{X: float64(rep.Arena[0].Gen) - 0.5, Y: y}, {X: float64(rep.Arena[len(rep.Arena)-1].Gen) + 0.5, Y: y}})
		if err != nil {
			return nil, err
		}
		line.Color = colAccepted
		line.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
		p.Add(line)
		p.Legend.Add(rep.PromotionLabel, line)
	}
	for _, s := range []struct {
		name  string
		xys   plotter.XYs
		errs  plotter.YErrors
		col   color.RGBA
		glyph draw.GlyphDrawer
	}{
		{"promoted", acc, accErr, colAccepted, draw.CircleGlyph{}},
		{"rejected", rej, rejErr, colRejected, draw.CrossGlyph{}},
	} {
		if len(s.xys) == 0 {
			continue
		}
		if err := checkXYs(s.xys); err != nil {
			return nil, err
		}
		bars := &plotter.YErrorBars{XYs: s.xys, YErrors: s.errs, LineStyle: plotter.DefaultLineStyle, CapWidth: vg.Points(6)}
		bars.Color = s.col
		p.Add(bars)
		sc, err := plotter.NewScatter(s.xys)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: s.col, Radius: vg.Points(4), Shape: s.glyph}
		p.Add(sc)
		p.Legend.Add(s.name, sc)
	}
	padY(p, 0.08)
	return p, nil
}

// eloScore is the expected score of an Elo difference.
func eloScore(elo float64) float64 { return 1 / (1 + math.Pow(10, -elo/400)) }

// padY widens the y range by frac of its span on both sides, so that
// points, labels and the legend do not sit on the frame.
func padY(p *plot.Plot, frac float64) {
	span := p.Y.Max - p.Y.Min
	if span <= 0 {
		span = 1
	}
	p.Y.Min -= frac * span
	p.Y.Max += 2.5 * frac * span // room for the legend at the top
}

// padX widens the x range by frac of its span on both sides.
func padX(p *plot.Plot, frac float64) {
	span := p.X.Max - p.X.Min
	if span <= 0 {
		span = 1
	}
	p.X.Min -= frac * span
	p.X.Max += frac * span
}

// niceTicks labels about six round values (1, 2 or 5 times a power of
// ten) with as many decimals as the step needs, and marks minor ticks
// between them.
type niceTicks struct{}

func (niceTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || !finite(lo) || !finite(hi) {
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	raw := (hi - lo) / 6
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{2, 5, 10} {
		if step >= raw {
			break
		}
		step = m * mag
	}
	dec := max(0, int(-math.Floor(math.Log10(step)+1e-9)))
	var ts []plot.Tick
	minor := step / 2
	if step/mag == 2 || step/mag == 20 {
		minor = step / 4
	}
	for i := math.Ceil(lo / minor); i*minor <= hi+1e-9*step; i++ {
		v := i * minor
		t := plot.Tick{Value: v}
		if q := v / step; math.Abs(q-math.Round(q)) < 1e-6 {
			if math.Abs(v) < 1e-9*step {
				v = 0
			}
			t.Label = strconv.FormatFloat(v, 'f', dec, 64)
		}
		ts = append(ts, t)
	}
	return ts
}

// intTicks marks whole numbers only (generations).
type intTicks struct{}

func (intTicks) Ticks(lo, hi float64) []plot.Tick {
	first, last := math.Ceil(lo), math.Floor(hi)
	step := math.Max(1, math.Ceil((last-first)/12))
	var ts []plot.Tick
	for v := first; v <= last; v += step {
		ts = append(ts, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', 0, 64)})
	}
	return ts
}

// ladderPlot draws the ladder rating of the best model with its 95%
// interval against the trainer's CPU-hours or the self-play games.
func (rep *Report) ladderPlot(overGames bool) (*plot.Plot, error) {
	title, xlabel := "Ladder rating of the best model by CPU time", "trainer CPU-hours (cumulative)"
	if overGames {
		title, xlabel = "Ladder rating of the best model by self-play games", "self-play games (cumulative)"
	}
	p := newPlot(title, xlabel, "Elo on the ladder (random = 0)")
	p.Legend.Top = true
	p.Legend.Left = true
	var xys plotter.XYs
	var errs plotter.YErrors
	for _, l := range rep.Ladder {
		x := l.CPUHours
		if overGames {
			x = float64(l.TotalGames)
		}
		xys = append(xys, plotter.XY{X: x, Y: l.Elo})
		errs = append(errs, struct{ Low, High float64 }{l.Elo - l.Low, l.High - l.Elo})
	}
	if err := checkXYs(xys); err != nil {
		return nil, err
	}
	line, err := plotter.NewLine(xys)
	if err != nil {
		return nil, err
	}
	line.Color = colAccepted
	line.Width = vg.Points(1.5)
	p.Add(line)
	bars := &plotter.YErrorBars{XYs: xys, YErrors: errs, LineStyle: plotter.DefaultLineStyle, CapWidth: vg.Points(6)}
	bars.Color = colAccepted
	p.Add(bars)
	sc, err := plotter.NewScatter(xys)
	if err != nil {
		return nil, err
	}
	sc.GlyphStyle = draw.GlyphStyle{Color: colAccepted, Radius: vg.Points(4), Shape: draw.CircleGlyph{}}
	p.Add(sc)
	p.Legend.Add("best model (bar: 95% interval)", sc)
	padX(p, 0.03)
	padY(p, 0.08)
	return p, nil
}
