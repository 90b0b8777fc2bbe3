package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// contents returns the files of dir and their contents.
func contents(t *testing.T, dir string) map[string]string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, e := range ents {
		b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		m[e.Name()] = string(b)
	}
	return m
}

func equal(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func TestBatchCommit(t *testing.T) {
	dir := t.TempDir()
	if err := WriteFile(filepath.Join(dir, "a"), []byte("old a")); err != nil {
		t.Fatal(err)
	}
	var b Batch
	for _, n := range []string{"a", "b"} {
		if err := b.AddFile(filepath.Join(dir, n), []byte("new "+n)); err != nil {
			t.Fatal(err)
		}
	}
	if got := contents(t, dir); got["a"] != "old a" || len(got) != 3 {
		t.Errorf("before Commit: %v, want a unchanged and two staged files", got)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	if got, want := contents(t, dir), map[string]string{"a": "new a", "b": "new b"}; !equal(got, want) {
		t.Errorf("after Commit: %v, want %v", got, want)
	}
}

// A rename that fails in the middle of Commit: the files replaced before
// it get their old content back, a file that was new goes, nothing else
// is left behind.
func TestBatchCommitAllOrNothing(t *testing.T) {
	for fail := 0; fail < 4; fail++ {
		dir := t.TempDir()
		for _, n := range []string{"a", "c", "d"} {
			if err := WriteFile(filepath.Join(dir, n), []byte("old "+n)); err != nil {
				t.Fatal(err)
			}
		}
		before := contents(t, dir)
		boom := errors.New("boom")
		calls := 0
		b := Batch{rename: func(from, to string) error {
			calls++
			if calls == fail+1 {
				return boom
			}
			return os.Rename(from, to)
		}}
		for _, n := range []string{"a", "b", "c", "d"} { // b is new
			if err := b.AddFile(filepath.Join(dir, n), []byte("new "+n)); err != nil {
				t.Fatal(err)
			}
		}
		if err := b.Commit(); !errors.Is(err, boom) {
			t.Fatalf("rename %d failing: Commit = %v, want %v", fail+1, err, boom)
		}
		if got := contents(t, dir); !equal(got, before) {
			t.Errorf("rename %d failing: folder holds %v, want %v as before", fail+1, got, before)
		}
	}
}

// A failed Add leaves the files as they were and removes what was staged.
func TestBatchAddFails(t *testing.T) {
	dir := t.TempDir()
	if err := WriteFile(filepath.Join(dir, "a"), []byte("old a")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	before := contents(t, dir)
	var b Batch
	if err := b.AddFile(filepath.Join(dir, "a"), []byte("new a")); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	for _, add := range []func() error{
		func() error { return b.AddFile(filepath.Join(dir, "sub"), nil) },
		func() error { return b.AddFile(filepath.Join(dir, "no", "x"), nil) },
		func() error {
			return b.Add(filepath.Join(dir, "x"), func(w io.Writer) error { return boom })
		},
	} {
		if err := add(); err == nil {
			t.Error("Add succeeded")
		}
		if got := contents(t, dir); !equal(got, before) {
			t.Errorf("after a failed Add: %v, want %v", got, before)
		}
		if err := b.AddFile(filepath.Join(dir, "a"), []byte("new a")); err != nil {
			t.Fatal(err)
		}
	}
	b.Abort()
	if got := contents(t, dir); !equal(got, before) {
		t.Errorf("after Abort: %v, want %v", got, before)
	}
	if err := b.Commit(); err != nil || !slices.Equal([]string{"a", "sub"}, keys(contents(t, dir))) {
		t.Errorf("Commit of an aborted batch: %v, %v", err, contents(t, dir))
	}
}

func keys(m map[string]string) []string {
	var k []string
	for n := range m {
		k = append(k, n)
	}
	slices.Sort(k)
	return k
}
