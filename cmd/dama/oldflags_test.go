package main

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"dama/player"
)

// Every old spelling (docs/commands.md) still works, doing what the new
// one does, with one line on stderr that names the new spelling (issue 46:
// one word, one meaning; modes are verbs). The help lists none of them.
func TestOldSpellings(t *testing.T) {
	dir := t.TempDir()
	pdn := filepath.Join(dir, "g.pdn")
	if err := os.WriteFile(pdn, []byte("[GameType \"22\"]\n1. 22-18 11-15 2. 18-14 *\n\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tables := filepath.Join(dir, "tb")
	ladder := filepath.Join(dir, "ladder.json")
	missing := filepath.Join(dir, "missing")
	for _, tc := range []struct {
		args []string
		note string // the line's old and new spellings
		code int
		want string // in stdout (exit 0) or stderr
	}{
		{[]string{"analyze", "--model", "random", "--visits", "8", "--parallel", "2"}, "analyze --parallel is now --batch", 0, "Best move"},
		{[]string{"hub", "--model", "random", "--parallel", "0"}, "hub --parallel is now --batch", 2, "--batch 0 out of range [1, 256]"},
		{[]string{"play", "--model", "random", "--parallel", "300"}, "play --parallel is now --batch", 2, "--batch 300 out of range"},
		{[]string{"selfplay", "--model", "random", "--games", "1", "--visits", "4", "--out", filepath.Join(dir, "sp"), "--quiet", "--batch", "8"}, "selfplay --batch is now --eval-batch", 0, ""},
		{[]string{"selfplay", "--model", "random", "--games", "1", "--visits", "4", "--out", filepath.Join(dir, "sp2"), "--quiet", "--pdn"}, "selfplay --pdn is now --chunk-pdn", 0, ""},
		{[]string{"selfplay", "--run", missing, "--games", "1"}, "selfplay --run DIR is now selfplay worker --run DIR", 1, missing},
		{[]string{"selfplay", "--broker", "nats://127.0.0.1:1", "--worker", "w1"}, "selfplay --broker URL is now selfplay worker --broker URL", 1, "--broker needs --credential"},
		{[]string{"model", "compare", "--games", dir, "../../model/testdata/sample-v1.ckpt"}, "model --games is now --chunks", 1, "no game chunks in " + dir},
		{[]string{"model", "compare", "--chunks", dir, "--parallel", "0", "../../model/testdata/sample-v1.ckpt"}, "model --parallel is now --eval-batch", 1, "--eval-batch 0 out of range"},
		{[]string{"tb", "gen", "--pieces", "2", "--out", tables, "--workers", "1"}, "tb --workers is now --parallel", 0, ""},
		{[]string{"tb", "probe", "--dir", tables, "--fen", "W:WK29:BK1", "--quiet", "3"}, "tb --quiet is now --quiet-plies", 0, "40-move counter 3"},
		{[]string{"serve", "--run", missing, "--addr", "127.0.0.1:0"}, "serve --addr is now --http", 1, missing},
		{[]string{"serve", "--run", missing, "--token-file", missing}, "serve --token-file is now --http-token-file", 1, missing},
		{[]string{"serve", "--run", missing, "--max-time", "1000"}, "serve --max-time is now --http-max-time", 2, "--http-max-time 1000 out of range"},
		{[]string{"tactics", "--suite", missing, "--player", "random"}, "tactics --player is now --players", 1, missing},
		{[]string{"tactics", "--build", missing, "--out", filepath.Join(dir, "s.json")}, "tactics --build is now tactics build", 1, missing},
		{[]string{"tactics", "build", "--pdn", missing, "--out", filepath.Join(dir, "s.json")}, "tactics --pdn is now tactics build FILE.pdn...", 1, missing},
		{[]string{"tactics", "--audit", "14", "--suite", missing, "--out", filepath.Join(dir, "s.json")}, "tactics --audit D is now tactics audit --audit D", 1, missing},
		{[]string{"ladder", "--show"}, "ladder --show is now ladder show", 0, "ladder v"},
		{[]string{"ladder", "--calibrate", "--players", "random,alphabeta:1", "--games", "2", "--out", ladder, "--quiet"}, "ladder --calibrate is now ladder calibrate", 0, "wrote " + ladder},
		{[]string{"ladder", "--ladder", ladder, "--extend", "alphabeta:2", "--games", "2", "--out", filepath.Join(dir, "ext.json"), "--quiet"}, "ladder --extend is now ladder extend --players A,B,...", 0, "alphabeta:2"},
		{[]string{"arena", "--judge", missing}, "arena --judge is now arena judge FILE...", 1, missing},
		{[]string{"ship", "--rewrite-card", "--out", missing}, "ship --rewrite-card is now ship rewrite-card", 1, missing},
		{[]string{"show", "--pdn", pdn}, "show --pdn is now show FILE.pdn", 0, "after 3 of 3 plies"},
	} {
		code, out, errs := runCmd(t, tc.args...)
		line := "dama: " + tc.note + " (the old spelling will go)\n"
		where := errs
		if code == 0 {
			where = out
		}
		if code != tc.code || strings.Count(errs, line) != 1 || strings.Count(errs, " is now ") != 1 || !strings.Contains(where, tc.want) {
			t.Errorf("dama %s: exit %d, stdout %q, stderr %q; want exit %d, the line %q once and %q", strings.Join(tc.args, " "), code, out, errs, tc.code, line, tc.want)
		}
		if !strings.HasPrefix(errs, line) {
			t.Errorf("dama %s: the old spelling's line does not come first: %q", strings.Join(tc.args, " "), errs)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "sp2")); err != nil {
		t.Error(err)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "sp2", "*.pdn")); len(m) == 0 {
		t.Error("selfplay --pdn wrote no PDN beside its chunk")
	}
	// The help names the new spellings only.
	for name, c := range commands {
		fs := newFlagSet(c)
		_, out, _ := runCmd(t, "help", name)
		for old := range fs.old {
			if strings.Contains(out, "  -"+old+" ") || strings.Contains(out, "  -"+old+"\n") {
				t.Errorf("help %s lists the old spelling --%s", name, old)
			}
		}
	}
}

// docs/commands.md's table of flags names every flag word of every
// command, with exactly the commands that take it; its section names each
// old spelling with its command; the page lists every spec suffix of
// package player.
func TestCommandsDocFlags(t *testing.T) {
	b, err := os.ReadFile("../../docs/commands.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	i := strings.Index(text, "## Flags")
	if i < 0 {
		t.Fatal("docs/commands.md has no section ## Flags")
	}
	rows := map[string][]string{} // flag word -> the commands the table lists
	for _, line := range strings.Split(text[i:], "\n") {
		cells := strings.Split(line, "|")
		if len(cells) != 6 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`--") {
			continue
		}
		var cmds []string
		for _, c := range strings.Split(cells[3], ",") {
			cmds = append(cmds, strings.TrimSpace(c))
		}
		for _, w := range strings.Split(cells[1], ",") {
			rows[strings.Trim(strings.TrimSpace(w), "`-")] = cmds
		}
	}
	if len(rows) < 50 {
		t.Fatalf("read %d flag words from the table, want them all", len(rows))
	}
	got := map[string][]string{}
	for name, c := range commands {
		fs := newFlagSet(c)
		fs.VisitAll(func(f *flag.Flag) {
			if _, old := fs.old[f.Name]; old {
				if !regexp.MustCompile("`" + name + "( [a-z-]+)* --" + f.Name + "\\b").MatchString(text[i:]) {
					t.Errorf("%s --%s: an old spelling the section does not name", name, f.Name)
				}
				return
			}
			got[f.Name] = append(got[f.Name], name)
		})
	}
	for word, cmds := range got {
		sort.Strings(cmds)
		if want := rows[word]; strings.Join(want, ",") != strings.Join(cmds, ",") {
			t.Errorf("--%s: the table lists %v, the commands that take it are %v", word, want, cmds)
		}
	}
	for word := range rows {
		if got[word] == nil {
			t.Errorf("--%s: in the table, taken by no command", word)
		}
	}
	for _, s := range player.Settings() {
		for _, sfx := range strings.Split(s.Suffix, ", ") {
			if sfx != "" && !strings.Contains(text, "`"+sfx+"`") {
				t.Errorf("the spec suffix %s is not in docs/commands.md", sfx)
			}
		}
	}
}
