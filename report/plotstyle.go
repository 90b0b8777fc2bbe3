package report

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"strconv"

	"dama/runfolder"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
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

// addMarks adds the points xys to p as glyphs of colour col and shape
// glyph with the error bars errs, and returns the glyphs for the legend.
func addMarks(p *plot.Plot, xys plotter.XYs, errs plotter.YErrors, col color.Color, glyph draw.GlyphDrawer) (*plotter.Scatter, error) {
	bars := &plotter.YErrorBars{XYs: xys, YErrors: errs, LineStyle: plotter.DefaultLineStyle, CapWidth: vg.Points(6)}
	bars.Color = col
	p.Add(bars)
	sc, err := plotter.NewScatter(xys)
	if err != nil {
		return nil, err
	}
	sc.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(4), Shape: glyph}
	p.Add(sc)
	return sc, nil
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
