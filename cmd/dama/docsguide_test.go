package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The shape of the documentation, beside the commands docs_test.go checks:
//
//   - README.md and docs/*.md are guides: at most 300 lines each, with no
//     clock time ("13:42") and no date ("5 December 2026", "2026-12-05");
//     the dated record of how the project got there goes to docs/journal/;
//   - docs/journal/*.md is that record. Its commands are the ones that
//     ran then, with the flags and player specs of their day, so they are
//     neither parsed nor run (a flag removed later must not make history
//     wrong); its Markdown is checked as the guides' is (fences closed,
//     not-run markers in place), and every page is listed in
//     docs/journal/README.md;
//   - every relative link in README.md, docs/, docs/journal/ and
//     checkpoints/ names a file that exists, and an anchor (#section) a
//     heading of the page it points at; so does every docs/PAGE.md#anchor
//     that a source file, a configuration or a script cites.

// maxGuideLines is the most lines a guide may have.
const maxGuideLines = 300

var (
	clockTime = regexp.MustCompile(`\b([01]?[0-9]|2[0-3]):[0-5][0-9]\b`)
	dateText  = regexp.MustCompile(`\b[0-9]{1,2} (January|February|March|April|May|June|July|August|September|October|November|December) [0-9]{4}\b|\b(19|20)[0-9]{2}-[01][0-9]-[0-3][0-9]\b`)
)

// guideProblems returns what makes text, a guide named file, a record
// instead: too many lines, clock times, dates.
func guideProblems(file, text string) []string {
	var out []string
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if len(lines) > maxGuideLines {
		out = append(out, fmt.Sprintf("%s: %d lines, more than %d: move the record to docs/journal/ and keep what a user needs", file, len(lines), maxGuideLines))
	}
	for i, l := range lines {
		if m := clockTime.FindString(l); m != "" {
			out = append(out, fmt.Sprintf("%s:%d: clock time %q in a guide: the times of records belong in docs/journal/", file, i+1, m))
		}
		if m := dateText.FindString(l); m != "" {
			out = append(out, fmt.Sprintf("%s:%d: date %q in a guide: the dates of records belong in docs/journal/", file, i+1, m))
		}
	}
	return out
}

// repoRoot returns the repository root and makes it the working folder.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(root)
	return root
}

func TestDocsAreGuides(t *testing.T) {
	root := repoRoot(t)
	files := docFiles(t, root)
	if len(files) < 10 {
		t.Fatalf("found %d guides: %v", len(files), files)
	}
	for _, file := range files {
		text, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range guideProblems(file, string(text)) {
			t.Error(p)
		}
	}
}

// journalFiles returns docs/journal/*.md, relative to the repository root.
func journalFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("docs", "journal", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func TestDocsJournal(t *testing.T) {
	repoRoot(t)
	files := journalFiles(t)
	index, err := os.ReadFile(filepath.Join("docs", "journal", "README.md"))
	if err != nil {
		t.Fatalf("the journal has no index: %v", err)
	}
	if len(files) < 2 {
		t.Fatalf("found %d journal pages", len(files))
	}
	for _, file := range files {
		text, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		_, errs := parseDocBlocks(file, string(text))
		for _, err := range errs {
			t.Error(err)
		}
		if base := filepath.Base(file); base != "README.md" && !bytes.Contains(index, []byte("("+base+")")) {
			t.Errorf("%s is not listed in docs/journal/README.md", file)
		}
	}
}

// headingSlug is the anchor GitHub gives a heading: lower case, without
// punctuation but hyphens and underscores, spaces made hyphens.
func headingSlug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || ('a' <= r && r <= 'z') || ('0' <= r && r <= '9') || r > 127:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// markdownAnchors returns the anchors of a Markdown text's headings
// (outside fenced blocks), a repeated heading numbered as GitHub does.
func markdownAnchors(text string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	fenced := false
	for _, l := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(l)
		if strings.HasPrefix(trimmed, "```") {
			fenced = !fenced
			continue
		}
		if fenced || !strings.HasPrefix(l, "#") {
			continue
		}
		h := strings.TrimLeft(l, "#")
		if !strings.HasPrefix(h, " ") {
			continue
		}
		s := headingSlug(h)
		if n := seen[s]; n > 0 {
			anchors[fmt.Sprintf("%s-%d", s, n)] = true
		} else {
			anchors[s] = true
		}
		seen[s]++
	}
	return anchors
}

var markdownLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// checkLinkTarget checks that target (a path relative to the repository
// root, with an optional #anchor) exists, and its anchor too.
func checkLinkTarget(target string, anchors map[string]map[string]bool) error {
	path, anchor, _ := strings.Cut(target, "#")
	st, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("no file %s", path)
	}
	if anchor == "" {
		return nil
	}
	if st.IsDir() || !strings.HasSuffix(path, ".md") {
		return fmt.Errorf("%s: an anchor into something that is not a Markdown page", target)
	}
	a, ok := anchors[path]
	if !ok {
		text, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		a = markdownAnchors(string(text))
		anchors[path] = a
	}
	if !a[anchor] {
		return fmt.Errorf("%s has no heading #%s", path, anchor)
	}
	return nil
}

