package tb

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dama/internal/envelope"
	"dama/rules"
)

// smallDir generates the tables of up to n pieces into a new folder.
func smallDir(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	if _, err := Generate(context.Background(), GenOptions{Pieces: n, Dir: dir, Workers: 2}); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestPackRoundTrip(t *testing.T) {
	codes := []uint8{0, 1, 2, 162, 7, 0, 0, 99, 161, 3}
	for w := 8; w <= 8; w++ {
		if got := unpack(pack(codes, w), int64(len(codes)), w); !bytes.Equal(got, codes) {
			t.Errorf("width %d: %v, want %v", w, got, codes)
		}
	}
	small := []uint8{0, 1, 2, 3, 1, 0, 3, 3, 2}
	for w := 2; w <= 8; w++ {
		if got := unpack(pack(small, w), int64(len(small)), w); !bytes.Equal(got, small) {
			t.Errorf("width %d: %v, want %v", w, got, small)
		}
	}
}

// TestDamagedFilesRefused: a flipped bit, a cut file, a foreign file and a
// file under another signature's name are each refused by name, by Open
// and by a probe's loading alike.
func TestDamagedFilesRefused(t *testing.T) {
	for _, c := range []struct {
		name   string
		damage func(path string, data []byte) error
		want   string
	}{
		{"flipped bit", func(p string, d []byte) error { d[len(d)/2] ^= 4; return os.WriteFile(p, d, 0o644) }, "checksum mismatch"},
		{"truncated", func(p string, d []byte) error { return os.WriteFile(p, d[:len(d)-9], 0o644) }, "truncated"},
		{"foreign", func(p string, d []byte) error {
			return os.WriteFile(p, []byte("PK\x03\x04 a zip file, not a table"), 0o644)
		}, "not an endgame table (bad magic)"},
		{"other name", func(p string, d []byte) error {
			other, err := os.ReadFile(filepath.Join(filepath.Dir(p), "0101"+Ext))
			if err != nil {
				return err
			}
			return os.WriteFile(p, other, 0o644)
		}, "the file name says 0110"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := smallDir(t, 2)
			path := filepath.Join(dir, "0110"+Ext)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := c.damage(path, data); err != nil {
				t.Fatal(err)
			}
			_, err = Open(dir)
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Open: %v, want an error naming %s with %q", err, path, c.want)
			}
		})
	}
}

func TestBadNamesAndFolders(t *testing.T) {
	dir := smallDir(t, 2)
	// A temporary file of an interrupted write is not a table.
	if err := os.WriteFile(filepath.Join(dir, ".0102"+Ext+".tmp123"), []byte("half"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir); err != nil {
		t.Fatalf("a temporary file made Open fail: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes"+Ext), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), "notes"+Ext) {
		t.Errorf("a stray .dtb file: %v, want an error naming it", err)
	}
	if _, err := Open(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no endgame tables") {
		t.Errorf("empty folder: %v", err)
	}
	if _, err := Open(filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing folder opened")
	}
}

// TestMissingTables: a folder without some 3-piece table answers up to 2
// pieces, and a probe of 3 pieces says so.
func TestMissingTables(t *testing.T) {
	dir := smallDir(t, 3)
	if err := os.Remove(filepath.Join(dir, "0201"+Ext)); err != nil {
		t.Fatal(err)
	}
	tb, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if tb.Pieces() != 2 {
		t.Fatalf("Pieces %d, want 2", tb.Pieces())
	}
	p, _ := rules.ParseFEN("W:WK1,K2:BK32")
	_, err = tb.Probe(p)
	if !errors.Is(err, ErrNotInTables) || err.Error() != "not in the tables (3 pieces, have up to 2)" {
		t.Errorf("probe of 3 pieces: %v", err)
	}
}

