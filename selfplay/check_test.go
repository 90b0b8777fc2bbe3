package selfplay

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"dama/configs"
	"dama/internal/evaltest"
	"dama/model"
	"dama/rules"
)

// checkConfig is a setting with resignation, a no-resign share and a short
// ply cap, so that its games end in every way.
func checkConfig() Config {
	return testConfig(17, func(c *Config) {
		c.Visits, c.MaxPlies, c.CheapVisits, c.Parallel = 8, 150, 3, 4
		c.ResignThreshold, c.ResignMoves, c.NoResignShare = 0.1, 2, 0.3
	})
}

// checkGames plays n games of checkConfig, game i with seed
// GameSeed(cfg.Seed, i), and returns them with the chunk header.
func checkGames(t testing.TB, n int) (Config, Header, []*Game) {
	t.Helper()
	cfg := checkConfig()
	var games []*Game
	order := newGameOrder(cfg.Seed, 0, n, func(g *Game) error { games = append(games, g); return nil })
	if err := Run(context.Background(), evaltest.Material{}, cfg, 0, n, order.add); err != nil {
		t.Fatal(err)
	}
	return cfg, Header{Version: FormatVersion, Model: "m", ModelDigest: "d", ConfigDigest: cfg.Digest()}, games
}

// gameBy returns the first game that ended by end.
func gameBy(t *testing.T, games []*Game, end Termination) (int, *Game) {
	t.Helper()
	for i, g := range games {
		if g.End == end {
			return i, g
		}
	}
	t.Fatalf("no game ended by %s", end)
	return 0, nil
}

// mustRefuse checks that c refuses the chunk with an error naming the game
// and containing msg.
func mustRefuse(t *testing.T, c *Checker, h Header, games []*Game, game int, msg string) {
	t.Helper()
	err := c.Check("chunk-x-000000.dgames", h, games)
	var ce *CheckError
	if !errors.As(err, &ce) {
		t.Fatalf("err %v, want a *CheckError mentioning %q", err, msg)
	}
	if ce.Game != game || !strings.Contains(err.Error(), msg) || !strings.Contains(err.Error(), "chunk-x-000000.dgames") {
		t.Errorf("err %q (game %d), want game %d and %q", err, ce.Game, game, msg)
	}
}

// clone copies a game deeply enough to change its result and plies.
func clone(g *Game) *Game {
	c := *g
	c.Plies = append([]Ply(nil), g.Plies...)
	return &c
}

// TestCheckAcceptsPlayedGames: the games self-play plays, ending by the
// rules, the ply cap and resignation, pass the check with their settings,
// also after a round trip through the file format.
func TestCheckAcceptsPlayedGames(t *testing.T) {
	cfg, h, games := checkGames(t, 24)
	ends := map[Termination]int{}
	for _, g := range games {
		ends[g.End]++
	}
	if ends[Resigned] == 0 || ends[LengthCap] == 0 {
		t.Fatalf("ends %v: want resignations and ply caps among the games", ends)
	}
	c := &Checker{Settings: []configs.SelfPlay{testConfig(0, nil).SelfPlay, cfg.SelfPlay}}
	if err := c.Check("c", h, games); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.CheckData("c", encode(t, h, games)); err != nil {
		t.Fatal(err)
	}
	// A chunk holding a later stretch of the run's games.
	if err := c.Check("c", h, games[5:9]); err != nil {
		t.Errorf("games 5-8: %v", err)
	}
	if err := (&Checker{}).Check("c", h, games); err != nil {
		t.Errorf("without settings: %v", err)
	}
}

