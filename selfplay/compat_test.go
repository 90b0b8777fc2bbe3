package selfplay

import (
	"bytes"
	"os"
	"reflect"
	"testing"
)

// TestReadsVersions2And3 reads files written by the version 2 writer (the
// last before the shared file envelope, issue 11) and by the first version
// 3 writer, each holding the games gumbelGames(3) played then, with policy
// targets: the reader still reads both, and the games are the ones played
// now. (TestReadsVersion1 reads the version 1 sample.)
func TestReadsVersions2And3(t *testing.T) {
	now := map[uint64]*Game{}
	for _, g := range gumbelGames(t, 3) {
		now[g.Seed] = g
	}
	for _, tc := range []struct {
		path    string
		version int
	}{
		{"testdata/games-v2.dgames", 2},
		{"testdata/games-v3.dgames", 3},
	} {
		h, games, err := ReadFile(tc.path)
		if err != nil {
			t.Fatal(err)
		}
		want := testHeader()
		want.Version, want.Games = tc.version, 3
		if !h.Created.Equal(want.Created) {
			t.Errorf("%s: created %v, want %v", tc.path, h.Created, want.Created)
		}
		h.Created = want.Created
		if h != want {
			t.Errorf("%s: header %+v, want %+v", tc.path, h, want)
		}
		policies := 0
		for _, g := range games {
			ng, ok := now[g.Seed]
			if !ok || !reflect.DeepEqual(g, ng) {
				t.Errorf("%s: game of seed %d differs from the game played now with the same settings", tc.path, g.Seed)
			}
			for i := range g.Plies {
				if g.Plies[i].Policy != nil {
					policies++
				}
			}
		}
		if policies == 0 {
			t.Errorf("%s holds no policy target", tc.path)
		}
	}
}

// TestVersion3IsTheEnvelope checks that the version 3 sample is a bare
// envelope (so Decode reads it through envelope.Open, not the older
// frame), and that the writer frames files the same way now. (The
// compressed bytes themselves may change with the Go release.)
func TestVersion3IsTheEnvelope(t *testing.T) {
	raw, err := os.ReadFile("testdata/games-v3.dgames")
	if err != nil {
		t.Fatal(err)
	}
	if _, legacy := legacyVersion(raw); legacy {
		t.Fatalf("the version 3 sample is taken for a file of the older frame")
	}
	version, _, err := fileFormat.Open(raw)
	if err != nil || version != 3 {
		t.Fatalf("the version 3 sample: version %d, err %v", version, err)
	}
	h, games, err := Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	again := encode(t, h, games)
	if !bytes.Equal(again[:8], raw[:8]) {
		t.Errorf("the writer begins files with %q, the sample with %q", again[:8], raw[:8])
	}
	if v, _, err := fileFormat.Open(again); err != nil || v != FormatVersion {
		t.Errorf("re-encoded sample: version %d, err %v", v, err)
	}
}

// BenchmarkDecodeVersion2 is BenchmarkDecode on the same games in a file
// of version 2 (the frame before the envelope).
func BenchmarkDecodeVersion2(b *testing.B) {
	games := gumbelGames(b, 20)
	benchDecode(b, legacyFile(b, 2, encode(b, testHeader(), games)))
}
