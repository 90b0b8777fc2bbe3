// Package timeflag is the flag type of every time that dama's commands
// take (--time, --max-cpu, --http-max-time): a bare number of seconds
// ("2", "0.5") or a Go duration ("1s", "500ms", "2m", "1h30m").
package timeflag

import (
	"errors"
	"flag"
	"math"
	"strconv"
	"strings"
	"time"
)

// Syntax says what a time flag takes, for help texts and errors.
const Syntax = "seconds (2, 0.5) or a duration (1s, 500ms, 2m)"

// ErrSyntax is the error of a value that is neither a number of seconds
// nor a duration.
var ErrSyntax = errors.New("want " + Syntax)

// Parse reads a time flag's value: a number of seconds or a Go duration
// (time.ParseDuration). A negative, infinite, NaN or too long time (beyond
// about 292 years, the most a time.Duration holds) is an error; a number
// of seconds is rounded to the nanosecond.
func Parse(s string) (time.Duration, error) {
	t := strings.TrimSpace(s)
	if sec, err := strconv.ParseFloat(t, 64); err == nil {
		switch {
		case math.IsNaN(sec) || math.IsInf(sec, 0):
			return 0, ErrSyntax
		case sec < 0:
			return 0, errors.New("negative: want a time of at least 0")
		case sec*float64(time.Second) >= math.MaxInt64:
			return 0, errors.New("too long for a time")
		}
		return time.Duration(math.Round(sec * float64(time.Second))), nil
	}
	d, err := time.ParseDuration(t)
	switch {
	case err != nil:
		return 0, ErrSyntax // time's message would call it a duration only
	case d < 0:
		return 0, errors.New("negative: want a time of at least 0")
	}
	return d, nil
}

// Value is a time flag: a flag.Value and a flag.Getter whose Get is the
// time.Duration. Its String is the value as the command line gave it (or
// the default, as a duration), so that errors quote what was typed.
type Value struct {
	d    *time.Duration
	text string
}

// New returns the flag value that sets *p, first set to def.
func New(p *time.Duration, def time.Duration) *Value {
	*p = def
	return &Value{d: p}
}

// Var declares on fs the time flag name that sets *p, default def; the
// help text usage gets the syntax added, and the flag's value is called
// TIME in the help ("-time TIME").
func Var(fs *flag.FlagSet, p *time.Duration, name string, def time.Duration, usage string) {
	fs.Var(New(p, def), name, usage+"; `TIME` is "+Syntax)
}

// Duration declares on fs the time flag name, default def, and returns
// where its value is kept.
func Duration(fs *flag.FlagSet, name string, def time.Duration, usage string) *time.Duration {
	p := new(time.Duration)
	Var(fs, p, name, def, usage)
	return p
}

// Set reads s with Parse.
func (v *Value) Set(s string) error {
	d, err := Parse(s)
	if err != nil {
		return err
	}
	*v.d, v.text = d, s
	return nil
}

// String is the value as given, or the default as a duration ("10s";
// "0s" for none, which the flag package's help leaves out).
func (v *Value) String() string {
	switch {
	case v == nil || v.d == nil:
		return "0s"
	case v.text != "":
		return v.text
	}
	return v.d.String()
}

// Get returns the time.Duration.
func (v *Value) Get() any {
	if v == nil || v.d == nil {
		return time.Duration(0)
	}
	return *v.d
}
