// Package atomicfile writes files so that a reader sees either the old
// content or the new one, never a part: the data goes to a temporary file
// in the same folder (named "."+base+".tmp*"), is synced, and is renamed
// into place. A process killed while writing leaves at most a temporary
// file, which no reader of the real name ever opens; the folder is synced
// after the rename so the new name survives a power loss too.
package atomicfile

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// createTemp creates a temporary file for path in path's folder, and
// returns it with that folder.
func createTemp(path string) (*os.File, string, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp*")
	if err != nil {
		return nil, dir, fmt.Errorf("writing %s: %w", path, err)
	}
	return f, dir, nil
}

// CheckWritable checks, before a long computation whose result goes to
// path, that Write could write path now: path is not a folder and its
// folder takes a new file. It leaves nothing behind.
func CheckWritable(path string) error {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("writing %s: it is a folder", path)
	}
	f, _, err := createTemp(path)
	if err != nil {
		return err
	}
	f.Close()
	if err := os.Remove(f.Name()); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// Write writes path with what write produces.
func Write(path string, write func(w io.Writer) error) error {
	f, dir, err := createTemp(path)
	if err != nil {
		return err
	}
	if err := finish(f, path, write); err != nil {
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("writing %s: %w", path, err)
	}
	syncDir(dir)
	return nil
}

// finish writes what write produces to f, the temporary file of path, and
// syncs and closes it; on an error it removes f.
func finish(f *os.File, path string, write func(w io.Writer) error) (err error) {
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err = f.Chmod(0o644); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = write(f); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// syncDir makes renames in dir durable (best effort: some systems cannot
// sync a folder).
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// WriteFile writes data to path.
func WriteFile(path string, data []byte) error {
	return Write(path, func(w io.Writer) error {
		_, err := io.Copy(w, bytes.NewReader(data))
		return err
	})
}
