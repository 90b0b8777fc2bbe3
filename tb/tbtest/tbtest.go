// Package tbtest makes small endgame tables for the tests of the packages
// that search or play with them.
package tbtest

import (
	"bytes"
	"compress/flate"
	"context"
	"encoding/binary"
	"os"
	"testing"

	"dama/internal/envelope"
	"dama/tb"
)

// Tables generates the tables of up to pieces pieces (2 or 3 take a second
// or two) in a temporary folder of t and returns the folder and the tables
// opened.
func Tables(t testing.TB, pieces int) (string, *tb.Tables) {
	t.Helper()
	dir := t.TempDir()
	if _, err := tb.Generate(context.Background(), tb.GenOptions{Pieces: pieces, Dir: dir}); err != nil {
		t.Fatal(err)
	}
	tables, err := tb.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return dir, tables
}

// Cache points the user's cache folder (os.UserCacheDir: XDG_CACHE_HOME,
// and HOME where that is not read) at a temporary folder of t for the rest
// of the test, so that generated tables (selfplay.tables "auto:N",
// tb.SharedCache) go there, and returns it. It sets the environment, so
// the test must not be parallel.
func Cache(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", dir)
	t.Setenv("HOME", dir)
	t.Setenv("LocalAppData", dir)
	return dir
}

// ForgeDraws rewrites the table file at path as a forger would: every
// entry a draw, in the file format that tb.FormatVersion documents, with
// the envelope's checksum recomputed, so that only a consistency check
// (tb.Verify) tells it from a genuine table.
func ForgeDraws(t testing.TB, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	version, payload, err := tableFormat.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	// counts (4 bytes), positions (uint64), bits per entry (1 byte), then
	// the packed entries deflated; a draw is code 0.
	const header = 4 + 8 + 1
	if len(payload) < header {
		t.Fatalf("%s: a payload of %d bytes", path, len(payload))
	}
	n := binary.LittleEndian.Uint64(payload[4:12])
	width := uint64(payload[12])
	var forged bytes.Buffer
	forged.Write(payload[:header])
	zw, err := flate.NewWriter(&forged, flate.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := zw.Write(make([]byte, (n*width+7)/8)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, tableFormat.Append(nil, version, forged.Bytes()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// tableFormat is the envelope of the table files.
var tableFormat = envelope.Format{
	Kind:       "endgame table",
	Magic:      [8]byte([]byte("DAMATB\x00\x1a")),
	MinVersion: tb.FormatVersion,
	MaxVersion: tb.FormatVersion,
}
