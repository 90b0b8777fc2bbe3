package suite

import (
	"errors"
	"io/fs"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const goodSuite = `{"version": 1, "proving_depth": 12, "shallow_depth": 3, "min_gain": 100, "min_margin": 100,
 "positions": [{"fen": "W:W18,20,28:B10,16", "best": ["28-23"], "score": 999990, "second": 0, "gain": 1000000, "depth": 12, "shallow": "18-14", "source": "test"}]}`

// TestDecodeSuite: a good suite reads back as written; each damaged one
// is refused with an error naming what is wrong.
func TestDecodeSuite(t *testing.T) {
	s, err := Decode([]byte(goodSuite))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "suite.json")
	if err := s.Write(path); err != nil {
		t.Fatal(err)
	}
	back, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Positions) != 1 || !reflect.DeepEqual(back.Positions[0], s.Positions[0]) || back.ProvingDepth != 12 {
		t.Errorf("read back %+v, wrote %+v", back, s)
	}
	for _, c := range []struct{ text, want string }{
		{`{"positions": []}`, "no version"},
		{`{"version": 4}`, "version 4"},
		{`{"version": 0}`, "version 0"},
		{`not json`, "damaged"},
		{`{"version": 1, "positions": []}`, "no positions"},
		{`{"version": 1, "extra": 3, "positions": []}`, "unknown field"},
		{strings.Replace(goodSuite, "W:W18,20,28:B10,16", "W:W18,20,28:B10,99", 1), "position 1"},
		{strings.Replace(goodSuite, `["28-23"]`, `["27-23"]`, 1), `best move "27-23"`},
		{strings.Replace(goodSuite, `["28-23"]`, `[]`, 1), "no best move"},
		{strings.Replace(goodSuite, `["28-23"]`, `["28-23", "28-23"]`, 1), "given twice"},
		{strings.Replace(goodSuite, `"fen": "W:W18,20,28:B10,16"`, `"fen": "W:W5:B1,2"`, 1), "no move"},
		{strings.Replace(goodSuite, `}]}`, `}, {"fen": "W:W18,20,28:B10,16", "best": ["28-23"]}]}`, 1), "repeats position 1"},
	} {
		_, err := Decode([]byte(c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%.60s...: error %v, want one with %q", c.text, err, c.want)
		}
	}
	// Version 2 adds the audit: proven slower wins of a forced-win position.
	audited := strings.Replace(strings.Replace(goodSuite, `"version": 1,`, `"version": 2, "audit_depth": 16,`, 1), `"shallow"`, `"wins": ["18-14"], "shallow"`, 1)
	if s, err := Decode([]byte(audited)); err != nil || s.AuditDepth != 16 || len(s.Positions[0].Wins) != 1 {
		t.Errorf("audited suite: %+v, %v", s, err)
	}
	for _, c := range []struct{ text, want string }{
		{strings.Replace(audited, `"wins": ["18-14"]`, `"wins": ["17-14"]`, 1), `winning move "17-14"`},
		{strings.Replace(audited, `"wins": ["18-14"]`, `"wins": ["28-23"]`, 1), `winning move "28-23" given twice`},
		{strings.Replace(audited, `"wins": ["18-14"]`, `"wins": ["18-14", "18-14"]`, 1), "given twice"},
		{strings.Replace(audited, `"audit_depth": 16,`, ``, 1), "without an audit"},
		{strings.Replace(audited, `"score": 999990`, `"score": 250`, 1), "without an audit of a forced win, or one with tables"},
		{strings.Replace(audited, `"audit_depth": 16,`, `"audit_depth": 99,`, 1), "audit depth 99"},
		{strings.Replace(audited, `"audit_depth": 16,`, `"audit_depth": 16, "audit_tables": 33,`, 1), "audit tables of 33 pieces"},
		{strings.Replace(audited, `"audit_depth": 16,`, `"audit_tables": 5,`, 1), "audit tables of 5 pieces"},
	} {
		_, err := Decode([]byte(c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%.60s...: error %v, want one with %q", c.text, err, c.want)
		}
	}
	tabled := strings.Replace(strings.Replace(audited, `"score": 999990`, `"score": 250`, 1), `"audit_depth": 16,`, `"audit_depth": 16, "audit_tables": 5,`, 1)
	if s, err := Decode([]byte(tabled)); err != nil || s.AuditTables != 5 || len(s.Positions[0].Wins) != 1 {
		t.Errorf("suite audited with the tables: %+v, %v", s, err)
	}
	if _, err := Read(filepath.Join(t.TempDir(), "missing.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}
