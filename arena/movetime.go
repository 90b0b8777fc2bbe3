package arena

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Bounds of a time per move given in a player spec (tSECONDS): at least a
// millisecond, at most an hour.
const (
	minMoveTime = time.Millisecond
	maxMoveTime = time.Hour
)

// MoveTimeSyntax describes the time forms ParseMoveTime reads, for errors
// and usage texts.
const MoveTimeSyntax = "want t0.25 or t1.0 in seconds, or t2s or t250ms with a unit; 0.001..3600 s"

// ParseMoveTime reads the time per move after the "t" of a player spec
// ("PATH@t0.25", "classic:t0.25"): seconds written with a decimal point
// ("0.25", "1.0") or with a unit ("2s", "250ms"). A bare integer is
// refused, since classic:tMS has long read one as milliseconds and
// "t1" would otherwise mean a second here and a millisecond there. Zero,
// negative, NaN, infinite and times outside 0.001..3600 seconds are errors.
func ParseMoveTime(s string) (time.Duration, error) {
	num, scale, unit := s, 1.0, true
	switch {
	case strings.HasSuffix(s, "ms"):
		num, scale = s[:len(s)-2], 1e-3
	case strings.HasSuffix(s, "s"):
		num = s[:len(s)-1]
	default:
		unit = false
	}
	x, err := strconv.ParseFloat(num, 64)
	switch {
	case err != nil || math.IsNaN(x) || math.IsInf(x, 0):
		return 0, fmt.Errorf("time %q is not a finite number of seconds (%s)", s, MoveTimeSyntax)
	case !unit && !strings.Contains(num, "."):
		return 0, fmt.Errorf("time %q needs a decimal point or a unit (%s)", s, MoveTimeSyntax)
	}
	d, err := MoveTime(x * scale)
	if err != nil {
		return 0, fmt.Errorf("time %q is out of range (%s)", s, MoveTimeSyntax)
	}
	return d, nil
}

// MoveTime checks a time per move given in seconds (a flag's value): it
// must be finite and within 0.001..3600 seconds.
func MoveTime(sec float64) (time.Duration, error) {
	if math.IsNaN(sec) || sec < minMoveTime.Seconds() || sec > maxMoveTime.Seconds() {
		return 0, fmt.Errorf("time %v s per move is out of range 0.001..3600 s", sec)
	}
	return time.Duration(math.Round(sec * float64(time.Second))), nil
}
