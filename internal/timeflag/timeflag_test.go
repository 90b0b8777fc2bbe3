package timeflag

import (
	"errors"
	"flag"
	"io"
	"strings"
	"testing"
	"time"
)

// Parse takes a bare number as seconds and anything else as a Go
// duration, and refuses what is neither, negative or not finite.
func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
	}{
		{"2", 2 * time.Second},
		{"0", 0},
		{"0.5", 500 * time.Millisecond},
		{"0.001", time.Millisecond},
		{"1e3", 1000 * time.Second},
		{" 3 ", 3 * time.Second},
		{"1s", time.Second},
		{"500ms", 500 * time.Millisecond},
		{"2m", 2 * time.Minute},
		{"1h30m", 90 * time.Minute},
		{"0s", 0},
		{"1.5s", 1500 * time.Millisecond},
	} {
		if got, err := Parse(tc.in); err != nil || got != tc.want {
			t.Errorf("Parse(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"", "want seconds"},
		{"1x", "want seconds (2, 0.5) or a duration (1s, 500ms, 2m)"},
		{"s", "want seconds"},
		{"NaN", "want seconds"},
		{"Inf", "want seconds"},
		{"-1", "negative"},
		{"-1s", "negative"},
		{"1e300", "too long"},
		{"99999999999h", "want seconds"},
	} {
		got, err := Parse(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, %v; want an error with %q", tc.in, got, err, tc.want)
		}
	}
	if _, err := Parse("1x"); !errors.Is(err, ErrSyntax) {
		t.Errorf("Parse(1x): %v, want ErrSyntax", err)
	}
}

// A time flag on a flag set: its default, the value given in either form,
// an error naming the flag, help that says what it takes, and a Get for
// range checks.
func TestFlag(t *testing.T) {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	d := Duration(fs, "time", 10*time.Second, "seconds per move")
	var zero time.Duration
	Var(fs, &zero, "max-cpu", 0, "CPU time")
	if *d != 10*time.Second || fs.Lookup("time").DefValue != "10s" || fs.Lookup("max-cpu").DefValue != "0s" {
		t.Errorf("defaults: %v, %q, %q", *d, fs.Lookup("time").DefValue, fs.Lookup("max-cpu").DefValue)
	}
	if err := fs.Parse([]string{"--time", "1.5", "--max-cpu", "30m"}); err != nil {
		t.Fatal(err)
	}
	if *d != 1500*time.Millisecond || zero != 30*time.Minute {
		t.Errorf("--time 1.5 --max-cpu 30m: %v, %v", *d, zero)
	}
	f := fs.Lookup("time")
	if f.Value.String() != "1.5" || f.Value.(flag.Getter).Get() != 1500*time.Millisecond {
		t.Errorf("String %q Get %v", f.Value, f.Value.(flag.Getter).Get())
	}
	if !strings.Contains(f.Usage, Syntax) {
		t.Errorf("help %q does not say what the flag takes", f.Usage)
	}
	err := fs.Parse([]string{"--time", "1 s"})
	if err == nil || !strings.Contains(err.Error(), "-time") || !strings.Contains(err.Error(), "want seconds") {
		t.Errorf("--time '1 s': %v, want an error naming the flag", err)
	}
	// The flag package's help builds a zero Value to tell a default from
	// none: it must not panic.
	var help strings.Builder
	fs.SetOutput(&help)
	fs.PrintDefaults()
	if h := help.String(); !strings.Contains(h, "(default 10s)") || strings.Contains(h, "default 0s") || !strings.Contains(h, "-time TIME") || !strings.Contains(h, "TIME is "+Syntax) {
		t.Errorf("help:\n%s", help.String())
	}
}
