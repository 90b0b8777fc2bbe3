package arena

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestParseMoveTime(t *testing.T) {
	for s, want := range map[string]time.Duration{
		"0.25":   250 * time.Millisecond,
		"1.0":    time.Second,
		".5":     500 * time.Millisecond,
		"2s":     2 * time.Second,
		"0.05s":  50 * time.Millisecond,
		"250ms":  250 * time.Millisecond,
		"1ms":    time.Millisecond,
		"0.001":  time.Millisecond,
		"3600.0": time.Hour,
		"3600s":  time.Hour,
	} {
		if got, err := ParseMoveTime(s); err != nil || got != want {
			t.Errorf("ParseMoveTime(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for s, why := range map[string]string{
		"":        "not a finite number",
		"1":       "decimal point",
		"250":     "decimal point",
		"0":       "decimal point",
		"0.0":     "out of range",
		"0s":      "out of range",
		"-0.25":   "out of range",
		"-1s":     "out of range",
		"0.0009":  "out of range",
		"0.5ms":   "out of range",
		"3600.01": "out of range",
		"3601s":   "out of range",
		"1e9s":    "out of range",
		"NaN":     "not a finite number",
		"nan.0":   "not a finite number",
		"Inf":     "not a finite number",
		"+Infs":   "not a finite number",
		"-inf":    "not a finite number",
		"x.5":     "not a finite number",
		"0.25m":   "not a finite number",
		"ms":      "not a finite number",
	} {
		_, err := ParseMoveTime(s)
		if err == nil || !strings.Contains(err.Error(), why) || !strings.Contains(err.Error(), "0.001..3600") || strings.Contains(err.Error(), "\n") {
			t.Errorf("ParseMoveTime(%q): err %v, want one line saying %q and the range", s, err, why)
		}
	}
}

func TestMoveTime(t *testing.T) {
	if d, err := MoveTime(0.25); err != nil || d != 250*time.Millisecond {
		t.Errorf("MoveTime(0.25) = %v, %v", d, err)
	}
	for _, bad := range []float64{0, -1, math.NaN(), math.Inf(1), math.Inf(-1), 3600.5, 1e-4} {
		if _, err := MoveTime(bad); err == nil || !strings.Contains(err.Error(), "0.001..3600") {
			t.Errorf("MoveTime(%v): err %v, want the range", bad, err)
		}
	}
}
