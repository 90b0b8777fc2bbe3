package tb

import (
	"context"
	"crypto/sha256"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// forge rewrites m's table in dir with f applied to its codes, in a valid
// file (its checksum recomputed), as a forger would, and returns its path.
func forge(t *testing.T, dir string, m Material, f func(codes []uint8)) string {
	t.Helper()
	path := filepath.Join(dir, m.String()+Ext)
	codes, _, err := readTable(path, m)
	if err != nil {
		t.Fatal(err)
	}
	f(codes)
	if _, err := writeTable(path, m, codes); err != nil {
		t.Fatal(err)
	}
	return path
}

// firstIndex returns the first index point of m's table that is not a
// hole and whose code satisfies ok.
func firstIndex(t *testing.T, codes []uint8, m Material, ok func(c uint8) bool) int64 {
	t.Helper()
	for i := range int64(len(codes)) {
		if _, real := unindexSides(m, i); real && ok(codes[i]) {
			return i
		}
	}
	t.Fatalf("%s: no index point to forge", m)
	return 0
}

// The forgeries of the tests, each on the 3-piece tables: what is done to
// which table, and the index point that one ply must catch (-1: any).
var forgeries = []struct {
	name string
	m    Material
	f    func(t *testing.T, codes []uint8, m Material) int64
}{
	{"all draws", Material{Kings: 2, OppKings: 1}, func(t *testing.T, codes []uint8, m Material) int64 {
		clear(codes)
		return -1
	}},
	{"a win one ply longer", Material{Kings: 2, OppKings: 1}, func(t *testing.T, codes []uint8, m Material) int64 {
		i := firstIndex(t, codes, m, func(c uint8) bool { return isWin(c) && dist(c) < 80 })
		codes[i] = winCode(dist(codes[i]) + 1)
		return i
	}},
	{"a loss made a draw", Material{Kings: 1, OppKings: 2}, func(t *testing.T, codes []uint8, m Material) int64 {
		i := firstIndex(t, codes, m, isLoss)
		codes[i] = 0
		return i
	}},
	{"a draw made a win", Material{Men: 1, Kings: 1, OppKings: 1}, func(t *testing.T, codes []uint8, m Material) int64 {
		i := firstIndex(t, codes, m, func(c uint8) bool { return c == 0 })
		codes[i] = winCode(3)
		return i
	}},
	{"a hole holding a win", Material{Men: 1, OppMen: 1, OppKings: 1}, func(t *testing.T, codes []uint8, m Material) int64 {
		for i := range int64(len(codes)) {
			if _, real := unindexSides(m, i); !real {
				codes[i] = winCode(1)
				return i
			}
		}
		t.Fatal("no hole")
		return 0
	}},
}

// TestVerifyFindsForgeries: each forgery of a 3-piece table, its file
// valid, is found by Verify at the entry forged (with what the table
// stores and what one ply gives), the table and the tables that reach it
// are not verified, and the others are; Open refuses the folder with one
// line naming the file, whether or not a stamp vouched for the genuine
// table before.
func TestVerifyFindsForgeries(t *testing.T) {
	genuine := smallDir(t, 3)
	if _, err := VerifyDir(context.Background(), genuine, VerifyOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, c := range forgeries {
		t.Run(c.name, func(t *testing.T) {
			dir := copyDir(t, genuine)
			var at int64
			path := forge(t, dir, c.m, func(codes []uint8) { at = c.f(t, codes, c.m) })
			tables, err := load(dir)
			if err != nil {
				t.Fatal(err)
			}
			r, err := Verify(context.Background(), tables, VerifyOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if r.Inconsistencies == 0 || len(r.Examples) == 0 {
				t.Fatalf("Verify found nothing: %+v", r)
			}
			var tr TableReport
			for _, x := range r.Tables {
				if x.Material == c.m {
					tr = x
				}
			}
			first := tr.First
			if tr.Inconsistencies == 0 || (at >= 0 && first.Index != at) || first.Path != path || (first.Stored == first.OnePly && !first.Hole) {
				t.Errorf("%s: %d inconsistencies, the first %+v; want one at index %d (-1: any) of %s, two entries that differ", c.m, tr.Inconsistencies, first, at, path)
			}
			if slices.Contains(r.Verified, c.m) || len(r.Verified) == 0 || len(r.Verified) >= len(Signatures(3)) {
				t.Errorf("verified %v: want some tables, not all, and not %s", r.Verified, c.m)
			}
			for _, m := range Signatures(2) {
				if !slices.Contains(r.Verified, m) {
					t.Errorf("the genuine 2-piece table %s is not verified: %v", m, r.Verified)
				}
			}
			// The report's error names the forged file (alone, or with its
			// colour twin when the entries cannot tell which of the two is
			// wrong), as Open's does; with the genuine table's stamp in
			// place Open verifies only the forged one, and names it alone.
			if err := r.Err(); err == nil || !strings.Contains(err.Error(), path) {
				t.Errorf("the report's error %v does not name %s", err, path)
			}
			_, err = Open(dir)
			var ie *InconsistentError
			if !errors.Is(err, ErrInconsistent) || !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), path+": ") || strings.Contains(err.Error(), "\n") {
				t.Errorf("Open with the genuine stamp: %v, want one line naming %s, wrapping ErrInconsistent", err, path)
			}
			if err := os.Remove(filepath.Join(dir, StampName)); err != nil {
				t.Fatal(err)
			}
			if _, err = Open(dir); !errors.Is(err, ErrInconsistent) || !strings.Contains(err.Error(), path) || strings.Contains(err.Error(), "\n") {
				t.Errorf("Open without a stamp: %v, want one line naming %s", err, path)
			}
			if _, err := os.Stat(filepath.Join(dir, StampName)); err == nil {
				t.Error("a refused Open wrote a stamp")
			}
		})
	}
}

// TestOpenRefusesForgedStamp: a table forged wholesale (every entry a
// draw) under a stamp forged to vouch for it is still refused by Open's
// sampled check, naming the file and the stamp.
func TestOpenRefusesForgedStamp(t *testing.T) {
	dir := smallDir(t, 3)
	m := Material{Kings: 2, OppKings: 1}
	path := forge(t, dir, m, func(codes []uint8) { clear(codes) })
	s := stamp{}
	tables, err := load(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range tables.Files() {
		s[f.Material] = f.SHA256
	}
	if err := writeStamp(filepath.Join(dir, StampName), s); err != nil {
		t.Fatal(err)
	}
	_, err = Open(dir)
	var ie *InconsistentError
	if !errors.As(err, &ie) || !ie.Sampled || !strings.HasPrefix(err.Error(), path+": ") || !strings.Contains(err.Error(), StampName) {
		t.Fatalf("Open: %v, want a sampled check's error naming %s and the stamp", err, path)
	}
}

// TestOpenStamp: the first Open of a folder verifies every table and
// records them in the stamp; the next one samples them; a damaged stamp is
// verified again and rewritten; a table changed under the stamp is
// verified again alone.
func TestOpenStamp(t *testing.T) {
	dir := smallDir(t, 3)
	n := len(Signatures(3))
	tables, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if c := tables.Check(); c.Verified != n || c.Stamped != 0 || c.Entries == 0 || c.StampNote != "" {
		t.Fatalf("first Open: %+v, want all %d tables verified", c, n)
	}
	stampPath := filepath.Join(dir, StampName)
	s, err := readStamp(stampPath)
	if err != nil || len(s) != n {
		t.Fatalf("stamp after the first Open: %d tables, %v; want %d", len(s), err, n)
	}
	tables, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if c := tables.Check(); c.Stamped != n || c.Verified != 0 || c.Sampled == 0 {
		t.Fatalf("second Open: %+v, want all %d tables vouched for and sampled", c, n)
	}
	// A damaged stamp: everything verified again, and a stamp that reads.
	data, _ := os.ReadFile(stampPath)
	data[len(data)/2] ^= 1
	if err := os.WriteFile(stampPath, data, 0o644); err != nil {
		t.Fatal(err)
	}
	tables, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if c := tables.Check(); c.Verified != n || !strings.Contains(c.StampNote, "checksum mismatch") {
		t.Fatalf("Open with a damaged stamp: %+v, want every table verified and a note", c)
	}
	if s, err := readStamp(stampPath); err != nil || len(s) != n {
		t.Fatalf("stamp not rewritten: %d tables, %v", len(s), err)
	}
	// A stamp that records another file for one table (as after the
	// table was replaced): that table is verified again, alone.
	m := Material{Men: 1, Kings: 1, OppKings: 1}
	s, _ = readStamp(stampPath)
	s[m] = [sha256.Size]byte{1}
	if err := writeStamp(stampPath, s); err != nil {
		t.Fatal(err)
	}
	tables, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if c := tables.Check(); c.Verified != 1 || c.Stamped != n-1 || c.Entries != m.Size() {
		t.Fatalf("Open with one table not vouched for: %+v, want it verified alone (%d entries)", c, m.Size())
	}
}

// TestVerifyThreads: the report of one thread and of several is the same,
// for genuine tables and for a forged one.
func TestVerifyThreads(t *testing.T) {
	dir := smallDir(t, 3)
	forge(t, dir, Material{Kings: 2, OppKings: 1}, func(codes []uint8) {
		for i := range codes {
			if i%3 == 0 {
				codes[i] = 0
			}
		}
	})
	tables, err := load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var progress []int64
	one, err := Verify(context.Background(), tables, VerifyOptions{Threads: 1, Progress: func(done, total int64) { progress = append(progress, done, total) }})
	if err != nil {
		t.Fatal(err)
	}
	if one.Inconsistencies == 0 || len(one.Examples) != 10 {
		t.Fatalf("one thread: %d inconsistencies, %d examples; want some, 10 examples", one.Inconsistencies, len(one.Examples))
	}
	if n := len(progress); n == 0 || progress[n-2] != one.Entries || progress[n-1] != one.Entries {
		t.Errorf("progress %v, want it to end at %d of %d", progress, one.Entries, one.Entries)
	}
	many, err := Verify(context.Background(), tables, VerifyOptions{Threads: 7})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(one, many) {
		t.Errorf("7 threads:\n%+v\none thread:\n%+v", many, one)
	}
	// A sampled check is the same on any threads too.
	a, _ := Verify(context.Background(), tables, VerifyOptions{Threads: 1, Sample: 500, Seed: 3})
	b, _ := Verify(context.Background(), tables, VerifyOptions{Threads: 5, Sample: 500, Seed: 3})
	if !reflect.DeepEqual(a, b) || !a.Sampled || len(a.Verified) != 0 || a.Inconsistencies == 0 {
		t.Errorf("sampled: one thread %+v, five %+v; want equal, sampled, inconsistent, nothing verified", a, b)
	}
}

// TestVerifyErrors: a cancelled context, a table the folder does not
// have and a sampled VerifyDir are errors.
func TestVerifyErrors(t *testing.T) {
	dir := smallDir(t, 3)
	tables, err := load(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Verify(ctx, tables, VerifyOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if _, err := Verify(context.Background(), tables, VerifyOptions{Tables: []Material{{Kings: 3, OppKings: 1}}}); err == nil || !strings.Contains(err.Error(), "no table 0301") {
		t.Errorf("a table of 4 pieces in 3-piece tables: %v", err)
	}
	if _, err := VerifyDir(context.Background(), dir, VerifyOptions{Sample: 3}); err == nil {
		t.Error("VerifyDir took a sample")
	}
}

// TestVerifyDirStamp: VerifyDir records exactly the verified tables, so a
// forged table (and the tables that reach it) leave the stamp.
func TestVerifyDirStamp(t *testing.T) {
	dir := smallDir(t, 3)
	m := Material{Men: 1, Kings: 1, OppKings: 1}
	forge(t, dir, m, func(codes []uint8) { clear(codes) })
	r, err := VerifyDir(context.Background(), dir, VerifyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := readStamp(filepath.Join(dir, StampName))
	if err != nil {
		t.Fatal(err)
	}
	var got []Material
	for k := range s {
		got = append(got, k)
	}
	slices.SortFunc(got, compareMaterial)
	if !reflect.DeepEqual(got, r.Verified) || slices.Contains(got, m) || r.Err() == nil {
		t.Errorf("stamp holds %v, verified %v; want the same, without %s", got, r.Verified, m)
	}
}

// copyDir copies the files of dir into a new folder.
func copyDir(t *testing.T, dir string) string {
	t.Helper()
	out := t.TempDir()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(out, e.Name()), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return out
}
