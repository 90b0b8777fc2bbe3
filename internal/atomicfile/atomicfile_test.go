package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func TestWriteFileReplaces(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	for _, want := range []string{"first", "second"} {
		if err := WriteFile(p, []byte(want)); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(p)
		if err != nil || string(got) != want {
			t.Fatalf("read %q, %v; want %q", got, err, want)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("folder holds %d entries, want only the file (no temporary left)", len(ents))
	}
}

func TestFailedWriteKeepsOldContent(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := WriteFile(p, []byte("old")); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := Write(p, func(w io.Writer) error {
		w.Write([]byte("half"))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Write error %v, want %v", err, boom)
	}
	got, _ := os.ReadFile(p)
	if string(got) != "old" {
		t.Errorf("after a failed write the file holds %q, want %q", got, "old")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("folder holds %d entries, want 1 (temporary removed)", len(ents))
	}
}

func TestWriteIntoMissingFolder(t *testing.T) {
	if err := WriteFile(filepath.Join(t.TempDir(), "no", "f"), nil); err == nil {
		t.Error("writing into a missing folder succeeded")
	}
}