// markdownLinks returns the relative link targets of a Markdown text
// (outside fenced blocks and code spans) with their line numbers.
func markdownLinks(text string) []docLine {
	var out []docLine
	fenced := false
	codeSpan := regexp.MustCompile("`[^`]*`")
	for i, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		l = codeSpan.ReplaceAllString(l, "")
		for _, m := range markdownLink.FindAllStringSubmatch(l, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			out = append(out, docLine{i + 1, target})
		}
	}
	return out
}

// docsCitation is a docs page, with an optional anchor, cited in a source
// file, a configuration or a script.
var docsCitation = regexp.MustCompile(`docs/[A-Za-z0-9_/.-]+\.md(#[a-z0-9_-]+)?`)

func TestDocsLinks(t *testing.T) {
	root := repoRoot(t)
	anchors := map[string]map[string]bool{}
	pages := append(docFiles(t, root), journalFiles(t)...)
	more, err := filepath.Glob(filepath.Join("checkpoints", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, more...)
	more, _ = filepath.Glob(filepath.Join("checkpoints", "*", "*.md"))
	pages = append(pages, more...)
	var links int
	for _, file := range pages {
		text, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range markdownLinks(string(text)) {
			links++
			target := l.text
			if strings.HasPrefix(target, "#") {
				target = file + target
			} else {
				target = filepath.Join(filepath.Dir(file), target)
			}
			if err := checkLinkTarget(target, anchors); err != nil {
				t.Errorf("%s:%d: link %s: %v", file, l.n, l.text, err)
			}
		}
	}
	// Citations in code, configurations and scripts.
	var cited int
	err = filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(path) {
		case ".go", ".yaml", ".sh":
		default:
			return nil
		}
		if filepath.Base(path) == "docsguide_test.go" {
			return nil
		}
		text, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(text), "\n") {
			for _, c := range docsCitation.FindAllString(line, -1) {
				cited++
				if err := checkLinkTarget(c, anchors); err != nil {
					t.Errorf("%s:%d: cites %s: %v", path, i+1, c, err)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d links in %d pages, %d citations of docs/ in code", links, len(pages), cited)
	if links < 100 || cited < 10 {
		t.Errorf("found %d links and %d citations: the extraction is broken", links, cited)
	}
}

// TestDocsGuideChecksFind: the guide rules and the link checks find what
// they are for, and pass what is right.
func TestDocsGuideChecksFind(t *testing.T) {
	long := strings.Repeat("line\n", maxGuideLines+1)
	for _, tc := range []struct {
		text string
		want string // a problem's prefix, "" for none
	}{
		{"Run `dama serve --addr 127.0.0.1:8080` and open it.\n", ""},
		{"A FEN: W:W21,22,K31:B1,2,K10; `classic:13` is +2070.\n", ""},
		{strings.Repeat("line\n", maxGuideLines), ""},
		{long, "g.md: 301 lines"},
		{"It ran from 07:56 to 09:22 UTC.\n", `g.md:1: clock time "07:56"`},
		{"shipped at 8:10\n", `g.md:1: clock time "8:10"`},
		{"(5 December 2026, AMD EPYC)\n", `g.md:1: date "5 December 2026"`},
		{"written on 2026-12-05\n", `g.md:1: date "2026-12-05"`},
	} {
		got := guideProblems("g.md", tc.text)
		if tc.want == "" {
			if len(got) != 0 {
				t.Errorf("%q: got %q, want no problem", tc.text[:min(len(tc.text), 40)], got)
			}
			continue
		}
		if len(got) == 0 || !strings.HasPrefix(got[0], tc.want) {
			t.Errorf("%q: got %q, want %q", tc.text[:min(len(tc.text), 40)], got, tc.want)
		}
	}
	for heading, want := range map[string]string{
		" CPU time per move: `--clock cpu`":          "cpu-time-per-move---clock-cpu",
		" Inference backends: fp32, bf16 and int8":   "inference-backends-fp32-bf16-and-int8",
		" 4. Export the network":                     "4-export-the-network",
		" The priors' temperature in self-play":      "the-priors-temperature-in-self-play",
		" Tables generated when asked: `auto:N`":     "tables-generated-when-asked-auton",
		" The ladder: one absolute rating per model": "the-ladder-one-absolute-rating-per-model",
	} {
		if got := headingSlug(heading); got != want {
			t.Errorf("headingSlug(%q) = %q, want %q", heading, got, want)
		}
	}
	page := "# T\n\n## Same\n\n```sh\n# not a heading\n```\n\n## Same\n\nSee [x](#same-1), [y](#nope), `[z](#code)` and [w](http://example.org).\n"
	a := markdownAnchors(page)
	if !a["same"] || !a["same-1"] || a["not-a-heading"] {
		t.Errorf("anchors %v: want same and same-1, not not-a-heading", a)
	}
	var got []string
	for _, l := range markdownLinks(page) {
		got = append(got, l.text)
	}
	if strings.Join(got, " ") != "#same-1 #nope" {
		t.Errorf("links %q, want [#same-1 #nope]", got)
	}
}
