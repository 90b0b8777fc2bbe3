package report

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// BestAt is the run's best model once its generations had used a given
// trainer CPU time: the model a curve of strength against training rates
// at that point.
type BestAt struct {
	CPUHours float64 // the point asked for
	Gen      int     // the last generation finished within it (0: none)
	Used     float64 // trainer CPU-hours of generations 1..Gen
	Best     string  // the best model after generation Gen, relative to the run
	// Reached reports whether the run's generations have used that much
	// CPU time: a point beyond them names the best model so far, which
	// the run may still replace before it gets there.
	Reached bool
}

// BestAtCPU returns, for each point (trainer CPU-hours), the best model
// after the last generation whose cumulative CPU time (the records'
// cpu_s) is within it; a point before the first generation's end has
// Gen 0 and no model.
func (r *Report) BestAtCPU(points []float64) []BestAt {
	out := make([]BestAt, len(points))
	total := 0.0
	for _, g := range r.Generations {
		total += g.CPUSec / 3600
	}
	for i, h := range points {
		out[i].Reached = total >= h
		out[i].CPUHours = h
		used := 0.0
		for _, g := range r.Generations {
			used += g.CPUSec / 3600
			if used > h {
				break
			}
			out[i].Gen, out[i].Used, out[i].Best = g.Gen, used, g.Best
		}
	}
	return out
}

// ParseHours reads a comma-separated list of trainer CPU-hours ("0.5,1,2"),
// each positive and finite.
func ParseHours(s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		h, err := strconv.ParseFloat(f, 64)
		if err != nil || h <= 0 || math.IsInf(h, 0) || math.IsNaN(h) {
			return nil, fmt.Errorf("%q is not a positive number of hours (e.g. 0.5,1,2,4,8)", f)
		}
		out = append(out, h)
	}
	return out, nil
}

// WriteBestAt prints one line per point: the hours, the generation and
// the CPU-hours it had used, and the best model.
func WriteBestAt(w io.Writer, runDir string, bs []BestAt) error {
	for _, b := range bs {
		var err error
		switch {
		case b.Gen == 0:
			_, err = fmt.Fprintf(w, "%g CPU-hours: no generation finished yet\n", b.CPUHours)
		case !b.Reached:
			_, err = fmt.Fprintf(w, "%g CPU-hours: not reached yet (generation %d, %.2f CPU-hours so far, best %s/%s)\n", b.CPUHours, b.Gen, b.Used, runDir, b.Best)
		default:
			_, err = fmt.Fprintf(w, "%g CPU-hours: generation %d (%.2f CPU-hours), best %s/%s\n", b.CPUHours, b.Gen, b.Used, runDir, b.Best)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
