package progress

import (
	"bytes"
	"strings"
	"testing"
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
	none.Finish()
	if New(nil, 5, "x") != nil || New(&buf, 0, "x") != nil {
		t.Error("New without a writer or steps is not nil")
	}
}
