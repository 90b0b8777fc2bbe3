package card

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"dama/checkpoints"
)

// readDir returns the names in dir and the content of its files.
func readDir(t *testing.T, dir string) map[string]string {
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

// TestShipment: a shipment writes the four files together, the card from
// the record; one whose card cannot be written fails at Stage and leaves
// the folder as it was, and so does one with a file too large; Rewrite
// writes the card again from the record, and refuses one of another
// version.
func TestShipment(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "shipped")
	rec := Record{Version: Version, ModelSHA: "abc", Revision: "r1", Pieces: []Piece{{Run: "p1", Games: 3}}, Games: 3}
	s, err := Stage(dir, []byte("ckpt"), []byte("onnx"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(rec); err != nil {
		t.Fatal(err)
	}
	s.Abort() // deferred by callers: nothing to do after Commit
	first := readDir(t, dir)
	names := []string{checkpoints.CardFile, checkpoints.ModelFile, checkpoints.ONNXFile, checkpoints.RecordFile}
	if got := slices.Sorted(maps.Keys(first)); !slices.Equal(got, names) {
		t.Fatalf("the shipment wrote %v, want %v", got, names)
	}
	if first[checkpoints.ModelFile] != "ckpt" || first[checkpoints.ONNXFile] != "onnx" || first[checkpoints.CardFile] != rec.Markdown() {
		t.Errorf("the shipped files: %q", first)
	}
	back, err := ReadRecord(filepath.Join(dir, checkpoints.RecordFile))
	if err != nil || back.ModelSHA != "abc" || back.Games != 3 || !strings.HasSuffix(first[checkpoints.RecordFile], "}\n") {
		t.Errorf("the record reads back as %+v (%v):\n%s", back, err, first[checkpoints.RecordFile])
	}

	// A folder where the card goes: Stage fails before any rating, and
	// nothing is replaced or left behind.
	card := filepath.Join(dir, checkpoints.CardFile)
	if err := os.Remove(card); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(card, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	before := readDir(t, dir)
	if _, err := Stage(dir, []byte("ckpt2"), []byte("onnx2")); err == nil || !strings.Contains(err.Error(), "it is a folder") {
		t.Errorf("Stage with a folder at %s: %v", checkpoints.CardFile, err)
	}
	big := make([]byte, MaxFileBytes+1)
	for _, c := range []struct {
		ckpt, onnx []byte
		want       string
	}{
		{big, nil, "the model is 10485761 bytes, over the 10485760 allowed"},
		{nil, big, "the ONNX export is 10485761 bytes"},
	} {
		if _, err := Stage(dir, c.ckpt, c.onnx); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Stage of %d and %d bytes: %v, want %q", len(c.ckpt), len(c.onnx), err, c.want)
		}
	}
	if after := readDir(t, dir); !maps.Equal(after, before) {
		t.Errorf("failed shipments changed the folder: %v, was %v", after, before)
	}

	// Rewrite: the card again from the record, as Commit wrote it.
	if err := os.RemoveAll(card); err != nil {
		t.Fatal(err)
	}
	if err := Rewrite(dir); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(card); err != nil || string(b) != rec.Markdown() {
		t.Errorf("rewritten card %q (%v), want %q", b, err, rec.Markdown())
	}
	writeRecord(t, dir, Record{Version: 9})
	if err := Rewrite(dir); err == nil || !strings.Contains(err.Error(), "version 9") {
		t.Errorf("Rewrite from a record of version 9: %v", err)
	}
	if err := Rewrite(t.TempDir()); err == nil {
		t.Error("Rewrite without a record: no error")
	}
}
