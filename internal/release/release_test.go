package release

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var when = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// files writes README.md, dama (executable) and LICENSE into a new folder
// with the given permissions and file times, and returns their paths in
// an order that is not the archive's.
func files(t *testing.T, perm os.FileMode, mtime time.Time) []string {
	t.Helper()
	dir := t.TempDir()
	var paths []string
	for _, f := range []struct {
		name, text string
		exec       bool
	}{{"README.md", "# dama\n", false}, {"dama", "\x7fELF binary", true}, {"LICENSE", "licence text\n", false}} {
		p := filepath.Join(dir, f.name)
		mode := perm &^ 0o111
		if f.exec {
			mode = perm | 0o100
		}
		if err := os.WriteFile(p, []byte(f.text), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

func archive(t *testing.T, format Format, paths []string) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, format, "dama-v1-linux-amd64", paths, when.In(time.FixedZone("CET", 3600))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// The same files give the same bytes whatever their times, permissions
// (umask) and order on disk.
func TestReproducible(t *testing.T) {
	for _, format := range []Format{TarGz, Zip} {
		a := archive(t, format, files(t, 0o644, time.Now()))
		p := files(t, 0o640, time.Unix(12345, 0))
		p[0], p[2] = p[2], p[0]
		if b := archive(t, format, p); !bytes.Equal(a, b) {
			t.Errorf("format %d: two archives of the same files differ (%d and %d bytes)", format, len(a), len(b))
		}
	}
}

var want = []struct {
	name string
	mode int64
	text string
}{
	{"dama-v1-linux-amd64/", 0o755, ""},
	{"dama-v1-linux-amd64/LICENSE", 0o644, "licence text\n"},
	{"dama-v1-linux-amd64/README.md", 0o644, "# dama\n"},
	{"dama-v1-linux-amd64/dama", 0o755, "\x7fELF binary"},
}

func TestTarGzEntries(t *testing.T) {
	gz, err := gzip.NewReader(bytes.NewReader(archive(t, TarGz, files(t, 0o664, time.Now()))))
	if err != nil {
		t.Fatal(err)
	}
	if gz.Name != "" || !gz.ModTime.Equal(when) {
		t.Errorf("gzip header: name %q, time %v; want no name and %v", gz.Name, gz.ModTime, when)
	}
	tr := tar.NewReader(gz)
	for i := 0; ; i++ {
		h, err := tr.Next()
		if err == io.EOF {
			if i != len(want) {
				t.Errorf("%d entries, want %d", i, len(want))
			}
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(tr)
		if i >= len(want) {
			t.Fatalf("extra entry %s", h.Name)
		}
		w := want[i]
		if h.Name != w.name || h.Mode != w.mode || string(data) != w.text || !h.ModTime.Equal(when) || h.Uid != 0 || h.Gid != 0 || h.Uname != "" || h.Gname != "" || h.Format != tar.FormatUSTAR {
			t.Errorf("entry %d: %s mode %o time %v owner %d:%d %q:%q format %v, %q; want %s mode %o time %v owner 0:0, no names, USTAR, %q",
				i, h.Name, h.Mode, h.ModTime, h.Uid, h.Gid, h.Uname, h.Gname, h.Format, data, w.name, w.mode, when, w.text)
		}
	}
}

func TestZipEntries(t *testing.T) {
	b := archive(t, Zip, files(t, 0o664, time.Now()))
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	if len(zr.File) != len(want) {
		t.Fatalf("%d entries, want %d", len(zr.File), len(want))
	}
	for i, f := range zr.File {
		w := want[i]
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(rc)
		rc.Close()
		if f.Name != w.name || int64(f.Mode().Perm()) != w.mode || string(data) != w.text || !f.Modified.Equal(when) {
			t.Errorf("entry %d: %s mode %v time %v, %q; want %s mode %o time %v, %q", i, f.Name, f.Mode(), f.Modified, data, w.name, w.mode, when, w.text)
		}
	}
}

func TestErrors(t *testing.T) {
	p := files(t, 0o644, when)
	dir := t.TempDir()
	twin := filepath.Join(dir, "dama")
	if err := os.WriteFile(twin, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		top   string
		files []string
		want  string
	}{
		{"dama-v1", append(p, twin), "two files named dama"},
		{"a/b", p, `"a/b": want one plain name`},
		{"", p, "want one plain name"},
		{"dama-v1", []string{filepath.Join(dir, "missing")}, "missing"},
		{"dama-v1", []string{dir}, "not a regular file"},
	} {
		err := Write(io.Discard, TarGz, tc.top, tc.files, when)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Write(%q, %v): error %v, want one containing %q", tc.top, tc.files, err, tc.want)
		}
	}
	if _, err := FormatOf("dama.tgz"); err == nil || !strings.Contains(err.Error(), "dama.tgz") {
		t.Errorf("FormatOf(dama.tgz): %v, want an error naming it", err)
	}
	for name, f := range map[string]Format{"a.tar.gz": TarGz, "a.zip": Zip} {
		if got, err := FormatOf(name); err != nil || got != f {
			t.Errorf("FormatOf(%s) = %d, %v; want %d", name, got, err, f)
		}
	}
}
