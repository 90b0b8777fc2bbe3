package main

import (
	"flag"
	"io"
	"sort"
	"strings"
	"testing"
	"time"

	"dama/internal/timeflag"
)

// isTimeFlag reports whether a flag's name says it is a time.
func isTimeFlag(name string) bool {
	return name == "time" || strings.HasSuffix(name, "-time") || name == "max-cpu"
}

// Every time flag of every command is one type, timeflag: it takes a bare
// number of seconds and a Go duration alike (issue 49: --time 1s was a
// parse error while train --max-cpu 30m took durations), its help says
// so, and no other flag holds a time.
func TestTimeFlagsOneType(t *testing.T) {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	seen := 0
	for _, name := range names {
		fs := newFlagSet(commands[name])
		fs.VisitAll(func(f *flag.Flag) {
			if _, old := fs.old[f.Name]; old {
				return
			}
			_, isTime := f.Value.(*timeflag.Value)
			holdsDuration := false
			if g, ok := f.Value.(flag.Getter); ok {
				_, holdsDuration = g.Get().(time.Duration)
			}
			switch {
			case isTimeFlag(f.Name) && !isTime:
				t.Errorf("dama %s --%s is a %T, not a timeflag.Value", name, f.Name, f.Value)
				return
			case !isTimeFlag(f.Name) && (isTime || holdsDuration):
				t.Errorf("dama %s --%s holds a time but its name does not say so (isTimeFlag)", name, f.Name)
				return
			case !isTime:
				return
			}
			seen++
			if !strings.Contains(f.Usage, timeflag.Syntax) {
				t.Errorf("dama %s --%s: help %q does not say it takes %s", name, f.Name, f.Usage, timeflag.Syntax)
			}
			for in, want := range map[string]time.Duration{"2": 2 * time.Second, "0.5": 500 * time.Millisecond, "1s": time.Second, "500ms": 500 * time.Millisecond, "2m": 2 * time.Minute} {
				fs := newFlagSet(commands[name])
				fs.SetOutput(io.Discard)
				if err := fs.Parse([]string{"--" + f.Name, in}); err != nil {
					t.Errorf("dama %s --%s %s: %v", name, f.Name, in, err)
					continue
				}
				if got := fs.Lookup(f.Name).Value.(flag.Getter).Get(); got != want {
					t.Errorf("dama %s --%s %s = %v, want %v", name, f.Name, in, got, want)
				}
			}
		})
	}
	if seen < 7 { // --time of analyze, hub, ladder, play; --max-cpu; --http-max-time of serve and train
		t.Errorf("%d time flags found, want at least 7", seen)
	}
	// A bad time names the flag and says what it takes, in one line.
	code, _, errs := runCmd(t, "analyze", "--time", "1 sec")
	if code != 2 || !strings.Contains(errs, `invalid value "1 sec" for flag -time: want `+timeflag.Syntax) || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
		t.Errorf("analyze --time '1 sec': exit %d, stderr %q; want one line naming -time", code, errs)
	}
}
