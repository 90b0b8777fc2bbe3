package selfplay

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"dama/configs"
	"dama/internal/envelope"
	"dama/internal/evaltest"
	"dama/rules"
	"dama/tb"
	"dama/tb/tbtest"
)

// TestTablesKey: selfplay.tables gives the searches the tables of the
// folder as their oracle; an empty key none; a folder without tables is
// an error naming the key. The key is in the digest only when set, so the
// digests of earlier settings stay as they were.
func TestTablesKey(t *testing.T) {
	dir, _ := tbtest.Tables(t, 2)
	pl, err := newPlayer(evaltest.Material{}, testConfig(0, func(c *Config) { c.Tables = dir }))
	if err != nil {
		t.Fatal(err)
	}
	if o, ok := pl.search.Options().Oracle.(tb.Oracle); !ok || o.T.Dir() != dir {
		t.Errorf("selfplay.tables %s: the search's oracle is %v", dir, pl.search.Options().Oracle)
	}
	pl, err = newPlayer(evaltest.Material{}, testConfig(0, nil))
	if err != nil || pl.search.Options().Oracle != nil {
		t.Errorf("no tables: oracle %v, err %v", pl.search.Options().Oracle, err)
	}
	_, err = newPlayer(evaltest.Material{}, testConfig(0, func(c *Config) { c.Tables = t.TempDir() }))
	if err == nil || !strings.Contains(err.Error(), "selfplay.tables: ") || !strings.Contains(err.Error(), "no endgame tables") {
		t.Errorf("an empty folder: %v", err)
	}
	if testConfig(0, nil).Digest() == testConfig(0, func(c *Config) { c.Tables = dir }).Digest() {
		t.Error("the tables do not change the digest")
	}
	// A forged table (every entry a draw, its checksum recomputed) is
	// refused by name before any game uses it.
	forged, _ := tbtest.Tables(t, 2)
	path := filepath.Join(forged, "0110.dtb")
	tbtest.ForgeDraws(t, path)
	_, err = newPlayer(evaltest.Material{}, testConfig(0, func(c *Config) { c.Tables = forged }))
	if !errors.Is(err, tb.ErrInconsistent) || !strings.Contains(err.Error(), path+": endgame table: entries inconsistent with their moves") {
		t.Errorf("a forged table: %v", err)
	}
}

// TestAutoTablesKey: selfplay.tables "auto:2" gives the searches the
// tables of up to 2 pieces of the user's cache folder, generated there by
// the first player; the digest holds "auto:2", not the folder, so it is
// the same on every machine.
func TestAutoTablesKey(t *testing.T) {
	tbtest.Cache(t)
	auto := testConfig(0, func(c *Config) { c.Tables = "auto:2" })
	pl, err := newPlayer(evaltest.Material{}, auto)
	if err != nil {
		t.Fatal(err)
	}
	dir, err := tb.CacheDir(2)
	if err != nil {
		t.Fatal(err)
	}
	o, ok := pl.search.Options().Oracle.(tb.Oracle)
	if !ok || o.T.Dir() != dir || o.T.Pieces() != 2 {
		t.Fatalf("selfplay.tables auto:2: the search's oracle is %v, want the tables of %s", pl.search.Options().Oracle, dir)
	}
	if _, err := tb.Open(dir); err != nil {
		t.Errorf("the generated folder: %v", err)
	}
	folder := testConfig(0, func(c *Config) { c.Tables = dir })
	if auto.Digest() == folder.Digest() || auto.Digest() == testConfig(0, nil).Digest() {
		t.Error("auto:2 has the digest of its folder or of no tables")
	}
	if _, err := OpenTables(configs.SelfPlay{Tables: "auto:7"}, nil); err == nil || !strings.Contains(err.Error(), `"auto:7": want auto:N with N in 2..4`) {
		t.Errorf("auto:7: %v", err)
	}
}

// tableGames plays n games of checkConfig with the 3-piece tables of a
// new folder (without resignation, with a longer ply cap, so that games
// reach the tables) and returns the settings, the chunk header and the
// games.
func tableGames(t *testing.T, n int) (Config, Header, []*Game) {
	t.Helper()
	dir, _ := tbtest.Tables(t, 3)
	cfg := checkConfig()
	cfg.Tables, cfg.MaxPlies, cfg.ResignThreshold, cfg.NoResignShare = dir, 400, 0, 0
	var games []*Game
	order := newGameOrder(cfg.Seed, 0, n, func(g *Game) error { games = append(games, g); return nil })
	if err := Run(context.Background(), evaltest.Material{}, cfg, 0, n, order.add); err != nil {
		t.Fatal(err)
	}
	return cfg, Header{Version: FormatVersion, Model: "m", ModelDigest: "d", ConfigDigest: cfg.Digest()}, games
}

