package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The commands shown in README.md and docs/*.md are tested here, so that a
// renamed flag, a removed subcommand or a moved file fails a test instead of
// leaving the documentation stale:
//
//   - every dama command line in a shell block (```sh, ```bash, ```shell)
//     names a subcommand that exists and passes only flags it defines, with
//     values its flag set accepts (parsed with the subcommand's own flag set,
//     nothing run);
//   - the cheap ones (perft, moves, show, version, export, ladder --show,
//     model info, tb gen of up to 3 pieces, tb probe and tb info) are run
//     from the repository root, their output files
//     going to a temporary folder, and must succeed;
//   - the ONNX Runtime example (node model/export/ortcheck/example.js) is
//     run where ONNX Runtime is installed, and its output must match the one
//     shown below it;
//   - go test lines name packages, tests, benchmarks and fuzz targets that
//     exist; go build/install lines name packages that exist; scripts/*.sh
//     lines pass flags the script knows;
//   - a file path under one of the repository's own folders that a command
//     names must exist (run folders under checkpoints/ aside);
//   - any other command sits in a block marked, on the line just above it,
//     with <!-- not-run: REASON --> (its dama lines and paths are still
//     checked).
//
// The journal (docs/journal/*.md) is the dated record: its commands ran
// with the flags of their day and are not checked here; docsguide_test.go
// checks its Markdown and links, and the guides' length and tone.

// nargs is how many positional arguments a command (or a verb) takes.
type nargs struct{ min, max int }

// many is the most arguments of a list of files.
const many = 1 << 20

// positionalArgs is how many arguments each subcommand takes besides flags,
// for those that take any; the others take none. model takes a verb first.
var positionalArgs = map[string]nargs{"report": {1, 1}, "show": {0, 1}}

// verbArgs holds, for the commands that take a verb, the arguments each
// verb takes; "" is the command without a verb, where it has a default
// action (a verb there is optional).
var verbArgs = map[string]map[string]nargs{
	"model":    {"new": {0, 0}, "info": {1, 1}, "compare": {1, 1}},
	"tb":       {"gen": {0, 0}, "probe": {0, 0}, "info": {1, 1}, "verify": {1, 1}, "match": {0, 0}},
	"ladder":   {"": {0, 0}, "show": {0, 0}, "calibrate": {0, 0}, "extend": {0, 0}},
	"tactics":  {"": {0, 0}, "build": {1, many}, "audit": {0, 0}},
	"selfplay": {"": {0, 0}, "worker": {0, 0}},
	"arena":    {"": {0, 0}, "judge": {1, many}},
	"ship":     {"": {0, 0}, "rewrite-card": {0, 0}},
	"games":    {"check": {1, 1}},
	"broker":   {"add-worker": {1, 1}, "revoke": {1, 1}},
}

// checkDamaArgs parses args (the words after "dama") the way the subcommand
// does, without running it.
func checkDamaArgs(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("dama without a command")
	}
	switch args[0] {
	case "help", "-h", "--help":
		if len(args) > 1 {
			if _, ok := commands[args[1]]; !ok {
				return fmt.Errorf("dama help: unknown command %q", args[1])
			}
		}
		return nil
	case "--version", "-version":
		return nil
	}
	c, ok := commands[args[0]]
	if !ok {
		return fmt.Errorf("unknown command %q", args[0])
	}
	fs := newFlagSet(c)
	fs.SetOutput(io.Discard)
	parse := func(a []string) error {
		if err := fs.Parse(a); err != nil {
			return fmt.Errorf("dama %s: %v", c.name, err)
		}
		return nil
	}
	if err := parse(args[1:]); err != nil {
		return err
	}
	want := positionalArgs[c.name]
	if verbs, ok := verbArgs[c.name]; ok {
		rest := fs.Args()
		n, isVerb := nargs{}, false
		if len(rest) > 0 {
			n, isVerb = verbs[rest[0]]
		}
		switch {
		case isVerb:
			if err := parse(rest[1:]); err != nil {
				return err
			}
		case hasDefault(verbs):
			n = verbs[""]
		case len(rest) == 0:
			return fmt.Errorf("dama %s: no verb", c.name)
		default:
			return fmt.Errorf("dama %s: unknown verb %q", c.name, rest[0])
		}
		want = n
	}
	// Flags may follow the positional arguments (parseMore).
	var pos []string
	for rest := fs.Args(); len(rest) > 0; rest = fs.Args() {
		pos = append(pos, rest[0])
		if err := parse(rest[1:]); err != nil {
			return err
		}
	}
	if len(pos) < want.min || len(pos) > want.max {
		return fmt.Errorf("dama %s: %d arguments besides flags (%q), want %d..%d", c.name, len(pos), pos, want.min, want.max)
	}
	if err := fs.checkRanges(); err != nil {
		return fmt.Errorf("dama %s: %v", c.name, err)
	}
	// A guide shows what to write now: an old spelling works, with a
	// note, but the docs must not teach it.
	var old []string
	fs.Visit(func(f *flag.Flag) {
		if now, ok := fs.old[f.Name]; ok {
			old = append(old, fmt.Sprintf("--%s is now %s", f.Name, now))
		}
	})
	if len(old) > 0 {
		return fmt.Errorf("dama %s: an old spelling: %s", c.name, strings.Join(old, "; "))
	}
	return nil
}

// hasDefault reports whether a command of these verbs runs without one.
func hasDefault(verbs map[string]nargs) bool {
	_, ok := verbs[""]
	return ok
}

// cheapDama reports whether the test runs a dama command for real: it
// takes at most a few seconds and touches nothing outside its --out.
func cheapDama(args []string) bool {
	if len(args) == 0 {
		return false
	}
	switch args[0] {
	case "perft", "moves", "show", "version", "export":
		return true
	case "ladder":
		return slices.Equal(args[1:], []string{"show"}) || slices.Equal(args[1:], []string{"--show"})
	case "model":
		return len(args) > 1 && args[1] == "info"
	case "tb":
		// Tables of up to 3 pieces take a second; probe and info read them.
		if len(args) > 1 && args[1] == "gen" {
			i := slices.Index(args, "--pieces")
			return i > 0 && i+1 < len(args) && (args[i+1] == "2" || args[i+1] == "3")
		}
		return len(args) > 1 && (args[1] == "probe" || args[1] == "info" || args[1] == "verify")
	}
	return false
}

// docsEnv runs documented commands: from the repository root, with paths
// under /tmp and --out values moved into a temporary folder.
type docsEnv struct {
	t    *testing.T
	root string
	tmp  string
	// counts of what was checked: dama lines parsed, dama lines run, ONNX
	// Runtime examples run
	parsed, ran, onnx int
}

func (e *docsEnv) rewrite(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		switch {
		case strings.HasPrefix(a, "/tmp/"):
			a = filepath.Join(e.tmp, strings.TrimPrefix(a, "/tmp/"))
		case i > 0 && args[i-1] == "--out" && !filepath.IsAbs(a):
			a = filepath.Join(e.tmp, filepath.Base(a))
		case strings.HasPrefix(a, "--out=") && !filepath.IsAbs(strings.TrimPrefix(a, "--out=")):
			a = "--out=" + filepath.Join(e.tmp, filepath.Base(strings.TrimPrefix(a, "--out=")))
		}
		out[i] = a
	}
	return out
}

// runDama runs a dama command in this process and returns its stdout.
func (e *docsEnv) runDama(args []string) (string, error) {
	var out, errb bytes.Buffer
	if code := run(e.rewrite(args), &out, &errb); code != 0 {
		return "", fmt.Errorf("exit %d: %s", code, strings.TrimSpace(errb.String()))
	}
	return out.String(), nil
}

// expand replaces each $(...) placeholder of words by the output words of
// the dama command inside it, run for real.
func (e *docsEnv) expand(c shellCommand) ([]string, error) {
	var words []string
	for _, w := range c.words {
		var k int
		if _, err := fmt.Sscanf(w, substMark+"%d", &k); err != nil {
			words = append(words, w)
			continue
		}
		inner := c.subs[k]
		if len(inner) != 1 {
			return nil, fmt.Errorf("$(...) with %d commands", len(inner))
		}
		args, ok := damaArgs(inner[0].words)
		if !ok || !cheapDama(args) {
			return nil, fmt.Errorf("$(%s): only a cheap dama command can be run here", strings.Join(inner[0].words, " "))
		}
		out, err := e.runDama(args)
		if err != nil {
			return nil, fmt.Errorf("$(dama %s): %v", strings.Join(args, " "), err)
		}
		words = append(words, strings.Fields(out)...)
	}
	return words, nil
}

// ortcheckModules returns the node_modules folder holding onnxruntime-node,
// or "" where ONNX Runtime is not installed.
func ortcheckModules(root string) string {
	for _, dir := range []string{os.Getenv("DAMA_ORTCHECK_DIR"), filepath.Join(root, "model", "export", "ortcheck")} {
		if dir == "" {
			continue
		}
		nm := filepath.Join(dir, "node_modules")
		if _, err := os.Stat(filepath.Join(nm, "onnxruntime-node")); err == nil {
			return nm
		}
	}
	return ""
}

// runONNXExample runs the README's ONNX Runtime example and compares its
// output with the JSON line shown after it ("# {...}"), if any.
func (e *docsEnv) runONNXExample(c shellCommand, shown string) error {
	words, err := e.expand(c)
	if err != nil {
		return err
	}
	nm := ortcheckModules(e.root)
	if nm == "" {
		e.t.Logf("ONNX Runtime example not run: onnxruntime-node is not installed (npm ci in model/export/ortcheck, or DAMA_ORTCHECK_DIR)")
		return nil
	}
	if _, err := exec.LookPath("node"); err != nil {
		e.t.Logf("ONNX Runtime example not run: no node on PATH")
		return nil
	}
	cmd := exec.Command("node", e.rewrite(words[1:])...)
	cmd.Dir = e.root
	cmd.Env = append(os.Environ(), "NODE_PATH="+nm)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("node: %v: %s", err, strings.TrimSpace(errb.String()))
	}
	e.onnx++
	type result struct {
		WDL    []float64          `json:"wdl"`
		Priors map[string]float64 `json:"priors"`
	}
	var got, want result
	if err := json.Unmarshal(out, &got); err != nil {
		return fmt.Errorf("node output %q: %v", out, err)
	}
	if shown == "" {
		return nil
	}
	if err := json.Unmarshal([]byte(shown), &want); err != nil {
		return fmt.Errorf("the output shown, %q: %v", shown, err)
	}
	const tol = 1e-4
	same := len(got.WDL) == len(want.WDL) && len(got.Priors) == len(want.Priors)
	for i := range want.WDL {
		same = same && i < len(got.WDL) && math.Abs(got.WDL[i]-want.WDL[i]) <= tol
	}
	for m, p := range want.Priors {
		g, ok := got.Priors[m]
		same = same && ok && math.Abs(g-p) <= tol
	}
	if !same {
		return fmt.Errorf("the example prints %s, the docs show %s", strings.TrimSpace(string(out)), shown)
	}
	return nil
}

var goTestFunc = regexp.MustCompile(`(?m)^func ((Test|Benchmark|Fuzz|Example)\w*)\(`)

// checkGoTest checks a go test line: its packages exist, and its -run,
// -bench and -fuzz patterns match tests, benchmarks and fuzz targets there.
func checkGoTest(root string, words []string) error {
	var pkgs []string
	pats := map[string]string{}
	bools := map[string]bool{"-v": true, "-short": true, "-race": true, "-json": true, "-benchmem": true}
	for i := 2; i < len(words); i++ {
		w := words[i]
		if !strings.HasPrefix(w, "-") {
			pkgs = append(pkgs, w)
			continue
		}
		name, val, hasVal := strings.Cut(w, "=")
		if !hasVal && !bools[name] {
			if i+1 >= len(words) {
				return fmt.Errorf("go test: %s without a value", name)
			}
			val = words[i+1]
			i++
		}
		pats[strings.TrimPrefix(name, "-")] = val
	}
	if len(pkgs) == 0 {
		pkgs = []string{"."}
	}
	for _, p := range pkgs {
		dir := filepath.Join(root, strings.TrimSuffix(strings.TrimSuffix(p, "..."), "/"))
		if _, err := os.Stat(dir); err != nil {
			return fmt.Errorf("go test: no package %s", p)
		}
		if strings.HasSuffix(p, "...") {
			continue
		}
		var funcs []string
		tests, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
		for _, f := range tests {
			src, err := os.ReadFile(f)
			if err != nil {
				return err
			}
			for _, m := range goTestFunc.FindAllStringSubmatch(string(src), -1) {
				funcs = append(funcs, m[1])
			}
		}
		for flagName, prefixes := range map[string][]string{
			"run":   {"Test", "Example", "Fuzz"},
			"bench": {"Benchmark"},
			"fuzz":  {"Fuzz"},
		} {
			pat, ok := pats[flagName]
			if !ok || (flagName == "run" && (pat == "XXX" || pat == "^$")) {
				continue
			}
			re, err := regexp.Compile(strings.Split(pat, "/")[0])
			if err != nil {
				return fmt.Errorf("go test -%s %q: %v", flagName, pat, err)
			}
			var n int
			for _, f := range funcs {
				for _, prefix := range prefixes {
					if strings.HasPrefix(f, prefix) && re.MatchString(f) {
						n++
					}
				}
			}
			if n == 0 || (flagName == "fuzz" && n != 1) {
				return fmt.Errorf("go test %s -%s %s: matches %d functions", p, flagName, pat, n)
			}
		}
	}
	return nil
}

// checkRepoPaths checks that every word naming a file or folder under one of
// the repository's own top-level folders exists, each of a comma-separated
// list (--judge a.pdn,b.pdn) too; run folders (under checkpoints/, but for
// checkpoints/shipped) are made by the commands.
func checkRepoPaths(root string, words []string) error {
	var items []string
	for _, w := range words {
		if _, v, ok := strings.Cut(w, "="); ok && strings.HasPrefix(w, "-") {
			w = v
		}
		items = append(items, strings.Split(w, ",")...)
	}
	for _, w := range items {
		w, _, _ = strings.Cut(w, "@")
		w = strings.TrimPrefix(w, "./")
		w = strings.TrimSuffix(strings.TrimSuffix(w, "..."), "/")
		first, _, nested := strings.Cut(w, "/")
		if !nested || first == "" || strings.ContainsAny(first, ":$~.") {
			continue
		}
		if st, err := os.Stat(filepath.Join(root, first)); err != nil || !st.IsDir() {
			continue
		}
		if first == "checkpoints" && !strings.HasPrefix(w, "checkpoints/shipped") {
			continue
		}
		if _, err := os.Stat(filepath.Join(root, w)); err != nil {
			return fmt.Errorf("no file %s in the repository", w)
		}
	}
	return nil
}

// checkScript checks that a scripts/*.sh line passes only flags the script
// parses.
func checkScript(root string, words []string) error {
	src, err := os.ReadFile(filepath.Join(root, words[0]))
	if err != nil {
		return fmt.Errorf("no script %s", words[0])
	}
	for _, w := range words[1:] {
		if strings.HasPrefix(w, "--") && !bytes.Contains(src, []byte(w+")")) {
			return fmt.Errorf("%s does not parse %s", words[0], w)
		}
	}
	return nil
}

// checkDocBlock checks (and where cheap runs) the commands of one block.
func (e *docsEnv) checkDocBlock(b docBlock) []error {
	var errs []error
	fail := func(l docLine, format string, a ...any) {
		errs = append(errs, fmt.Errorf("%s:%d: %s", b.file, l.n, fmt.Sprintf(format, a...)))
	}
	if !b.isShell() {
		for _, l := range b.lines {
			if args, ok := damaArgs(strings.Fields(l.text)); ok && len(args) > 0 {
				fail(l, "a dama command in a block that is not tagged as shell (```sh) is never checked")
			}
		}
		return errs
	}
	// Join continuation lines; drop comments and blank lines.
	var lines []docLine
	for i := 0; i < len(b.lines); i++ {
		l := b.lines[i]
		for strings.HasSuffix(l.text, "\\") && i+1 < len(b.lines) {
			i++
			l.text = strings.TrimSuffix(l.text, "\\") + " " + strings.TrimSpace(b.lines[i].text)
		}
		lines = append(lines, l)
	}
	for i, l := range lines {
		trimmed := strings.TrimSpace(l.text)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		cmds, err := splitShell(trimmed)
		if err != nil {
			fail(l, "%v", err)
			continue
		}
		// The output shown after a command: "# {...}" on the next line.
		shown := ""
		if i+1 < len(lines) {
			if s := strings.TrimSpace(lines[i+1].text); strings.HasPrefix(s, "# {") {
				shown = strings.TrimPrefix(s, "# ")
			}
		}
		var all []shellCommand
		for _, c := range cmds {
			all = append(all, c)
			for _, s := range c.subs {
				all = append(all, s...)
			}
		}
		for _, c := range all {
			if err := checkRepoPaths(e.root, c.words); err != nil {
				fail(l, "%v", err)
			}
		}
		for _, c := range cmds {
			for _, s := range c.subs {
				for _, sc := range s {
					if args, ok := damaArgs(sc.words); ok {
						if err := checkDamaArgs(args); err != nil {
							fail(l, "%v", err)
						}
					}
				}
			}
			words := c.words
			for len(words) > 0 && envAssignment.MatchString(words[0]) {
				words = words[1:]
			}
			if len(words) == 0 {
				continue
			}
			if args, ok := damaArgs(words); ok {
				if err := checkDamaArgs(args); err != nil {
					fail(l, "%v", err)
					continue
				}
				e.parsed++
				if b.notRun == "" && cheapDama(args) {
					e.ran++
					if _, err := e.runDama(args); err != nil {
						fail(l, "dama %s: %v", strings.Join(args, " "), err)
					}
				}
				continue
			}
			switch {
			case words[0] == "go" && len(words) > 1 && words[1] == "test":
				if err := checkGoTest(e.root, words); err != nil {
					fail(l, "%v", err)
				}
				continue
			case words[0] == "go" && len(words) > 1 && (words[1] == "build" || words[1] == "install" || words[1] == "vet"):
				// The packages exist (checkRepoPaths); this test's binary
				// is built from them.
				continue
			case strings.HasPrefix(words[0], "scripts/"):
				if err := checkScript(e.root, words); err != nil {
					fail(l, "%v", err)
				}
			case words[0] == "node" && len(words) > 1 && words[1] == "model/export/ortcheck/example.js" && b.notRun == "":
				if testing.Short() {
					continue
				}
				if err := e.runONNXExample(c, shown); err != nil {
					fail(l, "%v", err)
				}
				continue
			}
			if b.notRun == "" {
				fail(l, "%q is not checked by this test: cover it here, or mark the block with <!-- not-run: REASON --> on the line above it", strings.Join(words, " "))
			}
		}
	}
	return errs
}

// docFiles returns README.md and docs/*.md, relative to the repository root.
func docFiles(t *testing.T, root string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files = append([]string{filepath.Join(root, "README.md")}, files...)
	for i, f := range files {
		files[i], _ = filepath.Rel(root, f)
	}
	return files
}

func TestDocsCommands(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(root)
	var checked int
	var total docsEnv
	for _, file := range docFiles(t, root) {
		text, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		blocks, errs := parseDocBlocks(file, string(text))
		for _, err := range errs {
			t.Error(err)
		}
		for _, b := range blocks {
			env := &docsEnv{t: t, root: root, tmp: t.TempDir()}
			for _, err := range env.checkDocBlock(b) {
				t.Error(err)
			}
			total.parsed += env.parsed
			total.ran += env.ran
			total.onnx += env.onnx
			if b.isShell() {
				checked++
			}
		}
	}
	t.Logf("%d shell blocks: %d dama command lines parsed, %d run, %d ONNX Runtime examples run", checked, total.parsed, total.ran, total.onnx)
	if checked < 20 || total.parsed < 40 || total.ran < 5 {
		t.Errorf("found %d shell blocks, %d dama commands, %d cheap ones in README.md and docs/*.md; the extraction is broken", checked, total.parsed, total.ran)
	}
	if !testing.Short() && ortcheckModules(root) != "" && total.onnx == 0 {
		if _, err := exec.LookPath("node"); err == nil {
			t.Error("ONNX Runtime is installed but no ONNX Runtime example ran")
		}
	}
}

// TestReadmePromise checks that the README shows the two commands it
// promises, as shell lines: the main job and the tests.
func TestReadmePromise(t *testing.T) {
	text, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks, _ := parseDocBlocks("README.md", string(text))
	want := map[string]bool{"go run ./cmd/dama train": false, "go test ./...": false}
	for _, b := range blocks {
		for _, l := range b.lines {
			cmds, err := splitShell(strings.TrimSpace(l.text))
			if !b.isShell() || err != nil || len(cmds) != 1 {
				continue
			}
			if s := strings.Join(cmds[0].words, " "); !want[s] {
				if _, ok := want[s]; ok {
					want[s] = true
				}
			}
		}
	}
	for cmd, found := range want {
		if !found {
			t.Errorf("README.md shows no shell line %q", cmd)
		}
	}
	if n := bytes.Count(text, []byte("\n")); n > 300 {
		t.Errorf("README.md has %d lines, more than 300: move the details to docs/", n)
	}
}

// TestDocsCheckerFinds runs the checker on a made-up page: it must find each
// planted mistake, and pass what is right.
func TestDocsCheckerFinds(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(root)
	page := strings.Join([]string{
		"```sh",
		"dama perft --depth 3", // fine, and run
		"DAMA_SELFPLAY_VISITS=4 dama train --no-such-flag", // 3: unknown flag
		"dama frobnicate", // 4: unknown command
		"dama report",     // 5: missing argument
		"dama moves --fen \"W:W21-32:B1-12\" | sort",                    // 6: sort is not checked
		"go test ./rules/ -run XXX -bench NoSuchBench",                  // 7: no such benchmark
		"dama selfplay --config configs/no-such.yaml --games 1 --out x", // 8: missing file
		"dama perft --fen \"X:nonsense\"",                               // 9: runs and fails
		"```",
		"<!-- not-run: plays for hours -->",
		"```sh",
		"scripts/ab.sh configs/ab/base.yaml --cpu 1m --no-such-option", // 13: script flag
		"curl -s example.org && dama arena --a random --b random --games 2",
		"dama arena judge docs/matches/piece12-h2h-800.pdn docs/matches/no-such.pdn", // 15: the second file
		"dama serve --run checkpoints/quick --addr :8080",                            // 16: an old spelling
		"```",
		"<!-- not-run: -->", // 18: no reason
		"",
		"```",
		"dama perft --depth 3", // 21: untagged
		"```",
	}, "\n")
	blocks, errs := parseDocBlocks("page.md", page)
	env := &docsEnv{t: t, root: root, tmp: t.TempDir()}
	for _, b := range blocks {
		errs = append(errs, env.checkDocBlock(b)...)
	}
	var got []string
	for _, err := range errs {
		got = append(got, err.Error())
	}
	for _, want := range []string{
		"page.md:3: dama train: flag provided but not defined: -no-such-flag",
		`page.md:4: unknown command "frobnicate"`,
		"page.md:5: dama report: 0 arguments",
		`page.md:6: "sort" is not checked`,
		"page.md:7: go test ./rules/ -bench NoSuchBench: matches 0 functions",
		"page.md:8: no file configs/no-such.yaml",
		"page.md:9: dama perft --fen X:nonsense: exit 1",
		"page.md:13: scripts/ab.sh does not parse --no-such-option",
		"page.md:15: no file docs/matches/no-such.pdn",
		"page.md:16: dama serve: an old spelling: --addr is now --http",
		"page.md:18: a not-run marker",
		"page.md:21: a dama command in a block that is not tagged",
	} {
		found := false
		for _, g := range got {
			found = found || strings.HasPrefix(g, want)
		}
		if !found {
			t.Errorf("checker missed %q; it found:\n%s", want, strings.Join(got, "\n"))
		}
	}
	if len(got) != 12 {
		t.Errorf("checker found %d problems, want 12:\n%s", len(got), strings.Join(got, "\n"))
	}
}

// The docs checker's table of positional arguments names exactly the
// commands that take them (command.takesArgs), model included.
func TestPositionalArgsTable(t *testing.T) {
	for name, c := range commands {
		_, listed := positionalArgs[name]
		if want := listed || verbArgs[name] != nil; c.takesArgs != want {
			t.Errorf("dama %s: takesArgs %v, but the docs checker's table says %v", name, c.takesArgs, want)
		}
	}
}
