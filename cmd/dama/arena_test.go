package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dama/rules"
)

func TestArenaCommand(t *testing.T) {
	var out, errw bytes.Buffer
	pdn := filepath.Join(t.TempDir(), "games.pdn")
	code := run([]string{"arena", "--a", "alphabeta:2", "--b", "random", "--games", "6", "--parallel", "2", "--sprt", "0,50", "--quiet", "--pdn", pdn}, &out, &errw)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errw.String())
	}
	text, err := os.ReadFile(pdn)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := rules.ParsePDN(string(text))
	if err != nil || len(recs) != 6 {
		t.Errorf("--pdn wrote %d games (err %v), want 6", len(recs), err)
	}
	// Every game carries the seven standard tags, results as 1-0, 0-1, 1/2-1/2.
	if n := strings.Count(string(text), "[Result \""); n != 6 || strings.Contains(string(text), " 2-0\n") || strings.Contains(string(text), " 0-2\n") {
		t.Errorf("--pdn: %d Result tags, want 6 and no 2-0 or 0-2 results:\n%s", n, text)
	}
	for _, r := range recs {
		if ev, _ := r.Tag("Event"); !strings.Contains(ev, "alphabeta:2 vs random") {
			t.Errorf("--pdn: Event %q, want the match named", ev)
		}
	}
	got := out.String()
	for _, w := range []string{"alphabeta:2 vs random", "games 6", "score", "elo", "LOS", "verdict"} {
		if !strings.Contains(got, w) {
			t.Errorf("output %q lacks %q", got, w)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"arena", "--a", "random"}, "--b are required"},
		{[]string{"arena", "--a", "minimax", "--b", "random"}, `unknown player "minimax"`},
		{[]string{"arena", "--a", "random", "--b", "random", "--games", "5"}, "games = 5"},
		{[]string{"arena", "--a", "random", "--b", "random", "--sprt", "30,0"}, "--sprt"},
		{[]string{"arena", "--a", "random", "--b", "random", "--sprt", "x,1"}, `"x" is not a number`},
		{[]string{"arena", "--a", "random", "--b", "random", "--sprt", "0,30,0.9,0.05"}, "alpha = 0.9: want a value in (0,0.5]"},
		{[]string{"arena", "--a", "random", "--b", "random", "--sprt", "0,30,0.05,0"}, "beta = 0: want a value in (0,0.5]"},
	} {
		out.Reset()
		errw.Reset()
		if code := run(c.args, &out, &errw); code != 1 || !strings.Contains(errw.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 1 and %q", c.args, code, errw.String(), c.want)
		}
	}
}
