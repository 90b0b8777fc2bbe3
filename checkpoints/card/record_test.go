package card

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dama/checkpoints"
)

// writeRecord writes r as dir's record.
func writeRecord(t *testing.T, dir string, r Record) {
	t.Helper()
	js, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, checkpoints.RecordFile), js, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestNewRecord: a piece started from the shipped model adds to its
// lineage, the same run shipped again replaces its own piece, any other
// starts a lineage of its own; the totals add up the pieces; a record
// that cannot be read is refused.
func TestNewRecord(t *testing.T) {
	p1 := Piece{Run: "r1", Games: 100, Positions: 1000, CPUHours: 1, WallHours: 2}
	p2 := Piece{Run: "r2", Games: 50, Positions: 400, CPUHours: 0.5, WallHours: 1, InitSHA: "aaa"}
	rating := Rating{Run: "r1", ModelSHA: "aaa", Elo: 1000}
	shipped := Record{Version: Version, ModelSHA: "aaa", Pieces: []Piece{p1}, Ratings: []Rating{rating}}
	for _, c := range []struct {
		name   string
		prev   *Record // nil: no record in the folder
		piece  Piece
		pieces []string // the runs of the new record's pieces
		rated  int
	}{
		{"first ship", nil, p1, []string{"r1"}, 0},
		{"a piece from the shipped model", &shipped, p2, []string{"r1", "r2"}, 1},
		{"the last piece shipped again", &Record{Version: Version, ModelSHA: "bbb", Pieces: []Piece{p1, p2}, Ratings: []Rating{rating}}, p2, []string{"r1", "r2"}, 1},
		{"another lineage", &Record{Version: Version, ModelSHA: "ccc", Pieces: []Piece{p1}, Ratings: []Rating{rating}}, p2, []string{"r2"}, 0},
		{"a piece from no model", &shipped, p1, []string{"r1"}, 0},
	} {
		dir := t.TempDir()
		if c.prev != nil {
			writeRecord(t, dir, *c.prev)
		}
		r, err := NewRecord(dir, c.piece)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		var runs []string
		var games int
		var positions int64
		var cpu, wall float64
		for _, p := range r.Pieces {
			runs = append(runs, p.Run)
			games += p.Games
			positions += p.Positions
			cpu += p.CPUHours
			wall += p.WallHours
		}
		if strings.Join(runs, ",") != strings.Join(c.pieces, ",") || len(r.Ratings) != c.rated || r.Version != Version {
			t.Errorf("%s: pieces %v, %d ratings, version %d; want %v, %d, %d", c.name, runs, len(r.Ratings), r.Version, c.pieces, c.rated, Version)
		}
		if r.Games != games || r.Positions != positions || r.CPUHours != cpu || r.WallHours != wall {
			t.Errorf("%s: totals %d games, %d positions, %v and %v hours; the pieces add up to %d, %d, %v, %v", c.name, r.Games, r.Positions, r.CPUHours, r.WallHours, games, positions, cpu, wall)
		}
	}
	dir := t.TempDir()
	writeRecord(t, dir, Record{Version: 9})
	if _, err := NewRecord(dir, p1); err == nil || !strings.Contains(err.Error(), "version 9, want 1") {
		t.Errorf("a record of version 9: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, checkpoints.RecordFile), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := NewRecord(dir, p1); err == nil || !strings.Contains(err.Error(), filepath.Join(dir, checkpoints.RecordFile)+": ") {
		t.Errorf("a damaged record: %v, want an error naming it", err)
	}
	if _, err := ReadRecord(filepath.Join(t.TempDir(), checkpoints.RecordFile)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("no record: %v, want fs.ErrNotExist", err)
	}
}