// TestCheckRefusesFlippedResult: a result flipped, with every move legal
// and the checksum right, is refused, whatever the termination says.
func TestCheckRefusesFlippedResult(t *testing.T) {
	cfg, h, games := checkGames(t, 24)
	c := &Checker{Settings: []configs.SelfPlay{cfg.SelfPlay}}
	for _, end := range []Termination{NoMoves, LengthCap, Resigned} {
		i, g := gameBy(t, games, end)
		bad := clone(g)
		switch g.Result {
		case rules.WhiteWins:
			bad.Result = rules.BlackWins
		case rules.BlackWins:
			bad.Result = rules.WhiteWins
		default:
			bad.Result = rules.WhiteWins
		}
		chunk := append([]*Game(nil), games...)
		chunk[i] = bad
		// Through the file format: the checksum is recomputed.
		h2, decoded, err := Decode(encode(t, h, chunk))
		if err != nil {
			t.Fatalf("%s: the flipped chunk does not decode: %v", end, err)
		}
		mustRefuse(t, c, h2, decoded, i, "records "+bad.Result.String())
		mustRefuse(t, &Checker{}, h2, decoded, i, "records "+bad.Result.String())
	}
}

// TestCheckRefusesWinWithMovesLeft: a game whose final position has moves
// left, recorded as a win by the rules, is refused.
func TestCheckRefusesWinWithMovesLeft(t *testing.T) {
	cfg, h, games := checkGames(t, 24)
	i, g := gameBy(t, games, LengthCap)
	bad := clone(g)
	bad.Result, bad.End = rules.WhiteWins, NoMoves
	games[i] = bad
	mustRefuse(t, &Checker{Settings: []configs.SelfPlay{cfg.SelfPlay}}, h, games, i, "is not over")
	// Cut short and called a ply-cap draw.
	short := clone(g)
	short.Plies = short.Plies[:len(short.Plies)-1]
	games[i] = short
	mustRefuse(t, &Checker{Settings: []configs.SelfPlay{cfg.SelfPlay}}, h, games, i, "selfplay.max_plies is 150")
}

// TestCheckRefusesResignationAgainstValues: a resignation whose recorded
// values are not below the threshold, or too few searches below it, or in
// a run without resignation, is refused; the values of files before
// version 4 are not recorded, the earlier searches still count.
func TestCheckRefusesResignationAgainstValues(t *testing.T) {
	cfg, h, games := checkGames(t, 24)
	c := &Checker{Settings: []configs.SelfPlay{cfg.SelfPlay}}
	i, g := gameBy(t, games, Resigned)
	bad := clone(g)
	bad.ResignWDL = [3]float32{0.6, 0.2, 0.2}
	games[i] = bad
	mustRefuse(t, c, h, games, i, "not below resign_threshold")
	// Read as version 3, the last values are unknown: accepted.
	h3 := h
	h3.Version = 3
	if err := c.Check("c", h3, games); err != nil {
		t.Errorf("a version 3 resignation: %v", err)
	}
	// A game cut where the side to move had no low search before.
	var capped *Game
	for _, g := range games {
		if g.End == LengthCap && !g.NoResign {
			capped = g
			break
		}
	}
	if capped == nil {
		t.Fatal("no ply-cap game that resigns")
	}
	cut := false
	for k := 2; k < len(capped.Plies) && !cut; k++ {
		// Resigning at ply k: the side to move's last search is ply k-2.
		if last := &capped.Plies[k-2]; len(last.Legal) < 2 || lowSearch(last, cfg) || len(capped.Plies[k].Legal) < 2 {
			continue
		}
		early := clone(capped)
		early.Plies = early.Plies[:k]
		early.Result, early.End = rules.WinFor(capped.Plies[k].Pos.Side().Opponent()), Resigned
		early.ResignWDL = [3]float32{0, 0, 1}
		early.Seed = g.Seed // in the place of g
		games[i] = early
		mustRefuse(t, c, h3, games, i, "resign_moves is 2")
		cut = true
	}
	if !cut {
		t.Fatal("no place to cut a game")
	}
	// No resignation in a run without it.
	off := cfg
	off.ResignThreshold = 0
	games[i] = g
	h.ConfigDigest = off.Digest()
	first := -1
	for j, g := range games {
		if g.NoResign || g.End == Resigned {
			first = j
			break
		}
	}
	mustRefuse(t, &Checker{Settings: []configs.SelfPlay{off.SelfPlay}}, h, games, first, "resign_threshold is 0")
}