// TestTableAdjudication: with selfplay.tables a game ends as soon as its
// position is in the tables, recorded as a table adjudication with the
// result of the table entry at the game's 40-move counter; no position
// before it was in the tables.
func TestTableAdjudication(t *testing.T) {
	cfg, _, games := tableGames(t, 8)
	tables, err := tb.Shared(cfg.Tables)
	if err != nil {
		t.Fatal(err)
	}
	ended := 0
	for _, g := range games {
		rg := rules.NewGame(g.Start)
		for k := range g.Plies {
			if _, ok := TableResult(tables, rg); ok {
				t.Fatalf("game %d: ply %d is in the tables and the game goes on", g.Seed, k)
			}
			rg.PlayUnchecked(g.Plies[k].Played())
		}
		if g.End != Tables {
			continue
		}
		ended++
		p := rg.Position()
		if !tables.Has(p) || rg.Repetitions() != 0 || rg.Outcome().Over() {
			t.Errorf("game %d: adjudicated at %s, repetitions %d", g.Seed, p.FEN(), rg.Repetitions())
		}
		e, err := tables.Probe(p)
		if err != nil {
			t.Fatal(err)
		}
		want := rules.Draw
		switch e.Under(rg.QuietPlies()) {
		case tb.Win:
			want = rules.WinFor(p.Side())
		case tb.Loss:
			want = rules.WinFor(p.Side().Opponent())
		}
		if g.Result != want || !g.End.Adjudicated() {
			t.Errorf("game %d: %s by %s at %s (counter %d), the table entry says %s", g.Seed, g.Result, g.End, p.FEN(), rg.QuietPlies(), want)
		}
	}
	ends := map[Termination]int{}
	for _, g := range games {
		ends[g.End]++
	}
	t.Logf("ends %v", ends)
	if ended == 0 {
		t.Fatal("no game reached the tables")
	}
}

// extend returns g played on by one more ply, the first legal move without
// a search, with the given end and result.
func extend(g *Game, end Termination, result rules.Result) *Game {
	rg := replay(g)
	legal := rg.Legal(nil)
	e := clone(g)
	e.Plies = append(e.Plies, Ply{Pos: rg.Position(), Legal: legal, Visits: make([]uint32, len(legal)),
		Repetitions: rg.Repetitions(), QuietPlies: rg.QuietPlies()})
	e.End, e.Result = end, result
	return e
}

// TestCheckTableAdjudication: the checker accepts the games that end in
// the tables with the run's settings (also through the file format) and,
// for their form, without settings; it refuses a table adjudication of a
// run without tables, a flipped table result, one of a position the
// tables do not answer for and, from format version 6, a game that plays
// on inside the tables. Format version 5 has no table adjudication.
func TestCheckTableAdjudication(t *testing.T) {
	cfg, h, games := tableGames(t, 8)
	c := &Checker{Settings: []configs.SelfPlay{cfg.SelfPlay}}
	if err := c.Check("c", h, games); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.CheckData("c", encode(t, h, games)); err != nil {
		t.Fatal(err)
	}
	if err := (&Checker{}).Check("c", h, games); err != nil {
		t.Errorf("without settings: %v", err)
	}
	i, g := gameBy(t, games, Tables)

	// A run without tables: its digest is not the chunk's, and a game
	// checked by its rules is refused for its table adjudication.
	none := cfg.SelfPlay
	none.Tables = ""
	mustRefuse(t, &Checker{Settings: []configs.SelfPlay{none}}, h, games, -1, "config digest")
	if _, err := validateGame(g, &none, nil, FormatVersion); err == nil || !strings.Contains(err.Error(), "the run has no tables (selfplay.tables is not set)") {
		t.Errorf("a table adjudication without tables: %v", err)
	}

	// The result flipped (a draw made a win): refused, naming the tables'.
	bad := clone(g)
	bad.Result = map[rules.Result]rules.Result{rules.WhiteWins: rules.BlackWins, rules.BlackWins: rules.WhiteWins, rules.Draw: rules.WhiteWins}[g.Result]
	chunk := append([]*Game(nil), games...)
	chunk[i] = bad
	h2, decoded, err := Decode(encode(t, h, chunk))
	if err != nil {
		t.Fatal(err)
	}
	mustRefuse(t, c, h2, decoded, i, "records "+bad.Result.String()+" by table adjudication, but the tables give "+g.Result.String())

	// A game that plays on inside the tables.
	on := extend(g, Tables, g.Result)
	if e, ok := TableResult(mustTables(t, cfg.Tables), replay(on)); ok {
		on.Result = e
	}
	chunk[i] = on
	mustRefuse(t, c, h, chunk, i, "but the game goes on")
	h5 := h
	h5.Version = 5
	if err := c.Check("c", h5, chunk); err != nil {
		t.Errorf("version 5, a game playing on in the tables (played before the table adjudication): %v", err)
	}
	var buf bytes.Buffer
	if err := encodeVersion(&buf, h, games, 5); err == nil || !strings.Contains(err.Error(), "termination 6 is unknown in format version 5") {
		t.Errorf("a table adjudication written as version 5: %v", err)
	}
	// A version 6 file relabelled 5 (the checksum made right): refused.
	v5 := encode(t, h, games)
	binary.LittleEndian.PutUint32(v5[8:], 5)
	if _, _, err := Decode(fixCRC(v5)); !errors.Is(err, envelope.ErrMalformed) || !strings.Contains(err.Error(), "unknown termination 6 in format version 5") {
		t.Errorf("a table adjudication read as version 5: %v", err)
	}

	// A table adjudication of a position with more pieces than the tables:
	// the first position of the game.
	early := clone(g)
	early.Plies = early.Plies[:1]
	chunk[i] = early
	mustRefuse(t, c, h, chunk, i, "not in the tables")
}

// mustTables opens the tables of dir.
func mustTables(t *testing.T, dir string) *tb.Tables {
	t.Helper()
	tables, err := tb.Shared(dir)
	if err != nil {
		t.Fatal(err)
	}
	return tables
}

// replay returns the rules.Game of g's moves.
func replay(g *Game) *rules.Game {
	rg := rules.NewGame(g.Start)
	for k := range g.Plies {
		rg.PlayUnchecked(g.Plies[k].Played())
	}
	return rg
}
