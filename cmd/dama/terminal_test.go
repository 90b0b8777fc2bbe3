package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"dama/internal/deps"
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

// The command list names each command's verbs from its table (issue 49:
// it listed tb as generate, probe and info, without verify and match);
// the table is the docs checker's (verbArgs), the usage and the command
// reference name each verb, and a word that is not a verb is refused,
// naming the verbs.
func TestCommandVerbs(t *testing.T) {
	_, list, _ := runCmd(t, "help")
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "commands.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(readmeVerbs.FindAllString(string(readme), -1)) == 0 {
		t.Error("README.md lists no command's verbs as a|b: the check checks nothing")
	}
	for name, c := range commands {
		var checker []string
		for v := range verbArgs[name] {
			if v != "" {
				checker = append(checker, v)
			}
		}
		sort.Strings(checker)
		if got := slices.Sorted(slices.Values(c.verbs)); !slices.Equal(got, checker) {
			t.Errorf("dama %s: verbs %v, the docs checker's verbArgs %v", name, c.verbs, checker)
		}
		if len(c.verbs) == 0 {
			continue
		}
		line := "  " + fmt.Sprintf("%-10s ", name) + c.summary + "; verbs: " + strings.Join(c.verbs, ", ") + "\n"
		if !strings.Contains(list, line) {
			t.Errorf("dama help has no line %q:\n%s", line, list)
		}
		for _, v := range c.verbs {
			if !strings.Contains(c.usage, v) {
				t.Errorf("dama %s: usage %q does not name the verb %s", name, c.usage, v)
			}
			if !strings.Contains(string(doc), "dama "+name+" "+v) {
				t.Errorf("docs/commands.md does not show dama %s %s", name, v)
			}
		}
		// A README row that lists verbs as a|b|c lists them all.
		for _, m := range readmeVerbs.FindAllStringSubmatch(string(readme), -1) {
			if m[1] == name && !slices.Equal(slices.Sorted(slices.Values(strings.Split(m[2], `\|`))), slices.Sorted(slices.Values(c.verbs))) {
				t.Errorf("README.md lists dama %s %s, want the verbs %v", name, m[2], c.verbs)
			}
		}
		code, _, errs := runCmd(t, name, "no-such-verb")
		want := fmt.Sprintf("dama %s: unknown verb %q (the verbs of dama %s: %s", name, "no-such-verb", name, strings.Join(c.verbs, ", "))
		if code != 1 || !strings.HasPrefix(errs, want) {
			t.Errorf("dama %s no-such-verb: exit %d, stderr %q; want %q", name, code, errs, want)
		}
	}
}

// readmeVerbs matches a README row's list of a command's verbs,
// "dama tb gen\|probe\|info" (the table escapes the bar).
var readmeVerbs = regexp.MustCompile("`dama ([a-z]+) ([a-z-]+(?:\\\\\\|[a-z-]+)+)")

// runCommand hands run a verb of the table, and only such a verb, with
// the flags around it parsed.
func TestVerbGate(t *testing.T) {
	var got []string
	c := &command{name: "fake", takesArgs: true, verbs: []string{"go", "stop"}, argsNote: "a note",
		run: func(e *env, fs *flag.FlagSet, args []string) error {
			verb, rest := verbOf(args)
			got = append([]string{verb}, rest...)
			return nil
		}}
	c.flags = func(fs *flagSet) { fs.Bool("quiet", false, "") }
	for _, tc := range []struct {
		args []string
		want []string
		err  string
	}{
		{nil, []string{""}, ""},
		{[]string{"go", "x", "--quiet"}, []string{"go", "x"}, ""},
		{[]string{"--quiet", "stop"}, []string{"stop"}, ""},
		{[]string{"went"}, nil, `unknown verb "went" (the verbs of dama fake: go, stop; a note)`},
	} {
		got = nil
		fs := newFlagSet(c)
		e := newEnv(io.Discard, io.Discard)
		if err := e.parseFlags(fs.FlagSet, tc.args); err != nil {
			t.Fatal(err)
		}
		err := e.runCommand(c, fs)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err || got != nil {
				t.Errorf("%v: %v, ran with %v; want %q", tc.args, err, got, tc.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%v: ran with %v, %v; want %v", tc.args, got, err, tc.want)
		}
	}
}

// The README's test section names every module that only the tests use
// (the browser driver, chromedp), which go test ./... downloads beyond
// what installing dama does, and says how to download them ahead (issue
// 49: go test downloaded modules the set-up did not mention).
func TestReadmeNamesTestModules(t *testing.T) {
	root := filepath.Join("..", "..")
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	start := strings.Index(text, "go test ./...")
	if start < 0 {
		t.Fatal("README.md shows no go test ./...")
	}
	section := text[start:]
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	if !strings.Contains(section, "go mod download") {
		t.Error("README.md's test section does not say that go mod download fetches the modules ahead")
	}
	linked := deps.Of(t, "dama/cmd/dama")
	testOnly := 0
	for _, m := range directModules(string(mod)) {
		if slices.ContainsFunc(linked, func(p string) bool { return p == m || strings.HasPrefix(p, m+"/") }) {
			continue
		}
		testOnly++
		parts := strings.Split(m, "/") // host, owner, name...
		named := false
		for _, p := range parts[1:] {
			named = named || strings.Contains(strings.ToLower(section), strings.ToLower(p))
		}
		if !named {
			t.Errorf("README.md's test section does not name %s, a module only the tests use", m)
		}
	}
	if testOnly == 0 { // the browser test's chromedp at least
		t.Error("no direct module of go.mod is for the tests only: the check checks nothing")
	}
}

// directModules returns the modules go.mod requires directly (not marked
// indirect).
func directModules(mod string) []string {
	var out []string
	block := false
	for line := range strings.Lines(mod) {
		f := strings.Fields(line)
		switch {
		case len(f) >= 2 && f[0] == "require" && f[1] == "(":
			block = true
		case block && len(f) > 0 && f[0] == ")":
			block = false
		case block && len(f) >= 2 && !strings.Contains(line, "// indirect"):
			out = append(out, f[0])
		case len(f) >= 3 && f[0] == "require" && !strings.Contains(line, "// indirect"):
			out = append(out, f[1])
		}
	}
	return out
}

// A PDN file cut short inside its last game shows what it holds, names the
// game and exits 1 (issue 49: show of a damaged file exited 0).
func TestShowPDNCutShort(t *testing.T) {
	text, err := os.ReadFile(filepath.Join("..", "..", "rules", "testdata", "sample.pdn"))
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "cut.pdn")
	end := strings.LastIndex(string(text), " ") // inside the last game's move text, before its result
	if err := os.WriteFile(cut, text[:end], 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := runCmd(t, "show", filepath.Join("..", "..", "rules", "testdata", "sample.pdn")); code != 0 || errs != "" {
		t.Fatalf("show of the whole sample: exit %d, stderr %q\n%s", code, errs, out)
	}
	code, out, errs := runCmd(t, "show", cut)
	if code != 1 || !strings.Contains(out, "game 3: the text ends before the game's result") || !strings.Contains(out, "after ") ||
		!strings.HasPrefix(errs, "dama show: "+cut+": 1 of its 3 games could not be read whole (the first: game 3: the text ends before") {
		t.Errorf("show of a file cut short: exit %d, stderr %q, stdout:\n%s", code, errs, out)
	}
}
