package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"dama/arena"
	"dama/player"
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

// An interrupted match still writes the whole pairs it counted to
// --pdn, and --judge reads back the result it printed.
func TestArenaInterruptedPDN(t *testing.T) {
	pdn := filepath.Join(t.TempDir(), "part.pdn")
	var out, errw bytes.Buffer
	var m []string
	// The interrupt comes after a time: longer until it finds a pair
	// finished and the match not over (a slow or a fast machine); 2000
	// games of these players last minutes, a pair milliseconds.
	for wait := 50 * time.Millisecond; m == nil && wait < time.Minute; wait *= 2 {
		e := newEnv(&out, &errw)
		e.interrupt = func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), wait)
		}
		out.Reset()
		errw.Reset()
		code := runEnv(e, []string{"arena", "--a", "alphabeta:4", "--b", "alphabeta:3", "--games", "2000", "--quiet", "--pdn", pdn})
		m = regexp.MustCompile(`interrupted after (\d+) counted games: (.*)\n`).FindStringSubmatch(out.String())
		if code != 1 && m != nil || code == 1 && m == nil && !strings.Contains(errw.String(), "deadline exceeded") {
			t.Fatalf("exit %d, stdout %q, stderr %q; want 1 and the games counted", code, out.String(), errw.String())
		}
	}
	if m == nil {
		t.Fatal("no interrupt found a pair finished")
	}
	text, err := os.ReadFile(pdn)
	if err != nil {
		t.Fatalf("interrupted after %s games: %v", m[1], err)
	}
	recs, err := rules.ParsePDN(string(text))
	if err != nil || strconv.Itoa(len(recs)) != m[1] {
		t.Errorf("--pdn holds %d games (%v), want the %s counted", len(recs), err, m[1])
	}
	out.Reset()
	if code := run([]string{"arena", "judge", pdn}, &out, &errw); code != 0 || out.String() != pdn+": "+m[2]+"\n" {
		t.Errorf("--judge: exit %d, %q; want the interrupted match's %q", code, out.String(), m[2])
	}
}

