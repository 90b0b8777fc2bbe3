package configs

import (
	"strings"
	"testing"
)

// TestAutoTables: selfplay.tables "auto:N" asks for generated tables of up
// to N pieces, N in 2..MaxAutoTablePieces; any other value is a folder.
func TestAutoTables(t *testing.T) {
	for _, tc := range []struct {
		tables string
		pieces int
		auto   bool
	}{
		{"", 0, false},
		{"/tmp/tb", 0, false},
		{"auto", 0, false}, // a folder named auto
		{"auto:2", 2, true},
		{"auto:4", 4, true},
		{"auto:5", 0, true},
		{"auto:1", 0, true},
		{"auto:", 0, true},
		{"auto:04", 0, true},
		{"auto:+3", 0, true},
		{"auto:x", 0, true},
	} {
		n, auto := SelfPlay{Tables: tc.tables}.AutoTables()
		if n != tc.pieces || auto != tc.auto {
			t.Errorf("%q: AutoTables() = %d, %v, want %d, %v", tc.tables, n, auto, tc.pieces, tc.auto)
		}
	}
}

// TestTablesOverride: dama train --set selfplay.tables=auto:4 loads; a bad
// number of pieces is a one-line error naming the key, the value and what
// is allowed; the archived YAML (and so the digest) of a configuration
// without tables has no tables line, as before the key existed.
func TestTablesOverride(t *testing.T) {
	c, err := Load("quick", nil, []string{"selfplay.tables=auto:4"})
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := c.SelfPlay.AutoTables(); c.SelfPlay.Tables != "auto:4" || n != 4 || !ok {
		t.Errorf("selfplay.tables = %q: auto %d %v", c.SelfPlay.Tables, n, ok)
	}
	y, err := c.YAML()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(y), "tables: auto:4\n") {
		t.Errorf("the archived YAML lacks the tables:\n%s", y)
	}
	back, err := Load(writeFile(t, string(y)), nil, nil)
	if err != nil || back.SelfPlay.Tables != "auto:4" || back.Digest() != c.Digest() {
		t.Errorf("read back: %v, tables %q", err, back.SelfPlay.Tables)
	}

	for _, bad := range []string{"auto:5", "auto:1", "auto:", "auto:four"} {
		_, err := Load("quick", nil, []string{"selfplay.tables=" + bad})
		if err == nil {
			t.Errorf("selfplay.tables=%s loaded", bad)
			continue
		}
		msg := err.Error()
		if strings.Contains(msg, "\n") || !strings.Contains(msg, "selfplay.tables") || !strings.Contains(msg, bad) ||
			!strings.Contains(msg, "auto:N with N in 2..4") || !strings.Contains(msg, "dama tb gen") {
			t.Errorf("selfplay.tables=%s: error %q", bad, msg)
		}
	}

	q, err := Load("quick", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if y, _ := q.YAML(); strings.Contains(string(y), "tables") {
		t.Errorf("a configuration without tables archives a tables line:\n%s", y)
	}
}
