package arena

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

func TestPentanomialCounts(t *testing.T) {
	for _, tc := range []struct {
		p       Pentanomial
		w, d, l int
	}{
		{Pentanomial{}, 0, 0, 0},
		{Pentanomial{1, 0, 0, 0, 0}, 0, 0, 2},
		{Pentanomial{0, 1, 0, 0, 0}, 0, 1, 1},
		{Pentanomial{0, 0, 1, 0, 0}, 0, 2, 0}, // a win and a loss, shown as two draws
		{Pentanomial{0, 0, 0, 1, 0}, 1, 1, 0},
		{Pentanomial{0, 0, 0, 0, 1}, 2, 0, 0},
		{Pentanomial{1, 2, 3, 4, 5}, 14, 12, 4},
	} {
		w, d, l := tc.p.Counts()
		if w != tc.w || d != tc.d || l != tc.l {
			t.Errorf("%v: %d/%d/%d, want %d/%d/%d", tc.p, w, d, l, tc.w, tc.d, tc.l)
		}
		if w+d+l != 2*tc.p.Pairs() {
			t.Errorf("%v: %d games counted of %d", tc.p, w+d+l, 2*tc.p.Pairs())
		}
	}
}

// TestLadderTables: a ladder's table has a row per rung and reads back
// from the file Write wrote; a climb's lists the rungs played and ends
// with the rating.
func TestLadderTables(t *testing.T) {
	l := testLadder(t)
	path := filepath.Join(t.TempDir(), "ladder.json")
	if err := l.Write(path); err != nil {
		t.Fatal(err)
	}
	back, err := ReadLadder(path)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	back.WriteTable(&b)
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 2+len(l.Rungs) || !strings.Contains(lines[0], "(revision -)") || !strings.Contains(lines[2], l.Rungs[0].Player) {
		t.Errorf("ladder table:\n%s", b.String())
	}
	res := LadderResult{Player: "p", Games: 4, Rungs: []RungResult{
		{Rung: l.Rungs[0], Pairs: Pentanomial{0, 0, 1, 0, 1}},
		{Rung: l.Rungs[1]}, // not played: no row
	}}
	b.Reset()
	res.WriteTable(&b)
	lines = strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 3 || !strings.Contains(lines[1], l.Rungs[0].Player) || strings.Join(strings.Fields(lines[1])[2:], " ") != "4 2 2 0 75.0% 0.0%" || lines[2] != res.String() {
		t.Errorf("climb table:\n%s", b.String())
	}
}