// --judge reads back the matches --pdn wrote: each file's result is the
// match's own line, and two files pool into one.
func TestArenaJudge(t *testing.T) {
	dir := t.TempDir()
	var lines []string
	var files []string
	for _, seed := range []string{"1", "2"} {
		var out, errw bytes.Buffer
		pdn := filepath.Join(dir, "m"+seed+".pdn")
		if code := run([]string{"arena", "--a", "alphabeta:2", "--b", "alphabeta:1", "--games", "6", "--seed", seed, "--quiet", "--pdn", pdn}, &out, &errw); code != 0 {
			t.Fatalf("exit %d: %s", code, errw.String())
		}
		lines = append(lines, strings.SplitN(out.String(), "\n", 2)[0])
		files = append(files, pdn)
	}
	var out, errw bytes.Buffer
	if code := run(append([]string{"arena", "judge"}, files...), &out, &errw); code != 0 {
		t.Fatalf("--judge: exit %d: %s", code, errw.String())
	}
	got := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(got) != 3 {
		t.Fatalf("--judge of two files printed %d lines, want 3:\n%s", len(got), out.String())
	}
	for i, f := range files {
		if want := f + ": " + lines[i]; got[i] != want {
			t.Errorf("--judge line %d:\n%s\nwant the match's own:\n%s", i+1, got[i], want)
		}
	}
	if !strings.HasPrefix(got[2], "pooled, 2 matches: alphabeta:2 vs alphabeta:1: games 12 ") {
		t.Errorf("pooled line %q", got[2])
	}
	// A game that cannot be read is left out with its pair, named on
	// stdout; the others are judged, and the exit status is 1 (issue 49:
	// one bad game refused the whole file).
	text, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	games := strings.SplitAfter(string(text), "\n\n[Event")
	i := strings.Index(games[1], "\n1. ")
	games[1] = games[1][:i] + "\n1. 17-17 " + games[1][i+len("\n1. "):]
	damaged := filepath.Join(dir, "damaged.pdn")
	if err := os.WriteFile(damaged, []byte(strings.Join(games, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errw.Reset()
	code := run([]string{"arena", "judge", damaged}, &out, &errw)
	got = strings.Split(strings.TrimSpace(out.String()), "\n")
	if code != 1 || len(got) != 3 || !strings.HasPrefix(got[0], damaged+": left out game 1: Round 1 is left out with its pair, Round 2") ||
		!strings.HasPrefix(got[1], damaged+": left out game 2: ") || !strings.Contains(got[1], "17-17") ||
		!strings.HasPrefix(got[2], damaged+": alphabeta:2 vs alphabeta:1: games 4 ") ||
		strings.TrimSpace(errw.String()) != "dama arena: judge: 2 games left out (named above), the others judged" {
		t.Errorf("judge of a file with game 2 damaged: exit %d, stdout:\n%s\nstderr %q", code, out.String(), errw.String())
	}
	bad := filepath.Join(dir, "bad.pdn")
	if err := os.WriteFile(bad, []byte(`[White "a"][Black "b"] 1-0`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"arena", "judge", files[0], "--a", "random"}, "give no --a or --b"},
		{[]string{"arena", "judge", filepath.Join(dir, "none.pdn")}, "none.pdn"},
		{[]string{"arena", "judge", bad}, "bad.pdn: arena: game 1: no Round tag"},
	} {
		out.Reset()
		errw.Reset()
		if code := run(c.args, &out, &errw); code != 1 || !strings.Contains(errw.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 1 and %q", c.args, code, errw.String(), c.want)
		}
	}
}

// Where the games' results go is checked before the first game: an
// unwritable --pdn of arena or --out of ladder --calibrate, and players
// listed twice (issue 20, item 6: the error came after every game).
func TestResultFileCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "no", "games.pdn")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"arena", "--a", "alphabeta:1", "--b", "random", "--games", "4", "--pdn", missing}, "--pdn: writing " + missing},
		{[]string{"arena", "--a", "alphabeta:1", "--b", "random", "--games", "4", "--pdn", dir}, "--pdn: writing " + dir + ": it is a folder"},
		{[]string{"ladder", "calibrate", "--players", "random,alphabeta:1", "--games", "4", "--out", missing}, "--out: writing " + missing},
		{[]string{"ladder", "calibrate", "--players", "random,alphabeta:1,ab:1", "--games", "4", "--out", filepath.Join(dir, "ladder.json")}, "are both alphabeta:1"},
		// The match's own settings too (issue 47: a progress line came first).
		{[]string{"arena", "--a", "random", "--b", "random", "--games", "3"}, "games = 3: want an even number"},
		{[]string{"arena", "--a", "random", "--b", "random", "--sprt", "0,30", "--threshold", "0.55"}, "with an SPRT: choose one gate"},
	} {
		// Without --quiet a game played would show on stderr.
		code, out, errs := runCmd(t, tc.args...)
		if code != 1 || out != "" || !strings.Contains(errs, tc.want) || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("dama %s: exit %d, stdout %q, stderr %q; want only a one-line error with %q", strings.Join(tc.args, " "), code, out, errs, tc.want)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("the refused commands left %v", ents)
	}
}

