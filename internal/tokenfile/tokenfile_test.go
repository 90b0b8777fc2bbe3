package tokenfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, text string
		mode       os.FileMode
		want, err  string
	}{
		{"ok", "s3cret\n", 0o600, "s3cret", ""},
		{"open", "s3cret\n", 0o644, "", "readable by others"},
		{"empty", "\n", 0o600, "", "does not hold one token"},
		{"two", "a b\n", 0o600, "", "does not hold one token"},
	} {
		path := filepath.Join(dir, c.name)
		if err := os.WriteFile(path, []byte(c.text), 0o600); err != nil {
			t.Fatal(err)
		}
		os.Chmod(path, c.mode)
		got, err := Read(path)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) || !strings.Contains(err.Error(), path) {
				t.Errorf("%s: %q, %v; want an error naming the file with %q", c.name, got, err, c.err)
			}
		} else if err != nil || got != c.want {
			t.Errorf("%s: %q, %v; want %q", c.name, got, err, c.want)
		}
	}
	if _, err := Read(filepath.Join(dir, "none")); err == nil {
		t.Error("a missing file: no error")
	}
}
