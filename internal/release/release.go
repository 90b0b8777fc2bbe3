// Package release writes the archives of a release (scripts/release) so
// that the same files give the same bytes on any machine: the entries in
// name order under one top folder, one modification time for all (the
// commit's date), owner and group 0 with no names, modes 0755 for
// executables and 0644 for the rest, and compression by Go's own
// compress/flate rather than the host's gzip or zip, whose output differs
// between versions.
package release

import (
	"archive/tar"
	"archive/zip"
	"compress/flate"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Format is the kind of archive: tar.gz (Unix) or zip (Windows).
type Format int

const (
	TarGz Format = iota // .tar.gz
	Zip                 // .zip
)

// FormatOf returns the format a file name's extension asks for.
func FormatOf(name string) (Format, error) {
	switch {
	case strings.HasSuffix(name, ".tar.gz"):
		return TarGz, nil
	case strings.HasSuffix(name, ".zip"):
		return Zip, nil
	}
	return 0, fmt.Errorf("%s: want a name ending in .tar.gz or .zip", name)
}

// entry is one file of an archive.
type entry struct {
	name string // under the top folder
	mode int64  // 0755 or 0644
	data []byte
}

// Write writes an archive of files (paths on disk) to w, each as
// top/BASENAME, every entry dated mtime. The files must have distinct base
// names; a file with any execute bit is stored as 0755.
func Write(w io.Writer, format Format, top string, files []string, mtime time.Time) error {
	if top == "" || strings.ContainsAny(top, `/\`) || top == "." || top == ".." {
		return fmt.Errorf("archive folder %q: want one plain name", top)
	}
	var es []entry
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil {
			return err
		}
		if !st.Mode().IsRegular() {
			return fmt.Errorf("%s: not a regular file", f)
		}
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		mode := int64(0o644)
		if st.Mode().Perm()&0o111 != 0 {
			mode = 0o755
		}
		es = append(es, entry{name: filepath.Base(f), mode: mode, data: data})
	}
	slices.SortFunc(es, func(a, b entry) int { return strings.Compare(a.name, b.name) })
	for i := 1; i < len(es); i++ {
		if es[i].name == es[i-1].name {
			return fmt.Errorf("two files named %s in one archive", es[i].name)
		}
	}
	mtime = mtime.UTC().Truncate(time.Second)
	if format == Zip {
		return writeZip(w, top, es, mtime)
	}
	return writeTarGz(w, top, es, mtime)
}

func writeTarGz(w io.Writer, top string, es []entry, mtime time.Time) error {
	// The gzip header carries no name and the commit's date; Go writes
	// 255 (unknown) as its operating system byte on every host.
	gz, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	gz.ModTime = mtime
	tw := tar.NewWriter(gz)
	hdr := func(name string, typ byte, mode, size int64) *tar.Header {
		return &tar.Header{Typeflag: typ, Name: name, Mode: mode, Size: size, ModTime: mtime, Format: tar.FormatUSTAR}
	}
	if err := tw.WriteHeader(hdr(top+"/", tar.TypeDir, 0o755, 0)); err != nil {
		return err
	}
	for _, e := range es {
		if err := tw.WriteHeader(hdr(path.Join(top, e.name), tar.TypeReg, e.mode, int64(len(e.data)))); err != nil {
			return fmt.Errorf("%s: %w", e.name, err)
		}
		if _, err := tw.Write(e.data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

func writeZip(w io.Writer, top string, es []entry, mtime time.Time) error {
	zw := zip.NewWriter(w)
	zw.RegisterCompressor(zip.Deflate, func(out io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(out, flate.BestCompression)
	})
	dir := &zip.FileHeader{Name: top + "/", Modified: mtime}
	dir.SetMode(0o755 | os.ModeDir)
	if _, err := zw.CreateHeader(dir); err != nil {
		return err
	}
	for _, e := range es {
		h := &zip.FileHeader{Name: path.Join(top, e.name), Method: zip.Deflate, Modified: mtime}
		h.SetMode(os.FileMode(e.mode))
		f, err := zw.CreateHeader(h)
		if err != nil {
			return fmt.Errorf("%s: %w", e.name, err)
		}
		if _, err := f.Write(e.data); err != nil {
			return err
		}
	}
	return zw.Close()
}