// lowSearch reports whether the ply's search is below cfg's threshold.
func lowSearch(p *Ply, cfg Config) bool {
	return float64(p.WDL[0]+p.WDL[1]/2) < cfg.ResignThreshold
}

// TestCheckTargets: search targets out of form are refused with the ply.
func TestCheckTargets(t *testing.T) {
	_, h, games := checkGames(t, 4)
	g := games[1]
	k := -1
	for j := range g.Plies {
		if g.Plies[j].Full {
			k = j
			break
		}
	}
	if k < 0 {
		t.Fatal("no full search")
	}
	for _, tc := range []struct {
		name string
		set  func(p *Ply)
		msg  string
	}{
		{"W/D/L sum", func(p *Ply) { p.WDL = [3]float32{0.2, 0.2, 0.2} }, "not 1"},
		{"W/D/L negative", func(p *Ply) { p.WDL = [3]float32{1.2, 0, -0.2} }, "each must be in [0,1]"},
		{"no visits", func(p *Ply) { p.Visits = make([]uint32, len(p.Legal)) }, "without visits"},
		{"policy sum", func(p *Ply) { p.Policy = make([]float32, len(p.Legal)); p.Policy[0] = 0.5 }, "policy target sums to 0.5"},
		{"repetitions", func(p *Ply) { p.Repetitions = 1 }, "records repetitions 1"},
	} {
		bad := clone(g)
		tc.set(&bad.Plies[k])
		chunk := []*Game{games[0], bad}
		err := (&Checker{}).Check("c", h, chunk)
		var ce *CheckError
		if !errors.As(err, &ce) || ce.Game != 1 || ce.Ply != k || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: err %v, want game 1, ply %d, %q", tc.name, err, k, tc.msg)
		}
	}
}

// TestCheckHeader: a config digest not of the run's settings, games not of
// the digest's seed, or a model digest not of the run's models is refused.
func TestCheckHeader(t *testing.T) {
	cfg, h, games := checkGames(t, 4)
	c := &Checker{Settings: []configs.SelfPlay{cfg.SelfPlay}}
	other := h
	other.ConfigDigest = testConfig(17, func(c *Config) { c.Visits = 2; c.MaxPlies = 12 }).Digest()
	mustRefuse(t, c, other, games, -1, "config digest")
	mustRefuse(t, c, h, []*Game{games[2], games[1], games[2]}, -1, "game 2's seed")

	dir := t.TempDir()
	tiny, err := model.Preset("tiny")
	if err != nil {
		t.Fatal(err)
	}
	ck := &model.Checkpoint{Net: model.NewSeededNetwork(tiny, 1), Step: 7}
	if err := ck.Save(filepath.Join(dir, "0000.ckpt")); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "0000.ckpt"))
	if err != nil {
		t.Fatal(err)
	}
	c.Models = NewModelSet(dir)
	h.ModelDigest = "sha256:0123"
	mustRefuse(t, c, h, games, -1, "not one of the run's models")
	h.ModelDigest = ModelDigest(data)
	if err := c.Check("c", h, games); err != nil {
		t.Errorf("a model of the run: %v", err)
	}
}

