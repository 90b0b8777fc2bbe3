package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
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

// CheckWritable finds, without writing, what would make Write fail: a
// missing folder, a folder at the path.
func TestCheckWritable(t *testing.T) {
	dir := t.TempDir()
	if err := CheckWritable(filepath.Join(dir, "f")); err != nil {
		t.Errorf("a new file in a folder: %v", err)
	}
	if err := WriteFile(filepath.Join(dir, "old"), []byte("x")); err != nil {
		t.Fatal(err)
	}
	if err := CheckWritable(filepath.Join(dir, "old")); err != nil {
		t.Errorf("an existing file: %v", err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{filepath.Join(dir, "no", "f"), filepath.Join(dir, "sub"), filepath.Join(dir, "old", "f")} {
		if err := CheckWritable(bad); err == nil || !strings.Contains(err.Error(), "writing "+bad) {
			t.Errorf("CheckWritable(%s) = %v, want an error naming it", bad, err)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("folder holds %d entries, want 2 (nothing left behind)", len(ents))
	}
}
