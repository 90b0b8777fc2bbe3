package main

import (
	"archive/zip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "dama.exe")
	if err := os.WriteFile(in, []byte("MZ"), 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "dama-v1-windows-amd64.zip")
	if err := run(out, "dama-v1-windows-amd64", 1767322800, []string{in}); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.OpenReader(out)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	if len(zr.File) != 2 || zr.File[1].Name != "dama-v1-windows-amd64/dama.exe" || zr.File[1].Modified.Unix() != 1767322800 {
		t.Errorf("archive holds %d entries, the last %s dated %v", len(zr.File), zr.File[len(zr.File)-1].Name, zr.File[len(zr.File)-1].Modified)
	}
	for _, tc := range []struct {
		out, top string
		mtime    int64
		files    []string
		want     string
	}{
		{filepath.Join(dir, "a.tgz"), "a", 0, []string{in}, "a.tgz: want a name ending in .tar.gz or .zip"},
		{filepath.Join(dir, "a.zip"), "", 0, []string{in}, "usage"},
		{filepath.Join(dir, "a.zip"), "a", -1, []string{in}, "usage"},
		{filepath.Join(dir, "a.zip"), "a", 0, nil, "usage"},
		{filepath.Join(dir, "a.zip"), "a", 0, []string{filepath.Join(dir, "none")}, "none"},
	} {
		if err := run(tc.out, tc.top, tc.mtime, tc.files); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("run(%q, %q, %d, %v): %v, want an error containing %q", tc.out, tc.top, tc.mtime, tc.files, err, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "a.zip")); !os.IsNotExist(err) {
		t.Errorf("a failed run left a.zip behind: %v", err)
	}
}
