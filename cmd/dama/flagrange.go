package main

import (
	"flag"
	"fmt"
	"math"
	"strconv"
	"time"

	"dama/player"
)

// flagRange is the allowed range of a numeric flag; note says what a
// special value means (e.g. "0: the default").
type flagRange struct {
	lo, hi float64
	note   string
}

// limit declares the range [lo, hi] of the numeric flag name of fs. Every
// flag set's numeric flags are checked after parsing, the way config keys
// are: out of range, NaN or infinite is a usage error that names the range.
func limit(fs *flagSet, name string, lo, hi float64, note string) {
	if fs.Lookup(name) == nil {
		panic("dama: limit of undeclared flag --" + name)
	}
	fs.ranges[name] = flagRange{lo, hi, note}
}

// limitPlayer declares the ranges of the numeric player flags f bound
// on fs (player.Flags.Ranges).
func limitPlayer(fs *flagSet, f *player.Flags) {
	for _, r := range f.Ranges() {
		limit(fs, r.Flag, r.Lo, r.Hi, r.Note)
	}
}

// checkRanges checks the numeric flags of fs against their declared
// ranges, and every float flag against NaN and infinities.
func (fs *flagSet) checkRanges() error {
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		if err != nil {
			return
		}
		g, ok := f.Value.(flag.Getter)
		if !ok {
			return
		}
		var v float64
		unit := ""
		switch x := g.Get().(type) {
		case time.Duration: // a time flag (timeflag): its range in seconds
			v, unit = x.Seconds(), " seconds"
		case int:
			v = float64(x)
		case int64:
			v = float64(x)
		case uint:
			v = float64(x)
		case uint64:
			v = float64(x)
		case float64:
			v = x
			if math.IsNaN(v) {
				err = fmt.Errorf("--%s %s is not a number", f.Name, f.Value)
				return
			}
		default:
			return
		}
		r, ok := fs.ranges[f.Name]
		if !ok {
			if math.IsInf(v, 0) {
				err = fmt.Errorf("--%s %s must be finite", f.Name, f.Value)
			}
			return
		}
		if v < r.lo || v > r.hi || math.IsInf(v, 0) {
			note := ""
			if r.note != "" {
				note = " (" + r.note + ")"
			}
			err = fmt.Errorf("--%s %s out of range [%s, %s]%s%s", f.Name, f.Value, fmtBound(r.lo), fmtBound(r.hi), unit, note)
		}
	})
	return err
}

// fmtBound writes a bound as people read it: whole numbers in full
// (1000000, not 1e+06).
func fmtBound(x float64) string {
	if x == math.Trunc(x) && math.Abs(x) < 1e15 {
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}
