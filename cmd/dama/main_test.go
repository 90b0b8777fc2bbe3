package main

import (
	"bytes"
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
		if code, _, _ := runCmd(t, name, "--help"); code != 0 {
			t.Errorf("%s --help: exit %d, want 0", name, code)
		}
	}
}
