package runfolder

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExists: a folder is a run folder to read; a missing path or a file
// is an error naming it, and nothing is created.
func TestExists(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := (&Run{Dir: dir}).Exists(); err != nil {
		t.Errorf("a folder: %v", err)
	}
	missing := filepath.Join(dir, "missing")
	for path, want := range map[string]string{missing: "run folder " + missing + ": ", file: "run folder " + file + ": not a directory"} {
		if err := (&Run{Dir: path}).Exists(); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: %v, want an error starting %q", path, err, want)
		}
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Errorf("Exists created %s", missing)
	}
}
