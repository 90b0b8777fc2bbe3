package progress

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// Written to a file or pipe, a stage is one plain line, without the
// carriage-return frames of a bar (issue 13, point 18).
func TestPlainWhenNotATerminal(t *testing.T) {
	var buf bytes.Buffer
	b := New(&buf, 16, "gen 1: self-play")
	for range 16 {
		b.Add(1)
	}
	b.Describe("gen 1: self-play done")
	b.Clear() // nothing to clear off a plain line
	b.Finish()
	b.Finish()
	out := buf.String()
	if strings.Contains(out, "\r") || strings.Count(out, "\n") != 1 || !strings.HasPrefix(out, "gen 1: self-play done: 16/16 in ") {
		t.Errorf("plain progress wrote %q, want one line", out)
	}
	if isTerminal(&buf) {
		t.Error("a buffer is a terminal")
	}
	var none *Bar
	none.Add(1)
	none.Clear()
	none.Finish()
	if New(nil, 5, "x") != nil || New(&buf, 0, "x") != nil {
		t.Error("New without a writer or steps is not nil")
	}
}

// A long stage off a terminal writes a line every PlainEvery while it
// runs, then its last line (TestPlainWhenNotATerminal: a short one writes
// only the last).
func TestPlainLinesWhileLong(t *testing.T) {
	var buf bytes.Buffer
	b := New(&buf, 100, "arena")
	clock := b.start
	b.now = func() time.Time { return clock }
	for range 100 {
		clock = clock.Add(PlainEvery / 8) // 100 steps over 12.5 intervals
		b.Add(1)
	}
	b.Finish()
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 13 {
		t.Fatalf("wrote %d lines, want 12 while running and the last:\n%s", len(lines), buf.String())
	}
	if lines[0] != "arena: 8/100 in 300.0s (1.6/min)" {
		t.Errorf("first line %q", lines[0])
	}
	if !strings.HasPrefix(lines[12], "arena: 100/100 in 3750.0s") {
		t.Errorf("last line %q", lines[12])
	}
}
