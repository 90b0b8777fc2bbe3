package main

import (
	"fmt"
	"regexp"
	"strings"
)

// The Markdown and shell reading of the docs test (docs_test.go): fenced
// blocks with their not-run markers, and shell lines split into simple
// commands.

// docBlock is one fenced block of a Markdown file.
type docBlock struct {
	file   string
	line   int    // line of the opening fence
	lang   string // the fence's info string
	notRun string // the reason of a <!-- not-run: ... --> marker above it
	lines  []docLine
}

// docLine is one line of a block with its line number in the file.
type docLine struct {
	n    int
	text string
}

var notRunMarker = regexp.MustCompile(`^<!--\s*not-run:\s*(.*?)\s*-->$`)

// parseDocBlocks returns the fenced blocks of a Markdown file, and an error
// for a not-run marker that is not directly above a fence or gives no reason,
// and for a fence left open.
func parseDocBlocks(file, text string) ([]docBlock, []error) {
	var blocks []docBlock
	var errs []error
	var cur *docBlock
	marker, markerLine := "", 0
	for i, line := range strings.Split(text, "\n") {
		n := i + 1
		trimmed := strings.TrimSpace(line)
		if cur != nil {
			if strings.HasPrefix(trimmed, "```") {
				blocks = append(blocks, *cur)
				cur = nil
				continue
			}
			cur.lines = append(cur.lines, docLine{n, line})
			continue
		}
		if strings.HasPrefix(trimmed, "```") {
			cur = &docBlock{file: file, line: n, lang: strings.TrimSpace(strings.TrimPrefix(trimmed, "```")), notRun: marker}
			marker = ""
			continue
		}
		if marker != "" && trimmed != "" {
			errs = append(errs, fmt.Errorf("%s:%d: a not-run marker must be the line just above a fenced block", file, markerLine))
			marker = ""
		}
		if m := notRunMarker.FindStringSubmatch(trimmed); m != nil {
			if m[1] == "" {
				errs = append(errs, fmt.Errorf("%s:%d: a not-run marker needs a reason", file, n))
			}
			marker, markerLine = m[1], n
			if marker == "" {
				marker = "(no reason)"
			}
		}
	}
	if cur != nil {
		errs = append(errs, fmt.Errorf("%s:%d: fenced block never closed", file, cur.line))
	}
	if marker != "" {
		errs = append(errs, fmt.Errorf("%s:%d: a not-run marker must be the line just above a fenced block", file, markerLine))
	}
	return blocks, errs
}

func (b docBlock) isShell() bool {
	switch b.lang {
	case "sh", "bash", "shell", "console":
		return true
	}
	return false
}

// shellCommand is one simple command of a shell line: its words, with each
// $(...) replaced by a placeholder word substMark+index into subs.
type shellCommand struct {
	words []string
	subs  [][]shellCommand
}

const substMark = "\x00subst"

// splitShell splits a shell line into simple commands at ;, &, &&, |, ||
// and parentheses, dropping redirections and a trailing # comment. It knows
// single and double quotes and $(...), which is enough for documentation.
func splitShell(line string) ([]shellCommand, error) {
	var cmds []shellCommand
	var cur shellCommand
	var word strings.Builder
	inWord := false
	endWord := func() {
		if inWord {
			cur.words = append(cur.words, word.String())
		}
		word.Reset()
		inWord = false
	}
	endCmd := func() {
		endWord()
		if len(cur.words) > 0 {
			cmds = append(cmds, cur)
		}
		cur = shellCommand{}
	}
	redirect := false // the next word is a redirection target
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '\'' || c == '"':
			j := strings.IndexByte(line[i+1:], c)
			if j < 0 {
				return nil, fmt.Errorf("unclosed %c in %q", c, line)
			}
			word.WriteString(line[i+1 : i+1+j])
			inWord = true
			i += j + 1
		case c == '$' && i+1 < len(line) && line[i+1] == '(':
			depth, j := 1, i+2
			for ; j < len(line) && depth > 0; j++ {
				switch line[j] {
				case '(':
					depth++
				case ')':
					depth--
				}
			}
			if depth != 0 {
				return nil, fmt.Errorf("unclosed $( in %q", line)
			}
			inner, err := splitShell(line[i+2 : j-1])
			if err != nil {
				return nil, err
			}
			fmt.Fprintf(&word, "%s%d", substMark, len(cur.subs))
			cur.subs = append(cur.subs, inner)
			inWord = true
			i = j - 1
		case c == '#' && !inWord:
			endCmd()
			return cmds, nil
		case c == ' ' || c == '\t':
			if redirect && inWord {
				word.Reset()
				inWord, redirect = false, false
			}
			endWord()
		case c == ';' || c == '&' || c == '|' || c == '(' || c == ')':
			endCmd()
		case c == '>' || c == '<':
			endWord()
			redirect = true
		default:
			word.WriteByte(c)
			inWord = true
		}
	}
	if redirect {
		word.Reset()
		inWord = false
	}
	endCmd()
	return cmds, nil
}

var envAssignment = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)

// damaArgs returns the arguments of a dama invocation ("dama ...", "./dama
// ...", "go run ./cmd/dama ..."), after any VAR=value prefix.
func damaArgs(words []string) ([]string, bool) {
	for len(words) > 0 && envAssignment.MatchString(words[0]) {
		words = words[1:]
	}
	switch {
	case len(words) >= 1 && (words[0] == "dama" || words[0] == "./dama"):
		return words[1:], true
	case len(words) >= 3 && words[0] == "go" && words[1] == "run" && words[2] == "./cmd/dama":
		return words[3:], true
	}
	return nil, false
}