// TestCheckModelDigest: a chunk names its model by the SHA-256 of the
// checkpoint file: one of a checkpoint not in the run's folder, though of
// the same shape and step as one that is, is refused, and so is the form
// run-folder workers wrote before format version 5 (the network's config
// digest "/" the step, which names any such checkpoint) in a file of
// version 5; in a file of an earlier version that form still passes, so
// the chunks of older run folders do (issue 20, point 3).
func TestCheckModelDigest(t *testing.T) {
	cfg, h, games := checkGames(t, 2)
	dir, other := t.TempDir(), t.TempDir()
	tiny, err := model.Preset("tiny")
	if err != nil {
		t.Fatal(err)
	}
	digestOf := func(dir string, seed int64) string {
		t.Helper()
		path := filepath.Join(dir, "0003.ckpt")
		if err := (&model.Checkpoint{Net: model.NewSeededNetwork(tiny, seed), Step: 40}).Save(path); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return ModelDigest(data)
	}
	accepted, impostor := digestOf(dir, 1), digestOf(other, 2)
	legacy := tiny.Digest() + "/40"
	c := &Checker{Settings: []configs.SelfPlay{cfg.SelfPlay}, Models: NewModelSet(dir)}
	for _, tc := range []struct {
		version int
		digest  string
		msg     string // "": accepted
	}{
		{FormatVersion, accepted, ""},
		{FormatVersion, impostor, "not one of the run's models"},
		{FormatVersion, legacy, "SHA-256 of the checkpoint file"},
		{FormatVersion, tiny.Digest() + "/41", "SHA-256 of the checkpoint file"},
		{0, legacy, "SHA-256 of the checkpoint file"},
		{4, legacy, ""},
		{2, legacy, ""},
		{4, accepted, ""},
		{4, impostor, "not one of the run's models"},
		{4, tiny.Digest() + "/41", "not one of the run's models"},
	} {
		hv := h
		hv.Version, hv.ModelDigest = tc.version, tc.digest
		err := c.Check("chunk-x-000000.dgames", hv, games)
		if tc.msg == "" {
			if err != nil {
				t.Errorf("version %d, digest %s: %v", tc.version, tc.digest, err)
			}
			continue
		}
		if err == nil || !Refused(err) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("version %d, digest %s: err %v, want a refusal mentioning %q", tc.version, tc.digest, err, tc.msg)
		}
	}
	// What a file of this version says: the digest as written.
	h.ModelDigest = impostor
	if _, _, err := c.CheckData("c", encode(t, h, games)); err == nil || !strings.Contains(err.Error(), "not one of the run's models") {
		t.Errorf("a written chunk of an impostor model: %v", err)
	}
}

