package selfplay

import (
	"reflect"
	"testing"
)

// TestReadsVersion2 reads a file written by the version 2 writer (the last
// before the shared file envelope, issue 11), holding the games
// gumbelGames(3) played then, with policy targets: the reader still reads
// version 2 files, and the games are the ones played now.
func TestReadsVersion2(t *testing.T) {
	h, games, err := ReadFile("testdata/games-v2.dgames")
	if err != nil {
		t.Fatal(err)
	}
	want := testHeader()
	want.Version, want.Games = 2, 3
	if !h.Created.Equal(want.Created) {
		t.Errorf("created %v, want %v", h.Created, want.Created)
	}
	h.Created = want.Created
	if h != want {
		t.Errorf("header %+v, want %+v", h, want)
	}
	now := map[uint64]*Game{}
	for _, g := range gumbelGames(t, 3) {
		now[g.Seed] = g
	}
	policies := 0
	for _, g := range games {
		ng, ok := now[g.Seed]
		if !ok || !reflect.DeepEqual(g, ng) {
			t.Errorf("game of seed %d in the version 2 file differs from the game played now with the same settings", g.Seed)
		}
		for i := range g.Plies {
			if g.Plies[i].Policy != nil {
				policies++
			}
		}
	}
	if policies == 0 {
		t.Errorf("the version 2 sample holds no policy target")
	}
}

// BenchmarkDecode decodes an in-memory chunk of 20 games as the trainer
// reads them (the part of ReadFile after reading the file):
//
//	go test ./selfplay/ -run XXX -bench Decode
func BenchmarkDecode(b *testing.B) {
	games := gumbelGames(b, 20)
	data := encode(b, testHeader(), games)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var n, positions int
	for b.Loop() {
		_, gs, err := Decode(data)
		if err != nil {
			b.Fatal(err)
		}
		for _, g := range gs {
			positions += len(g.Plies)
		}
		n += len(gs)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "games/s")
	b.ReportMetric(float64(positions)/b.Elapsed().Seconds(), "positions/s")
}
