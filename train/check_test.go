package train

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dama/selfplay"
)

// CheckGames passes the committed sample chunks with one line, and checks
// a folder through: a chunk that fails gets its line, the others are
// counted, and the error counts the failures.
func TestCheckGames(t *testing.T) {
	var out bytes.Buffer
	if err := CheckGames(&out, "../selfplay/testdata", ""); err != nil {
		t.Fatal(err)
	}
	if want := "4 chunks, 15 games, 1085 positions: all pass the trainer's check (format, legality and results)\n"; out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
	dir := t.TempDir()
	files, err := filepath.Glob("../selfplay/testdata/*" + selfplay.FileExt)
	if err != nil || len(files) == 0 {
		t.Fatalf("the samples: %v %v", files, err)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "chunk-a-000000"+selfplay.FileExt), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "chunk-b-000000"+selfplay.FileExt), data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	err = CheckGames(&out, dir, "")
	if err == nil || !strings.HasPrefix(err.Error(), "1 of 2 chunks fail the trainer's check") {
		t.Errorf("a cut chunk: got %v, want 1 of 2 chunks failing", err)
	}
	if !strings.HasPrefix(out.String(), "chunk-b-000000"+selfplay.FileExt+": ") || strings.Count(out.String(), "\n") != 1 {
		t.Errorf("got %q, want one line naming the cut chunk", out.String())
	}
	if err := CheckGames(&out, t.TempDir(), ""); err == nil || !strings.Contains(err.Error(), "no game files") {
		t.Errorf("an empty folder: got %v", err)
	}
	if err := CheckGames(&out, dir, t.TempDir()); err == nil || !strings.HasPrefix(err.Error(), "--run ") {
		t.Errorf("a folder that is no run: got %v, want an error naming --run", err)
	}
}