// TestCheckPastSettings: a run whose selfplay.pass_forced, resign_threshold
// or max_plies changed (dama train --allow-change) still accepts a chunk
// played under the old setting, through Past, and checks its games by that
// setting's rules; a chunk claiming a setting the run never had is still
// refused, and an error of Past is not the chunk's fault (issue 20, point 3:
// chunks waiting from before a change were quarantined).
func TestCheckPastSettings(t *testing.T) {
	old, h, games := checkGames(t, 24)
	for _, tc := range []struct {
		name string
		set  func(*configs.SelfPlay)
	}{
		{"pass_forced", func(s *configs.SelfPlay) { s.PassForced = true }},
		{"resign_threshold", func(s *configs.SelfPlay) { s.ResignThreshold = 0.2 }},
		{"max_plies", func(s *configs.SelfPlay) { s.MaxPlies = 200 }},
	} {
		cur := old.SelfPlay
		tc.set(&cur)
		calls := 0
		past := func() ([]configs.SelfPlay, error) { calls++; return []configs.SelfPlay{cur, old.SelfPlay}, nil }
		now := &Checker{Settings: []configs.SelfPlay{cur}}
		mustRefuse(t, now, h, games, -1, "config digest")
		c := &Checker{Settings: []configs.SelfPlay{cur}, Past: past}
		if err := c.Check("c", h, games); err != nil {
			t.Errorf("%s: a chunk of the old setting: %v", tc.name, err)
		}
		if calls != 1 {
			t.Errorf("%s: Past called %d times, want once", tc.name, calls)
		}
		// A chunk of the current setting does not read the past (whatever
		// its games give under the current rules).
		mine := h
		mine.ConfigDigest = Config{SelfPlay: cur, Seed: old.Seed}.Digest()
		_ = c.Check("c", mine, games)
		if calls != 1 {
			t.Errorf("%s: Past called for a chunk of the current setting", tc.name)
		}
		// Forged: the digest of a setting the run never had, with the
		// games' own base seed.
		never := old.SelfPlay
		never.Visits++
		forged := h
		forged.ConfigDigest = Config{SelfPlay: never, Seed: old.Seed}.Digest()
		mustRefuse(t, c, forged, games, -1, "config digest")
		// A flipped result under the old setting is refused as before.
		i, g := gameBy(t, games, NoMoves)
		bad := clone(g)
		bad.Result = rules.WhiteWins
		if g.Result == rules.WhiteWins {
			bad.Result = rules.BlackWins
		}
		flipped := append([]*Game(nil), games...)
		flipped[i] = bad
		mustRefuse(t, c, h, flipped, i, "records")
	}
	// Each game is checked by the rules of its chunk's setting: the old
	// games, ended at the old ply cap, are refused under the new one.
	_, capped := gameBy(t, games, LengthCap)
	cur := old.SelfPlay
	cur.MaxPlies = 200
	c := &Checker{Settings: []configs.SelfPlay{cur}, Past: func() ([]configs.SelfPlay, error) { return []configs.SelfPlay{old.SelfPlay}, nil }}
	relabelled := h
	relabelled.ConfigDigest = Config{SelfPlay: cur, Seed: old.Seed}.Digest()
	mustRefuse(t, c, relabelled, []*Game{capped}, 0, "selfplay.max_plies is 200")
	if err := c.Check("c", h, []*Game{capped}); err != nil {
		t.Errorf("the capped game under its own setting: %v", err)
	}
	failing := &Checker{Settings: []configs.SelfPlay{cur}, Past: func() ([]configs.SelfPlay, error) { return nil, errors.New("disk on fire") }}
	if err := failing.Check("c", h, games); err == nil || Refused(err) || !strings.Contains(err.Error(), "disk on fire") {
		t.Errorf("Past failing: err %v (refused %v), want an error that does not refuse the chunk", err, Refused(err))
	}
}