// ladder --extend adds rungs to a ladder file and keeps its calibration
// games: the new file holds the old matches and the new rung's, and is
// read as a ladder; a player already a rung, or --extend with
// --calibrate, is refused with one line before any game.
func TestLadderExtend(t *testing.T) {
	dir := t.TempDir()
	base, ext := filepath.Join(dir, "base.json"), filepath.Join(dir, "ext.json")
	if code, _, errs := runCmd(t, "ladder", "calibrate", "--players", "random,alphabeta:1", "--games", "2", "--out", base, "--quiet"); code != 0 {
		t.Fatalf("calibrate: exit %d: %s", code, errs)
	}
	code, out, errs := runCmd(t, "ladder", "extend", "--ladder", base, "--players", "alphabeta:2", "--games", "2", "--out", ext, "--quiet")
	if code != 0 {
		t.Fatalf("extend: exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "wrote "+ext) {
		t.Errorf("extend printed %q, want it to name %s", out, ext)
	}
	old, err := arena.ReadLadder(base)
	if err != nil {
		t.Fatal(err)
	}
	l, err := arena.ReadLadder(ext)
	if err != nil {
		t.Fatal(err)
	}
	if got := l.Players(); len(got) != 3 || !slices.Contains(got, "alphabeta:2") {
		t.Errorf("extended rungs %v, want the two of %s and alphabeta:2", got, base)
	}
	if len(l.Matches) != len(old.Matches)+2 || l.Matches[0] != old.Matches[0] {
		t.Errorf("extended matches %v, want %v and alphabeta:2's two", l.Matches, old.Matches)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"ladder", "extend", "--ladder", base, "--players", "ab:1", "--games", "2", "--out", filepath.Join(dir, "x.json")}, "already a rung"},
		{[]string{"ladder", "extend", "calibrate", "--ladder", base, "--players", "alphabeta:2", "--games", "2", "--out", filepath.Join(dir, "x.json")}, `ladder extend: unexpected argument "calibrate"`},
		{[]string{"ladder", "extend", "--ladder", base, "--games", "2", "--out", filepath.Join(dir, "x.json")}, "ladder extend needs --players"},
		{[]string{"ladder", "extend", "--ladder", base, "--players", "classic:99", "--games", "2", "--out", filepath.Join(dir, "x.json")}, "--players"},
	} {
		code, out, errs := runCmd(t, tc.args...)
		if code != 1 || out != "" || !strings.Contains(errs, tc.want) || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("dama %s: exit %d, stdout %q, stderr %q; want only a one-line error with %q", strings.Join(tc.args, " "), code, out, errs, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "x.json")); err == nil {
		t.Errorf("a refused extension wrote its --out")
	}
}

// TestArenaHubEngine: dama hub (this test binary run as dama) plays an
// arena match as an external engine, at the level of its spec, its
// games recorded, its log in the file named on stderr.
func TestArenaHubEngine(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("DAMA_TEST_AS_MAIN", "1") // the engine's process runs as dama
	spec := "hub@20:" + player.JoinCommand([]string{exe, "hub", "--model", "random"})
	pdn := filepath.Join(t.TempDir(), "games.pdn")
	var out, errw bytes.Buffer
	if code := run([]string{"arena", "--a", "random", "--b", spec, "--games", "2", "--parallel", "1", "--max-plies", "80", "--quiet", "--pdn", pdn}, &out, &errw); code != 0 {
		t.Fatalf("exit %d: %s", code, errw.String())
	}
	if !strings.HasPrefix(out.String(), "random vs "+spec+": games 2 ") || strings.Contains(out.String(), "forfeit") {
		t.Errorf("summary %q: want 2 games of random vs %s without forfeits", out.String(), spec)
	}
	m := regexp.MustCompile(`the engine's stderr and the protocol in (\S+)`).FindStringSubmatch(errw.String())
	if m == nil {
		t.Fatalf("stderr names no log: %q", errw.String())
	}
	t.Cleanup(func() { os.Remove(m[1]) })
	log, err := os.ReadFile(m[1])
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"> level nodes=20", "< id name=dama", "< done move="} {
		if !strings.Contains(string(log), want) {
			t.Errorf("the engine's log lacks %q", want)
		}
	}
	text, err := os.ReadFile(pdn)
	if err != nil {
		t.Fatal(err)
	}
	if recs, err := rules.ParsePDN(string(text)); err != nil || len(recs) != 2 || !strings.Contains(string(text), `[Black "`+spec+`"]`) {
		t.Errorf("--pdn: %d games, %v:\n%s", len(recs), err, text)
	}
}