// TestResume: a second run skips every finished signature; a removed file
// and a damaged one are generated again, the same bytes as before.
func TestResume(t *testing.T) {
	dir := smallDir(t, 3)
	before := map[string][]byte{}
	files, _ := filepath.Glob(filepath.Join(dir, "*"+Ext))
	for _, f := range files {
		before[f], _ = os.ReadFile(f)
	}
	st, err := Generate(context.Background(), GenOptions{Pieces: 3, Dir: dir})
	if err != nil || st.Skipped != st.Signatures || st.Signatures != len(files) {
		t.Fatalf("rerun: %+v, %v; want all %d skipped", st, err, len(files))
	}
	if err := os.Remove(filepath.Join(dir, "1101"+Ext)); err != nil {
		t.Fatal(err)
	}
	damaged := filepath.Join(dir, "0111"+Ext)
	if err := os.WriteFile(damaged, before[damaged][:20], 0o644); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	st, err = Generate(context.Background(), GenOptions{Pieces: 3, Dir: dir, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	// 1101 and 0111 are twins: one job writes both.
	if st.Signatures-st.Skipped != 2 || !strings.Contains(log.String(), "generating it again") {
		t.Errorf("resume: %+v, log %q", st, log.String())
	}
	for f, want := range before {
		if got, _ := os.ReadFile(f); !bytes.Equal(got, want) {
			t.Errorf("%s differs after the resumed run", f)
		}
	}
}

// TestCancelLeavesNoPartialFile: a generation cancelled part way leaves
// only complete files, and a rerun finishes the rest.
func TestCancelLeavesNoPartialFile(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	w := &cancelAfter{n: 3, cancel: cancel}
	_, err := Generate(ctx, GenOptions{Pieces: 3, Dir: dir, Workers: 1, Log: w})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled run: %v", err)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		m, ok := parseName(strings.TrimSuffix(e.Name(), Ext))
		if !ok {
			t.Fatalf("left %s", e.Name())
		}
		if _, _, err := readTable(filepath.Join(dir, e.Name()), m); err != nil {
			t.Fatal(err)
		}
	}
	if len(ents) == 0 || len(ents) >= len(Signatures(3)) {
		t.Fatalf("%d files after the cancel, want some but not all %d", len(ents), len(Signatures(3)))
	}
	st, err := Generate(context.Background(), GenOptions{Pieces: 3, Dir: dir})
	if err != nil || st.Skipped != len(ents) {
		t.Fatalf("resume: %+v %v, want %d skipped", st, err, len(ents))
	}
}

type cancelAfter struct {
	n      int
	cancel func()
}

func (c *cancelAfter) Write(b []byte) (int, error) {
	if c.n--; c.n <= 0 {
		c.cancel()
	}
	return len(b), nil
}

// FuzzDecode: no input makes the reader panic or fail with another error
// than an *envelope.Error, and what it accepts has the signature's size.
func FuzzDecode(f *testing.F) {
	m := Material{Kings: 1, OppKings: 1}
	codes := make([]uint8, m.Size())
	for i := range codes {
		codes[i] = uint8(i % 7)
	}
	good, err := encode(m, codes)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:len(good)-3])
	f.Add([]byte("DAMATB\x00\x1a"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, codes, err := decode(data)
		if err != nil {
			var e *envelope.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is not an *envelope.Error", err)
			}
			return
		}
		if int64(len(codes)) != m.Size() {
			t.Fatalf("%s: %d codes, want %d", m, len(codes), m.Size())
		}
	})
}

// TestProbeImpossible: a position no game reaches (a man on its crowning
// row, made with rules.NewPosition) is an error, never a value.
func TestProbeImpossible(t *testing.T) {
	tb := testTables(t)
	var board [rules.NumSquares]rules.Piece
	board[1] = rules.WhiteMan
	board[20] = rules.BlackKing
	for _, side := range []rules.Color{rules.White, rules.Black} {
		p := rules.NewPosition(board, side)
		if _, err := tb.Probe(p); err == nil || !strings.Contains(err.Error(), "crowned") {
			t.Errorf("%s: %v", p.FEN(), err)
		}
	}
}