// TestCheckCommittedSamples: the committed files of versions 1 to 3 and 6
// pass the check of format, legality and results (the version 6 one also
// that of its settings and tables: TestReadsVersion6).
func TestCheckCommittedSamples(t *testing.T) {
	for _, name := range []string{"games-v1.dgames", "games-v2.dgames", "games-v3.dgames", "games-v6.dgames"} {
		if _, _, err := (&Checker{}).CheckFile(filepath.Join("testdata", name)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestUnmixSeed: unmixSeed undoes GameSeed's mixing.
func TestUnmixSeed(t *testing.T) {
	for _, base := range []uint64{0, 1, 17, 1 << 63, ^uint64(0)} {
		for _, i := range []int{0, 1, 63, 100000} {
			if got, want := unmixSeed(GameSeed(base, i)), base+uint64(i+1)*golden; got != want {
				t.Errorf("base %d index %d: %x, want %x", base, i, got, want)
			}
		}
	}
}

// TestQuarantine: a refused chunk moves into the folder with its reason.
func TestQuarantine(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "chunk-a-000000.dgames")
	if err := os.WriteFile(src, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	dst, err := Quarantine(src, filepath.Join(dir, "quarantine"), errors.New("bad result"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(src); !os.IsNotExist(err) {
		t.Errorf("the chunk is still in place: %v", err)
	}
	why, err := os.ReadFile(dst + ".why")
	if err != nil || string(why) != "bad result\n" {
		t.Errorf("why file %q, err %v", why, err)
	}
	if b, err := os.ReadFile(dst); err != nil || string(b) != "x" {
		t.Errorf("quarantined chunk %q, err %v", b, err)
	}
}

// TestCheckSearchStatistics: visit counts beyond the settings' search
// sizes are refused with the ply: a full search beyond selfplay.visits,
// a cheap one beyond what cheap_visits and the tree kept allow, a forced
// move with visits the tree did not keep, a cheap search in a run without
// them, a stored policy target; the games self-play plays (tree reuse,
// cheap searches, pass_forced, leaves in flight) pass.
func TestCheckSearchStatistics(t *testing.T) {
	cfg := testConfig(23, func(c *Config) {
		c.Visits, c.MaxPlies, c.CheapVisits, c.Parallel, c.LeavesInFlight, c.PassForced = 10, 80, 4, 4, 3, true
	})
	var games []*Game
	order := newGameOrder(cfg.Seed, 0, 6, func(g *Game) error { games = append(games, g); return nil })
	if err := Run(context.Background(), evaltest.Material{}, cfg, 0, 6, order.add); err != nil {
		t.Fatal(err)
	}
	h := Header{Version: FormatVersion, ConfigDigest: cfg.Digest()}
	c := &Checker{Settings: []configs.SelfPlay{cfg.SelfPlay}}
	if err := c.Check("c", h, games); err != nil {
		t.Fatalf("played games: %v", err)
	}
	// Plies of each kind, after a ply whose played move kept few visits.
	find := func(what string, ok func(prev, p *Ply) bool) (int, int) {
		t.Helper()
		for i, g := range games {
			for k := range g.Plies {
				prev := &Ply{Legal: g.Plies[k].Legal[:1], Visits: []uint32{0}}
				if k > 0 {
					prev = &g.Plies[k-1]
				}
				if ok(prev, &g.Plies[k]) {
					return i, k
				}
			}
		}
		t.Fatalf("no %s ply", what)
		return 0, 0
	}
	kept := func(p *Ply) uint32 { return p.Visits[p.Move] }
	full := func(prev, p *Ply) bool { return p.Full && kept(prev) < 4 }
	cheap := func(prev, p *Ply) bool { return !p.Full && len(p.Legal) > 1 && kept(prev) < 4 }
	anyCheap := func(prev, p *Ply) bool { return !p.Full && len(p.Legal) > 1 }
	forced := func(prev, p *Ply) bool { return len(p.Legal) == 1 && kept(prev) < 4 }
	for _, tc := range []struct {
		name  string
		which func(prev, p *Ply) bool
		set   func(p *Ply)
		c     *Checker
		msg   string
	}{
		{"4294967295 visits", full, func(p *Ply) { p.Visits[0] = 4294967295 }, c, "a full search (selfplay.visits 10)"},
		{"one visit too many", full, func(p *Ply) { p.Visits[0] += 10 - uint32(visitSum(p)) + 1 }, c, "at most 10"},
		{"cheap search too long", cheap, func(p *Ply) { p.Visits[0] += 5 }, c, "a cheap search (selfplay.cheap_visits 4)"},
		{"forced move with visits", forced, func(p *Ply) { p.Visits[0] += 5 }, c, "a forced move"},
		{"policy target", full, func(p *Ply) { p.Policy = make([]float32, len(p.Legal)); p.Policy[0] = 1 }, c, "stored policy target"},
		{"cheap search without cheap_visits", anyCheap, func(*Ply) {}, &Checker{Settings: []configs.SelfPlay{func() configs.SelfPlay {
			s := cfg.SelfPlay
			s.FullSearchProb = 1
			return s
		}()}}, "no cheap searches"},
	} {
		i, k := find(tc.name, tc.which)
		bad := clone(games[i])
		bad.Plies[k].Visits = slices.Clone(bad.Plies[k].Visits)
		tc.set(&bad.Plies[k])
		h := h
		h.ConfigDigest = Config{SelfPlay: tc.c.Settings[0], Seed: cfg.Seed}.Digest()
		err := tc.c.Check("c", h, []*Game{bad})
		var ce *CheckError
		if !errors.As(err, &ce) || ce.Game != 0 || ce.Ply != k || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: err %v, want game 0, ply %d, %q", tc.name, err, k, tc.msg)
		}
	}
}
