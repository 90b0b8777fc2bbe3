package tb

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

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

// TestReportWriteSummary: a consistent report is one line counting the
// tables, entries and threads; an inconsistent one shows its examples
// first and a line for each table at fault.
func TestReportWriteSummary(t *testing.T) {
	r := Report{
		Tables: []TableReport{
			{Material: Material{Men: 1, OppMen: 1}, Path: "a.tb", Checked: 100},
			{Material: Material{Men: 2, OppKings: 1}, Path: "b.tb", Checked: 50, Inconsistencies: 2, Own: 1},
		},
		Entries: 150, Inconsistencies: 2,
		Examples: []Inconsistency{{}},
		Verified: []Material{{Men: 1, OppMen: 1}},
	}
	var b bytes.Buffer
	r.WriteSummary(&b, "dir", 4, 1500*time.Millisecond)
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	want := "2 tables of 2 to 3 pieces in dir: 150 entries checked against one ply on 4 threads in 1.5s: 2 inconsistencies; 1 tables verified (recorded in " + StampName + ")"
	if len(lines) != 3 || lines[0] != fmt.Sprint(Inconsistency{}) || lines[1] != want ||
		lines[2] != "b.tb: 2 of 50 entries inconsistent, 1 of them contradicted by the other tables alone" {
		t.Errorf("got\n%s\nwant the example, then\n%s\nand the line of b.tb", b.String(), want)
	}
}
