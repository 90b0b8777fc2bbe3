package tb

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"dama/rules"
)

// TestWriteInfo: a line per table, the totals naming the folder, and how
// the entries were vouched for.
func TestWriteInfo(t *testing.T) {
	tables := testTables(t)
	var b bytes.Buffer
	tables.WriteInfo(&b)
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	want := fmt.Sprintf("%d tables in %s, complete up to %d pieces", len(tables.Files()), tables.Dir(), tables.Pieces())
	if len(lines) < len(tables.Files())+3 || !strings.HasPrefix(lines[0], "table ") || !strings.HasPrefix(lines[len(tables.Files())+1], want) || !strings.HasPrefix(lines[len(tables.Files())+2], "entries: ") {
		t.Errorf("info:\n%s", b.String())
	}
}

// TestWriteMoves: the value of a won ending, the moves that keep the win
// (one of them the fastest), every move listed; a position beyond the
// tables is an error.
func TestWriteMoves(t *testing.T) {
	tables := testTables(t)
	p, err := rules.ParseFEN("W:WK29,K32:BK1")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := tables.WriteMoves(&b, p, 0); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.HasPrefix(out, "W:WK29,K32:BK1 (white to move, 40-move counter 0): win; stored: win, 11 plies") || !strings.Contains(out, "\nmoves that keep the win: ") ||
		strings.Count(out, "\n  ") != len(p.Legal(nil)) {
		t.Errorf("moves:\n%s", out)
	}
	big, _ := rules.ParseFEN("W:W21,22,23,24,25,26:B1,2,3,4,5,6")
	if err := tables.WriteMoves(&b, big, 0); err == nil {
		t.Error("a position of 12 pieces written")
	}
}
