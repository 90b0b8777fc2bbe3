package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runCmd runs dama with args and returns its exit code, stdout and stderr.
func runCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestPerftCommand(t *testing.T) {
	code, out, errs := runCmd(t, "perft", "--depth", "6")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	want := []string{"1 7 ", "2 49 ", "3 302 ", "4 1469 ", "5 7361 ", "6 36473 "}
	if len(lines) != len(want) {
		t.Fatalf("got %d lines, want %d:\n%s", len(lines), len(want), out)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d = %q, want prefix %q", i+1, lines[i], w)
		}
	}
}

func TestMovesCommand(t *testing.T) {
	code, out, _ := runCmd(t, "moves", "--fen", "W:WK21,31:B10,18,27")
	if code != 0 || strings.TrimSpace(out) != "31x22x13x6" {
		t.Errorf("moves = %d %q, want 0 %q", code, out, "31x22x13x6")
	}
}

func TestBadInputIsOneLineError(t *testing.T) {
	for _, args := range [][]string{
		{"moves", "--fen", "W:W33:B1"},
		{"perft", "--fen", "X:W1"},
		{"perft", "--depth", "0"},
		{"moves", "extra"},
		{"arena", "random"},
		{"nosuchcommand"},
	} {
		code, _, errs := runCmd(t, args...)
		if code == 0 {
			t.Errorf("%v: exit 0, want non-zero", args)
		}
		if n := strings.Count(strings.TrimSpace(errs), "\n"); n != 0 || errs == "" {
			t.Errorf("%v: stderr %q, want one line", args, errs)
		}
	}
}

func TestEveryCommandHasHelp(t *testing.T) {
	for name := range commands {
		code, out, _ := runCmd(t, "help", name)
		if code != 0 || !strings.Contains(out, "usage: dama "+name) {
			t.Errorf("help %s: exit %d, output %q", name, code, out)
		}
		// Help asked for goes to stdout, so that "dama train --help | less"
		// shows it (issue 19, item 6).
		for _, h := range []string{"--help", "-h"} {
			if code, out, errs := runCmd(t, name, h); code != 0 || !strings.Contains(out, "usage: dama "+name) || errs != "" {
				t.Errorf("%s %s: exit %d, stdout %q, stderr %q; want the usage on stdout, exit 0", name, h, code, out, errs)
			}
		}
		// A bad flag is a usage error: one line on stderr that points to
		// the help, exit 2.
		want := "dama " + name + ": flag provided but not defined: -no-such-flag (see dama " + name + " -h)\n"
		if code, out, errs := runCmd(t, name, "--no-such-flag"); code != 2 || out != "" || errs != want {
			t.Errorf("%s --no-such-flag: exit %d, stdout %q, stderr %q; want %q on stderr, exit 2", name, code, out, errs, want)
		}
	}
}

