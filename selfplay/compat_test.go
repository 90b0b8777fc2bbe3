package selfplay

import (
	"bytes"
	"os"
	"reflect"
	"testing"
)

// TestReadsVersions2And3 reads files written by the version 2 writer (the
// last before the shared file envelope, issue 11) and by the first version
// 3 writer, each holding the same three games of the Gumbel root search
// (removed since, so they can no longer be played again; in the order
// they finished), with its policy targets: the reader still reads both,
// to the same games, which pass the check of format, legality and
// results. (TestReadsVersion1 reads the
// version 1 sample.)
func TestReadsVersions2And3(t *testing.T) {
	var first map[uint64]*Game // the version 2 sample's games by seed
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
		if err := (&Checker{}).Check(tc.path, h, games); err != nil {
			t.Errorf("%s: %v", tc.path, err)
		}
		if first == nil {
			first = map[uint64]*Game{}
			for _, g := range games {
				first[g.Seed] = g
			}
		} else {
			for _, g := range games {
				if !reflect.DeepEqual(g, first[g.Seed]) {
					t.Errorf("%s: the game of seed %d differs from the version 2 sample's", tc.path, g.Seed)
				}
			}
		}
		policies := 0
		for _, g := range games {
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
	games := policyGames(b, 20)
	benchDecode(b, legacyFile(b, 2, encode(b, testHeader(), games)))
}
