package report

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Plot files written by WritePlots.
const (
	lossPlotFile     = "losses.png"
	eloPlotFile      = "elo.png"
	eloGamesPlotFile = "elo_games.png"
	arenaPlotFile    = "arena.png"
	// ladderPlotFile and ladderGamesPlotFile show the ladder rating against the
	// trainer's CPU-hours and against self-play games.
	ladderPlotFile      = "ladder.png"
	ladderGamesPlotFile = "ladder_games.png"
)

// WritePlots writes the PNG plots that the records allow into dir (created
// if needed), each under a temporary name renamed into place, and returns
// the paths written: losses.png, elo.png and elo_games.png, arena.png,
// ladder.png and ladder_games.png. A plot without data is skipped. It
// says on w, after a blank line, what it wrote, or that there was nothing
// to draw.
func (rep *Report) WritePlots(w io.Writer, dir string) ([]string, error) {
	type job struct {
		name string
		make func() (*plot.Plot, error)
	}
	var jobs []job
	for _, j := range []struct {
		job
		points int // the data it draws; none, no plot
	}{
		{job{lossPlotFile, rep.lossPlot}, len(rep.Losses)},
		{job{eloPlotFile, func() (*plot.Plot, error) { return rep.eloPlot(false) }}, len(rep.Generations)},
		{job{eloGamesPlotFile, func() (*plot.Plot, error) { return rep.eloPlot(true) }}, len(rep.Generations)},
		{job{arenaPlotFile, rep.arenaPlot}, len(rep.Arena)},
		{job{ladderPlotFile, func() (*plot.Plot, error) { return rep.ladderPlot(false) }}, len(rep.Ladder)},
		{job{ladderGamesPlotFile, func() (*plot.Plot, error) { return rep.ladderPlot(true) }}, len(rep.Ladder)},
	} {
		if j.points > 0 {
			jobs = append(jobs, j.job)
		}
	}
	if len(jobs) == 0 {
		fmt.Fprintln(w, "\nno plots yet: nothing to draw")
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
	fmt.Fprintln(w)
	for _, p := range written {
		fmt.Fprintf(w, "wrote %s\n", p)
	}
	return written, nil
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

	sc, err := addMarks(p, acc, accErr, colAccepted, draw.CircleGlyph{})
	if err != nil {
		return nil, err
	}
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
		sc, err := addMarks(p, s.xys, s.errs, s.col, s.glyph)
		if err != nil {
			return nil, err
		}
		p.Legend.Add(s.name, sc)
	}
	padY(p, 0.08)
	return p, nil
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
	sc, err := addMarks(p, xys, errs, colAccepted, draw.CircleGlyph{})
	if err != nil {
		return nil, err
	}
	p.Legend.Add("best model (bar: 95% interval)", sc)
	padX(p, 0.03)
	padY(p, 0.08)
	return p, nil
}