// dama alone is a usage error (the command list on stderr, exit 2); dama
// help, -h and --help ask for the list (stdout, exit 0).
func TestCommandListOutput(t *testing.T) {
	if code, out, errs := runCmd(t); code != 2 || out != "" || !strings.Contains(errs, "commands:") {
		t.Errorf("dama: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	for _, h := range []string{"help", "-h", "--help"} {
		if code, out, errs := runCmd(t, h); code != 0 || errs != "" || !strings.Contains(out, "commands:") {
			t.Errorf("dama %s: exit %d, stdout %q, stderr %q", h, code, out, errs)
		}
	}
	if code, out, _ := runCmd(t, "model", "new", "--help"); code != 0 || !strings.Contains(out, "usage: dama model") {
		t.Errorf("dama model new --help: exit %d, stdout %q", code, out)
	}
}

func TestShowCommand(t *testing.T) {
	code, out, errs := runCmd(t, "show", "--fen", "W:WK21,31:B10,18,27")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"21 W", "31 w", "10 b", "27 b", "White to move"} {
		if !strings.Contains(out, want) {
			t.Errorf("show output lacks %q:\n%s", want, out)
		}
	}
	dir := t.TempDir()
	pdn := dir + "/g.pdn"
	if err := os.WriteFile(pdn, []byte("[GameType \"22\"]\n1. 22-18 11-15 2. 18-14 *\n\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs = runCmd(t, "show", pdn, "--ply", "2")
	if code != 0 || !strings.Contains(out, "after 2 of 3 plies") || !strings.Contains(out, "15 b") {
		t.Errorf("show --pdn: exit %d, stderr %q, output:\n%s", code, errs, out)
	}
	if code, _, _ := runCmd(t, "show", dir+"/missing.pdn"); code == 0 {
		t.Error("show of a missing PDN file exited 0")
	}
}

// Every numeric flag is checked against its range, NaN and infinities
// included, with the range in the message (issue 13, point 14).
func TestNumericFlagRanges(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"selfplay", "--model", "random", "--games", "1", "--out", dir, "--parallel", "-3"}, "--parallel -3 out of range [0, "},
		{[]string{"selfplay", "--model", "random", "--games", "1", "--out", dir, "--visits", "-1"}, "--visits -1 out of range [0, "},
		{[]string{"selfplay", "--model", "random", "--games", "1", "--out", dir, "--eval-batch", "-1"}, "--eval-batch -1 out of range [0, "},
		{[]string{"selfplay", "--model", "random", "--games", "1", "--out", dir, "--cache", "-1"}, "--cache -1 out of range [0, "},
		{[]string{"show", "x.pdn", "--ply", "-5"}, "--ply -5 out of range [-1, "},
		{[]string{"hub", "--model", "random", "--time", "NaN"}, `invalid value "NaN" for flag -time: want seconds (2, 0.5) or a duration`},
		{[]string{"hub", "--model", "random", "--time", "+Inf"}, `invalid value "+Inf" for flag -time: want seconds`},
		{[]string{"hub", "--model", "random", "--time", "2000000"}, "--time 2000000 out of range [0, 1000000] seconds"},
		{[]string{"serve", "--run", dir, "--http-max-time", "1h"}, "--http-max-time 1h out of range [0.01, 600] seconds"},
		{[]string{"analyze", "--model", "random", "--top", "-2"}, "--top -2 out of range [0, "},
		{[]string{"arena", "--a", "random", "--b", "random", "--threshold", "1.5"}, "--threshold 1.5 out of range [0, 1]"},
		{[]string{"arena", "--a", "random", "--b", "random", "--parallel", "0"}, "--parallel 0 out of range [1, "},
		{[]string{"ladder", "--model", "random", "--visits", "0"}, "--visits 0 needs a --time limit"},
		{[]string{"ladder", "--model", "random", "--visits", "-1"}, "--visits -1 out of range [0, "},
		{[]string{"ship", "--run", dir, "--parallel", "5000"}, "--parallel 5000 out of range [1, 4096]"},
	} {
		code, _, errs := runCmd(t, tc.args...)
		if code == 0 || !strings.Contains(errs, tc.want) || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q; want a one-line error containing %q", tc.args, code, errs, tc.want)
		}
	}
}

