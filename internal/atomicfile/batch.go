package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// Batch replaces several files together, for files that must agree with
// each other: Add writes each new content to a temporary file next to its
// path, and Commit renames them all into place. A failed Add or Commit
// leaves every path as it was: if a rename fails, Commit puts back the
// files it already replaced (their old content was kept under a second
// name) and removes those that did not exist. Abort, or a failed Add or
// Commit, removes what was staged.
type Batch struct {
	files []staged
	// rename is os.Rename; a test makes it fail.
	rename func(oldpath, newpath string) error
}

// staged is one file of a Batch.
type staged struct {
	path, tmp string
	dir       string // the folder of path
	old       string // during Commit: the old content's second name; "" when path did not exist
}

// Add writes what write produces to a temporary file that Commit renames
// to path. A path that is a folder, or already added, is an error; after
// an error the batch is aborted.
func (b *Batch) Add(path string, write func(w io.Writer) error) (err error) {
	defer func() {
		if err != nil {
			b.Abort()
		}
	}()
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("writing %s: it is a folder", path)
	}
	for _, f := range b.files {
		if f.path == path {
			return fmt.Errorf("writing %s: added twice", path)
		}
	}
	f, dir, err := createTemp(path)
	if err != nil {
		return err
	}
	b.files = append(b.files, staged{path: path, tmp: f.Name(), dir: dir})
	return finish(f, path, write)
}

// AddFile adds path with content data.
func (b *Batch) AddFile(path string, data []byte) error {
	return b.Add(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// Commit renames every added file into place, all or none (see Batch).
func (b *Batch) Commit() error {
	defer b.Abort()
	rename := b.rename
	if rename == nil {
		rename = os.Rename
	}
	// Keep each old content under a second name first, so that a failed
	// rename can be undone.
	for i := range b.files {
		f := &b.files[i]
		if err := f.keepOld(); err != nil {
			b.dropOld()
			return err
		}
	}
	for i, f := range b.files {
		if err := rename(f.tmp, f.path); err != nil {
			err = fmt.Errorf("writing %s: %w", f.path, err)
			for j := range b.files[:i] {
				g := &b.files[j]
				if g.old == "" {
					err = errors.Join(err, os.Remove(g.path))
				} else if rerr := rename(g.old, g.path); rerr != nil {
					err = errors.Join(err, fmt.Errorf("putting back %s: %w (its old content is in %s)", g.path, rerr, g.old))
					g.old = "" // kept for the user
				}
			}
			b.dropOld()
			return err
		}
	}
	dirs := map[string]bool{}
	for _, f := range b.files {
		if !dirs[f.dir] {
			dirs[f.dir] = true
			syncDir(f.dir)
		}
	}
	b.dropOld()
	b.files = nil
	return nil
}

// Abort removes the staged files of an uncommitted batch.
func (b *Batch) Abort() {
	for _, f := range b.files {
		os.Remove(f.tmp)
	}
	b.files = nil
}

// keepOld gives the current content of f.path a second name, f.old: a hard
// link, or a copy where links are not supported.
func (f *staged) keepOld() error {
	if _, err := os.Lstat(f.path); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	old := f.tmp + ".old"
	if err := os.Link(f.path, old); err != nil {
		data, rerr := os.ReadFile(f.path)
		if rerr != nil {
			return fmt.Errorf("writing %s: keeping its old content: %w", f.path, rerr)
		}
		if werr := os.WriteFile(old, data, 0o644); werr != nil {
			os.Remove(old)
			return fmt.Errorf("writing %s: keeping its old content: %w", f.path, werr)
		}
	}
	f.old = old
	return nil
}

// dropOld removes the second names of old contents (after a rename
// failed, those put back are gone already).
func (b *Batch) dropOld() {
	for i := range b.files {
		if f := &b.files[i]; f.old != "" {
			os.Remove(f.old)
			f.old = ""
		}
	}
}
