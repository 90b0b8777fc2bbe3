package selfplay

import (
	"context"
	"flag"
	"os"
	"reflect"
	"testing"

	"dama/configs"
	"dama/internal/atomicfile"
	"dama/internal/evaltest"
	"dama/rules"
	"dama/tb"
	"dama/tb/tbtest"
)

var writeV6 = flag.Bool("write-v6-sample", false, "write testdata/games-v6.dgames, the committed sample of format version 6 (once: later writers must read the bytes written then)")

// v6Sample is the committed chunk of format version 6: games played with
// the generated tables of up to 3 pieces (selfplay.tables auto:3), some
// ended by table adjudication.
const v6Sample = "testdata/games-v6.dgames"

// v6Config is the settings of the version 6 sample's games: a cheap
// search of the material evaluator, long games without resignation so
// that they reach the tables.
func v6Config() Config {
	return testConfig(29, func(c *Config) {
		c.Visits, c.MaxPlies, c.CheapVisits, c.Parallel = 8, 400, 3, 3
		c.ResignThreshold, c.NoResignShare = 0, 0
		c.Tables = "auto:3"
	})
}

// v6Games plays the version 6 sample's games, in order of their indices,
// with the tables of up to 3 pieces generated into a temporary cache.
func v6Games(t *testing.T) []*Game {
	t.Helper()
	tbtest.Cache(t)
	cfg := v6Config()
	var games []*Game
	order := newGameOrder(cfg.Seed, 0, 6, func(g *Game) error { games = append(games, g); return nil })
	if err := Run(context.Background(), evaltest.Material{}, cfg, 0, 6, order.add); err != nil {
		t.Fatal(err)
	}
	return games
}

// v6Header is the version 6 sample's header.
func v6Header() Header {
	h := testHeader()
	h.Version, h.ConfigDigest = 6, v6Config().Digest()
	return h
}

// TestWriteVersion6Sample writes the version 6 sample when asked
// (go test ./selfplay -run TestWriteVersion6Sample -write-v6-sample).
func TestWriteVersion6Sample(t *testing.T) {
	if !*writeV6 {
		t.Skip("run with -write-v6-sample to write " + v6Sample)
	}
	if FormatVersion != 6 {
		t.Fatalf("the writer writes version %d: the version 6 sample is written once, by a version 6 writer", FormatVersion)
	}
	if err := atomicfile.WriteFile(v6Sample, encode(t, v6Header(), v6Games(t))); err != nil {
		t.Fatal(err)
	}
}

// TestReadsVersion6: the committed version 6 sample reads with its
// header, holds table adjudications, passes the check of its settings
// (selfplay.tables auto:3: every table result held to the tables,
// generated here as any machine generates them) and is the games played
// now with those settings; with a table result flipped it is refused.
func TestReadsVersion6(t *testing.T) {
	h, games, err := ReadFile(v6Sample)
	if err != nil {
		t.Fatal(err)
	}
	want := v6Header()
	want.Games = len(games)
	if !h.Created.Equal(want.Created) {
		t.Errorf("created %v, want %v", h.Created, want.Created)
	}
	h.Created = want.Created
	if h != want || len(games) != 6 {
		t.Errorf("header %+v, %d games; want %+v, 6 games", h, len(games), want)
	}
	now := v6Games(t) // generates the tables into the test's cache
	if !reflect.DeepEqual(games, now) {
		t.Errorf("the sample's games differ from the games played now with the same settings")
	}
	cfg := v6Config()
	dir, err := tb.CacheDir(3)
	if err != nil {
		t.Fatal(err)
	}
	tables, err := tb.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	adjudicated := 0
	for _, g := range games {
		if g.End != Tables {
			continue
		}
		adjudicated++
		rg := replay(g)
		e, err := tables.Probe(rg.Position())
		if err != nil {
			t.Fatal(err)
		}
		exact := rules.Draw
		switch e.Under(rg.QuietPlies()) {
		case tb.Win:
			exact = rules.WinFor(rg.Position().Side())
		case tb.Loss:
			exact = rules.WinFor(rg.Position().Side().Opponent())
		}
		if g.Result != exact {
			t.Errorf("game %d: %s by table adjudication at %s (counter %d), the table entry: %s", g.Seed, g.Result, rg.Position().FEN(), rg.QuietPlies(), exact)
		}
	}
	if adjudicated < 2 {
		t.Errorf("%d table adjudications in the sample, want at least 2", adjudicated)
	}
	c := &Checker{Settings: []configs.SelfPlay{cfg.SelfPlay}}
	if _, _, err := c.CheckFile(v6Sample); err != nil {
		t.Errorf("the check of the sample's settings: %v", err)
	}
	i, g := gameBy(t, games, Tables)
	bad := clone(g)
	bad.Result = map[rules.Result]rules.Result{rules.WhiteWins: rules.BlackWins, rules.BlackWins: rules.WhiteWins, rules.Draw: rules.WhiteWins}[g.Result]
	flipped := append([]*Game(nil), games...)
	flipped[i] = bad
	mustRefuse(t, c, h, flipped, i, "by table adjudication, but the tables give "+g.Result.String())
}

// TestVersion6SampleSize keeps the committed sample small.
func TestVersion6SampleSize(t *testing.T) {
	st, err := os.Stat(v6Sample)
	if err != nil {
		t.Fatal(err)
	}
	if st.Size() > 32<<10 {
		t.Errorf("%s is %d bytes; keep the committed sample under 32 KiB", v6Sample, st.Size())
	}
}