// A PDN file with a bad game in the middle: the other games show, the bad
// one is reported with its reason and shown up to the bad move (issue 13,
// point 2); whichever game is shown, the damaged file then exits 1 with a
// line naming it and its first bad game (issue 49: it exited 0).
func TestShowPDNWithBadGame(t *testing.T) {
	pdn := t.TempDir() + "/g.pdn"
	text := "[Event \"a\"]\n1. 22-18 11-15 1-0\n\n[Event \"b\"]\n1. 22-18 12-16 2. 21-17 99-1 *\n\n[Event \"c\"]\n1. 21-17 1/2-1/2\n"
	if err := os.WriteFile(pdn, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	damaged := func(errs string) bool {
		return strings.HasPrefix(errs, "dama show: "+pdn+": 1 of its 3 games could not be read whole (the first: game 2: ") && strings.Count(strings.TrimSpace(errs), "\n") == 0
	}
	code, out, errs := runCmd(t, "show", pdn, "--game", "3")
	if code != 1 || !damaged(errs) || !strings.Contains(out, "3 games: 2 read, 1 failed") || !strings.Contains(out, "game 2: ") || !strings.Contains(out, "move 2...") {
		t.Errorf("show --game 3: exit %d, stderr %q, output:\n%s", code, errs, out)
	}
	if !strings.Contains(out, "result 1/2-1/2") {
		t.Errorf("show --game 3: the result is not in PDN notation (1/2-1/2), as the file has it:\n%s", out)
	}
	code, out, errs = runCmd(t, "show", pdn, "--game", "1")
	if code != 1 || !damaged(errs) || !strings.Contains(out, "result 1-0") || strings.Contains(out, "2-0") {
		t.Errorf("show --game 1: exit %d, stderr %q; want result 1-0 as in the file:\n%s", code, errs, out)
	}
	code, out, errs = runCmd(t, "show", pdn, "--game", "2")
	if code != 1 || !damaged(errs) || !strings.Contains(out, "after 3 of 3 plies") || !strings.Contains(out, "stops before the bad move") {
		t.Errorf("show --game 2: exit %d, stderr %q, output:\n%s", code, errs, out)
	}
	// The same file without its bad game exits 0.
	good := t.TempDir() + "/good.pdn"
	if err := os.WriteFile(good, []byte(strings.Replace(text, " 99-1 ", " ", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := runCmd(t, "show", good, "--game", "2"); code != 0 || errs != "" || !strings.Contains(out, "3 games: 3 read, 0 failed") {
		t.Errorf("show of a sound file: exit %d, stderr %q, output:\n%s", code, errs, out)
	}
}

// A 10x10 file is named as not Italian 8x8 draughts, in one line and with
// a non-zero exit, instead of "0 read" and a list of illegal moves; a file
// of which no game could be read exits non-zero too (issue 19, item 6).
func TestShowPDNNothingRead(t *testing.T) {
	dir := t.TempDir()
	intl := filepath.Join(dir, "intl.pdn")
	text := "[Event \"a\"]\n1. 32-28 19-23 2. 28x19 14x23 3. 37-32 *\n\n[Event \"b\"]\n1. 33-29 18-23 2. 39-33 12-18 *\n"
	if err := os.WriteFile(intl, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCmd(t, "show", intl)
	if code != 1 || !strings.Contains(errs, intl+" is not Italian 8x8 draughts") || !strings.Contains(errs, "square 37") ||
		strings.Count(strings.TrimSpace(errs), "\n") != 0 || strings.Contains(out, "illegal move") {
		t.Errorf("show of a 10x10 file: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	bad := filepath.Join(dir, "bad.pdn")
	if err := os.WriteFile(bad, []byte("1. 22-18 11-15 2. 99-1 *\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs = runCmd(t, "show", bad)
	if code != 1 || !strings.Contains(out, "0 read, 1 failed") || !strings.Contains(errs, "none of its 1 games could be read") {
		t.Errorf("show of a file with no good game: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	// A file with no game at all (issue 20, item 6).
	for _, text := range []string{"", "{only a comment}\n\n"} {
		none := filepath.Join(dir, "none.pdn")
		if err := os.WriteFile(none, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errs = runCmd(t, "show", none)
		if code != 1 || out != "" || errs != "dama show: "+none+": no game in the file\n" {
			t.Errorf("show of a file of %q: exit %d, stdout %q, stderr %q; want one error line", text, code, out, errs)
		}
	}
}

// dama version and --version print the build's version, the one the Hub id
// line carries (issue 13, point 8).
func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}, {"-version"}} {
		code, out, errs := runCmd(t, args...)
		lines := strings.Split(out, "\n")
		if code != 0 || len(lines) != 5 || lines[0] != "dama "+buildVersion() || !strings.HasPrefix(lines[1], "commit  ") || !strings.HasPrefix(lines[2], "date    ") || !strings.HasPrefix(lines[3], "built   with go") || lines[4] != "" {
			t.Errorf("%v: exit %d, output %q, stderr %q; want dama %s, then its commit, date and toolchain", args, code, out, errs, buildVersion())
		}
	}
	if v := buildVersion(); v == "" || strings.ContainsAny(v, " \n") {
		t.Errorf("buildVersion() = %q", v)
	}
}

// Help texts say what applies to the command at hand (issue 13, point 19).
func TestHelpTexts(t *testing.T) {
	for _, tc := range []struct {
		cmd           string
		want, without string
	}{
		{"play", "seconds per move", "GUI"},
		{"analyze", "seconds per move", "GUI"},
		{"hub", "when the GUI sets no level", "for hub,"},
		{"arena", "PATH[@VISITS]", "where supported"},
	} {
		_, out, _ := runCmd(t, "help", tc.cmd)
		if !strings.Contains(out, tc.want) || strings.Contains(out, tc.without) {
			t.Errorf("help %s: want %q and no %q in:\n%s", tc.cmd, tc.want, tc.without, out)
		}
	}
}

// Progress written to a file or pipe is plain lines, no carriage-return
// frames (issue 13, point 18).
func TestProgressPlainInLogs(t *testing.T) {
	code, _, errs := runCmd(t, "selfplay", "--model", "random", "--games", "3", "--parallel", "3", "--visits", "4", "--out", t.TempDir())
	if code != 0 || strings.Contains(errs, "\r") || !strings.Contains(errs, "3/3") {
		t.Errorf("selfplay: exit %d, progress %q; want one plain line", code, errs)
	}
	// The line names its stage, as the trainer's lines do (issue 19, item 6).
	if !strings.HasPrefix(errs, "selfplay: ") || !strings.Contains(errs, " pos/s, mean ") {
		t.Errorf("selfplay progress %q does not start with its stage, selfplay:", errs)
	}
}

// TestCPUProfileEnv: DAMA_CPUPROFILE makes a command write a CPU profile;
// a path that cannot be created is a one-line error, not a panic.
func TestCPUProfileEnv(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cpu.prof")
	t.Setenv(cpuProfileEnv, path)
	if code, _, errs := runCmd(t, "version"); code != 0 {
		t.Fatalf("version with a profile: exit %d: %s", code, errs)
	}
	if st, err := os.Stat(path); err != nil || st.Size() == 0 {
		t.Fatalf("no profile written: %v", err)
	}
	t.Setenv(cpuProfileEnv, filepath.Join(path, "no", "such", "dir", "x.prof"))
	code, _, errs := runCmd(t, "version")
	if code != 1 || !strings.Contains(errs, cpuProfileEnv) || strings.Count(errs, "\n") != 1 {
		t.Errorf("unwritable profile: exit %d, stderr %q", code, errs)
	}
}

// usageRequired returns the flags a usage line shows as required: those
// outside square brackets.
func usageRequired(usage string) []string {
	var req []string
	depth := 0
	for i := 0; i < len(usage); i++ {
		switch c := usage[i]; {
		case c == '[':
			depth++
		case c == ']':
			depth--
		case depth == 0 && strings.HasPrefix(usage[i:], "--") && (i == 0 || usage[i-1] == ' ' || usage[i-1] == '|'):
			j := i + 2
			for j < len(usage) && strings.IndexByte(" |]=\n", usage[j]) < 0 {
				j++
			}
			req = append(req, usage[i+2:j])
			i = j - 1
		}
	}
	return req
}

// Usage lines show optional flags in brackets: a flag shown as required has
// no default, and the flags known to be optional are never shown as
// required (issue 19, item 6: hub, play and analyze showed --model
// CKPT|random as required, though the shipped model is their default).
func TestUsageShowsOptionalFlags(t *testing.T) {
	optional := map[string][]string{
		"hub": {"model"}, "play": {"model"}, "analyze": {"model"}, "export": {"model", "format"},
		"selfplay": {"worker", "config", "parallel", "visits", "seed", "pdn", "chunk"},
		"ladder":   {"visits", "games"},
		"ship":     {"model", "out"},
	}
	if got := usageRequired("--a X [--b Y] [--c Z [--d W]] --e|--f"); strings.Join(got, ",") != "a,e,f" {
		t.Fatalf("usageRequired = %v, want [a e f]", got)
	}
	for name, c := range commands {
		fs := newFlagSet(c)
		for _, f := range usageRequired(c.usage) {
			fl := fs.Lookup(f)
			if fl == nil {
				t.Errorf("%s: usage names --%s, which is no flag of the command", name, f)
				continue
			}
			if fl.DefValue != "" && fl.DefValue != "0" && fl.DefValue != "false" {
				t.Errorf("%s: usage shows --%s as required, but it has the default %q: put it in brackets", name, f, fl.DefValue)
			}
			for _, o := range optional[name] {
				if f == o {
					t.Errorf("%s: usage shows the optional --%s as required: %s", name, f, c.usage)
				}
			}
		}
	}
}

// TestFlagErrorOneLine: a bad flag, before or after the arguments, or a
// bad value, is one line naming the problem and the help, not the usage.
func TestFlagErrorOneLine(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"perft", "--depth", "x"}, `dama perft: invalid value "x" for flag -depth: parse error (see dama perft -h)`},
		{[]string{"games", "check", "dir", "--bogus"}, "dama games: flag provided but not defined: -bogus (see dama games -h)"},
		{[]string{"broker", "add-worker", "w1", "--run"}, "dama broker: flag needs an argument: -run (see dama broker -h)"},
	} {
		code, out, errs := runCmd(t, c.args...)
		if code != 2 || out != "" || errs != c.want+"\n" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and %q", c.args, code, out, errs, c.want)
		}
	}
}
