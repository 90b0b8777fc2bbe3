package arena

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"dama/internal/evaltest"
	"dama/rules"
)

func TestAlphaBetaFindsForcedWin(t *testing.T) {
	for _, c := range evaltest.WinIn3 {
		p, err := rules.ParseFEN(c.FEN)
		if err != nil {
			t.Fatal(err)
		}
		g := rules.NewGame(p)
		// The oracle confirms the puzzle: one move wins in 3 plies, no
		// other move wins within 5.
		if winners := evaltest.WinningMoves(g, 4); len(winners) != 1 || winners[0] != c.Win {
			t.Fatalf("%s: oracle finds winning moves %v, want only %s", c.FEN, winners, c.Win)
		}
		for depth := 3; depth <= 5; depth++ {
			for seed := uint64(0); seed < 5; seed++ {
				var s searcher
				m, score, err := s.search(context.Background(), g, depth, rand.New(rand.NewPCG(seed, 0)))
				if err != nil {
					t.Fatal(err)
				}
				if m.String() != c.Win || score < winScore-10 {
					t.Errorf("%s depth %d seed %d: played %s with score %d, want %s scored as a win", c.FEN, depth, seed, m, score, c.Win)
				}
			}
		}
	}
}

func TestAlphaBetaScoresLossAndDraw(t *testing.T) {
	// Black's lone man on 28 faces White men that will take it: whatever
	// Black does, it is lost.
	p, err := rules.ParseFEN("B:W31,32,23:B19")
	if err != nil {
		t.Fatal(err)
	}
	g := rules.NewGame(p)
	if !evaltest.ForcedLoss(g, 4) {
		t.Fatalf("test position is not a forced loss for Black")
	}
	var s searcher
	if _, score, err := s.search(context.Background(), g, 4, rand.New(rand.NewPCG(1, 1))); err != nil || score > -winScore+10 {
		t.Errorf("lost position: score %d (err %v), want a loss", score, err)
	}

	// Kings shuffling: after 1 king move each way the position repeats;
	// a threefold repetition must be scored 0 even a king up.
	p, err = rules.ParseFEN("W:WK29,K32:BK1")
	if err != nil {
		t.Fatal(err)
	}
	g = rules.NewGame(p)
	for _, mv := range []string{"29-25", "1-5", "25-29", "5-1", "29-25", "1-5", "25-29"} {
		playNamed(t, g, mv)
	}
	// Black's 5-1 now repeats the start a third time: the draw. Black is a
	// king down, so the searcher must find that its best is 0.
	if g.Repetitions() != 1 {
		t.Fatalf("repetitions = %d, want 1", g.Repetitions())
	}
	_, score, err := s.search(context.Background(), g, 3, rand.New(rand.NewPCG(1, 1)))
	if err != nil || score != 0 {
		t.Errorf("a king down with a repetition available: score %d (err %v), want 0", score, err)
	}
}

func playNamed(t *testing.T, g *rules.Game, s string) {
	t.Helper()
	for _, m := range g.Legal(nil) {
		if m.String() == s {
			if err := g.Play(m); err != nil {
				t.Fatal(err)
			}
			return
		}
	}
	t.Fatalf("move %s is not legal in %s", s, g.Position().FEN())
}

func TestParsePlayer(t *testing.T) {
	for spec, want := range map[string]string{
		"random":       "random",
		"alphabeta":    "alphabeta:4",
		"alphabeta:2":  "alphabeta:2",
		" AlphaBeta:7": "alphabeta:7",
	} {
		p, err := ParsePlayer(spec)
		if err != nil || p.Name() != want {
			t.Errorf("ParsePlayer(%q) = %v, %v; want %s", spec, p, err, want)
		}
	}
	for _, spec := range []string{"", "randm", "random:3", "alphabeta:0", "alphabeta:x", "alphabeta:99"} {
		if _, err := ParsePlayer(spec); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%q", spec)) {
			t.Errorf("ParsePlayer(%q): err %v, want an error quoting the spec", spec, err)
		}
	}
}

func TestOpenings(t *testing.T) {
	a, err := randomOpenings(30, 6, rand.New(rand.NewPCG(5, 5)))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := randomOpenings(30, 6, rand.New(rand.NewPCG(5, 5)))
	c, _ := randomOpenings(30, 6, rand.New(rand.NewPCG(6, 5)))
	if !reflect.DeepEqual(a, b) {
		t.Errorf("same seed gave different openings")
	}
	if reflect.DeepEqual(a, c) {
		t.Errorf("different seeds gave the same openings")
	}
	seen := map[rules.Position]bool{}
	for _, p := range a {
		if seen[p] {
			t.Errorf("opening %s repeated", p.FEN())
		}
		seen[p] = true
		wm, wk := p.Count(rules.White)
		bm, bk := p.Count(rules.Black)
		if d := wm + wk - bm - bk; d > 1 || d < -1 || !p.HasMoves() {
			t.Errorf("opening %s: material difference %d, has moves %v", p.FEN(), d, p.HasMoves())
		}
		if p.Side() != rules.White {
			t.Errorf("opening %s after 6 plies: Black to move", p.FEN())
		}
	}
	if o, err := randomOpenings(1, 0, rand.New(rand.NewPCG(1, 1))); err != nil || len(o) != 1 || o[0] != rules.Start() {
		t.Errorf("randomOpenings(1, 0) = %v, %v; want the start position", o, err)
	}
	if _, err := randomOpenings(2, 0, rand.New(rand.NewPCG(1, 1))); err == nil {
		t.Errorf("randomOpenings(2, 0): want an error, there is only one position")
	}
	if _, err := randomOpenings(3, -1, rand.New(rand.NewPCG(1, 1))); err == nil {
		t.Errorf("randomOpenings(3, -1): want an error")
	}
}

func TestMatchAlphaBetaBeatsRandom(t *testing.T) {
	var mu sync.Mutex
	var games []GameResult
	res, err := Match(context.Background(), alphaBeta{Depth: 2}, randomPlayer{}, MatchOptions{
		Games: 20, Parallel: 2, Seed: 1,
		OnGame: func(g GameResult) { mu.Lock(); games = append(games, g); mu.Unlock() },
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(res)
	if res.Games() != 20 || len(games) != 20 || res.Pairs.Pairs() != 10 {
		t.Fatalf("counted %d games (%d callbacks, %d pairs), want 20, 20, 10", res.Games(), len(games), res.Pairs.Pairs())
	}
	if res.Score() < 0.85 || res.Wins < 16 {
		t.Errorf("alphabeta:2 vs random scored %.2f (+%d =%d -%d), want a clear win", res.Score(), res.Wins, res.Draws, res.Losses)
	}
	if e := res.Estimate(); e.Low <= 0 || e.LOS < 0.99 {
		t.Errorf("estimate %v: want an interval above 0 and LOS > 99%%", e)
	}
	// Paired colours: both games of a pair share the opening, A White in
	// the even one.
	byIndex := map[int]GameResult{}
	for _, g := range games {
		byIndex[g.Index] = g
	}
	for i := 0; i < 20; i += 2 {
		w, b := byIndex[i], byIndex[i+1]
		if w.Start != b.Start || !w.AWhite || b.AWhite || w.White != "alphabeta:2" || b.Black != "alphabeta:2" {
			t.Errorf("pair %d: starts %s / %s, A white %v / %v", i/2, w.Start.FEN(), b.Start.FEN(), w.AWhite, b.AWhite)
		}
		if i > 0 && w.Start == byIndex[i-2].Start {
			t.Errorf("pairs %d and %d share an opening", i/2-1, i/2)
		}
	}
}

// record runs a match and returns its games by index.
func record(t *testing.T, a, b Player, opts MatchOptions) (MatchResult, []GameResult) {
	t.Helper()
	games := make([]GameResult, opts.Games)
	opts.OnGame = func(g GameResult) { games[g.Index] = g }
	res, err := Match(context.Background(), a, b, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res, games
}

func TestMatchDeterministic(t *testing.T) {
	opts := MatchOptions{Games: 12, Parallel: 1, Seed: 42, OpeningPlies: 4}
	r1, g1 := record(t, alphaBeta{Depth: 1}, randomPlayer{}, opts)
	r2, g2 := record(t, alphaBeta{Depth: 1}, randomPlayer{}, opts)
	if !reflect.DeepEqual(r1, r2) || !reflect.DeepEqual(g1, g2) {
		t.Errorf("two runs with seed 42 differ:\n%v\n%v", r1, r2)
	}
	opts.Parallel = 4
	r4, g4 := record(t, alphaBeta{Depth: 1}, randomPlayer{}, opts)
	if !reflect.DeepEqual(r1, r4) || !reflect.DeepEqual(g1, g4) {
		t.Errorf("Parallel 4 played different games from Parallel 1:\n%v\n%v", r1, r4)
	}
	opts.Parallel, opts.Seed = 1, 43
	_, g5 := record(t, alphaBeta{Depth: 1}, randomPlayer{}, opts)
	if reflect.DeepEqual(g1, g5) {
		t.Errorf("seeds 42 and 43 played the same games")
	}
}

func TestMatchSPRTStopsEarly(t *testing.T) {
	s := SPRT{Elo0: 0, Elo1: 100, Alpha: 0.05, Beta: 0.05}
	res, err := Match(context.Background(), alphaBeta{Depth: 2}, randomPlayer{}, MatchOptions{Games: 200, Parallel: 3, Seed: 3, SPRT: &s})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(res)
	if res.Verdict != Accept || !res.Stopped || res.Games() >= 100 || res.LLR < res.Upper {
		t.Errorf("alphabeta:2 vs random under SPRT: %v; want an early accept", res)
	}
	res, err = Match(context.Background(), randomPlayer{}, alphaBeta{Depth: 2}, MatchOptions{Games: 200, Parallel: 1, Seed: 3, SPRT: &s})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(res)
	if res.Verdict != Reject || !res.Stopped || res.Games() >= 100 || res.Discarded != 0 {
		t.Errorf("random vs alphabeta:2 under SPRT: %v; want an early reject with nothing discarded", res)
	}
}

func TestMatchLengthCap(t *testing.T) {
	res, games := record(t, randomPlayer{}, randomPlayer{}, MatchOptions{Games: 6, Parallel: 2, Seed: 9, MaxPlies: 5})
	if res.Draws != 6 || res.Adjudicated != 6 || res.Verdict != Inconclusive {
		t.Errorf("capped at 5 plies: %v; want 6 adjudicated draws", res)
	}
	for _, g := range games {
		if len(g.Moves) != 5 || g.Outcome.Reason != rules.Adjudicated || !strings.Contains(g.Outcome.Note, "5") {
			t.Errorf("game %d: %d moves, outcome %+v", g.Index, len(g.Moves), g.Outcome)
		}
	}
}

func TestMatchOptionErrors(t *testing.T) {
	s := DefaultSPRT
	bad := map[string]MatchOptions{
		"games":     {Games: 7},
		"parallel":  {Games: 2, Parallel: -1},
		"threshold": {Games: 2, SPRT: &s, Threshold: 0.6},
		"alpha":     {Games: 2, SPRT: &SPRT{Elo0: 0, Elo1: 5, Alpha: 2, Beta: 0.05}},
		"plies":     {Games: 2, MaxPlies: -3},
	}
	for name, o := range bad {
		if _, err := Match(context.Background(), randomPlayer{}, randomPlayer{}, o); err == nil {
			t.Errorf("%s: %+v accepted", name, o)
		} else if !strings.Contains(err.Error(), name) {
			t.Errorf("%s: error %q does not name the field", name, err)
		}
	}
}

// cheater plays a move of the wrong side after a few plies.
type cheater struct{}

func (cheater) Name() string { return "cheater" }
func (cheater) Start(context.Context, *rules.Game, *rand.Rand) (GamePlayer, error) {
	return cheaterGame{}, nil
}

type cheaterGame struct{}

func (cheaterGame) Move(_ context.Context, g *rules.Game) (rules.Move, error) {
	if g.Ply() >= 3 {
		return rules.Move{}, nil // the zero move is never legal
	}
	return g.Legal(nil)[0], nil
}
func (cheaterGame) Close() {}

// failing returns an error on its first move.
type failing struct{}

func (failing) Name() string { return "failing" }
func (failing) Start(context.Context, *rules.Game, *rand.Rand) (GamePlayer, error) {
	return failingGame{}, nil
}

type failingGame struct{}

var errBroken = errors.New("broken evaluator")

func (failingGame) Move(context.Context, *rules.Game) (rules.Move, error) {
	return rules.Move{}, errBroken
}
func (failingGame) Close() {}

func TestMatchPlayerErrors(t *testing.T) {
	_, err := Match(context.Background(), cheater{}, randomPlayer{}, MatchOptions{Games: 4, Parallel: 2, Seed: 1})
	if err == nil || !strings.Contains(err.Error(), "cheater") || !errors.Is(err, rules.ErrIllegal) {
		t.Errorf("illegal move: err %v, want an ErrIllegal naming the cheater", err)
	}
	_, err = Match(context.Background(), randomPlayer{}, failing{}, MatchOptions{Games: 4, Parallel: 2, Seed: 1})
	if !errors.Is(err, errBroken) || !strings.Contains(err.Error(), "failing") {
		t.Errorf("failing player: err %v, want errBroken naming the player", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Match(ctx, randomPlayer{}, randomPlayer{}, MatchOptions{Games: 4, Seed: 1}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: err %v, want context.Canceled", err)
	}
}

func BenchmarkAlphaBeta(b *testing.B) {
	g := rules.NewGame(rules.Start())
	rng := rand.New(rand.NewPCG(1, 1))
	var s searcher
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := s.search(context.Background(), g, 6, rng); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(s.nodes)/b.Elapsed().Seconds(), "nodes/s")
}

func TestGameRecord(t *testing.T) {
	_, games := record(t, alphaBeta{Depth: 1}, randomPlayer{}, MatchOptions{Games: 4, Seed: 2, MaxPlies: 30})
	var buf strings.Builder
	recs := make([]rules.Record, len(games))
	for i, g := range games {
		recs[i] = g.Record()
	}
	if err := rules.WritePDN(&buf, recs...); err != nil {
		t.Fatal(err)
	}
	back, err := rules.ParsePDN(buf.String())
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != len(games) {
		t.Fatalf("read back %d games, want %d", len(back), len(games))
	}
	for i, r := range back {
		g := games[i]
		if r.Start != g.Start || !reflect.DeepEqual(r.Moves, g.Moves) || r.Result != g.Outcome.Result {
			t.Errorf("game %d: PDN round trip changed it", i)
		}
		if w, _ := r.Tag("White"); w != g.White {
			t.Errorf("game %d: White tag %q, want %q", i, w, g.White)
		}
	}
}

func TestAlphaBetaVariesWithSeed(t *testing.T) {
	// Equal players from the same opening: different seeds must give
	// different games (tie-breaking by the rng), the same seed the same game.
	opening := []rules.Position{rules.Start()}
	play := func(seed int64) []rules.Move {
		_, games := record(t, alphaBeta{Depth: 2}, alphaBeta{Depth: 2}, MatchOptions{Games: 2, Seed: seed, Openings: opening})
		return games[0].Moves
	}
	a, b := play(1), play(1)
	if !reflect.DeepEqual(a, b) {
		t.Errorf("same seed, different games")
	}
	distinct := 0
	for seed := int64(2); seed < 6; seed++ {
		if !reflect.DeepEqual(a, play(seed)) {
			distinct++
		}
	}
	if distinct == 0 {
		t.Errorf("alphabeta played the same game for seeds 1..5")
	}
}

// A progress display built on Tally agrees with the match's result: the
// games of unfinished pairs are shown apart, never counted (issue 19, item
// 6: a line said +6 =0 -1 over 7 games where the record said 6-0-0).
func TestTallyCountsWholePairs(t *testing.T) {
	var tl Tally
	for _, g := range []GameResult{{Index: 0, ScoreA: 1}, {Index: 3, ScoreA: 0}, {Index: 1, ScoreA: 0.5}} {
		tl.Add(g)
	}
	if got, want := tl.String(), "+1 =1 -0 (1 unpaired game not counted)"; got != want {
		t.Errorf("tally %q, want %q", got, want)
	}
	if other, ok := tl.Add(GameResult{Index: 2, ScoreA: 1}); !ok || other.Index != 3 {
		t.Errorf("game 2 completes pair 1 with game 3: got %d, %v", other.Index, ok)
	}
	if got, want := tl.String(), "+2 =1 -1"; got != want {
		t.Errorf("tally %q, want %q", got, want)
	}
	// A threshold gate that stops early: what a Tally fed by OnGame shows
	// is what the result counts.
	var seen Tally
	res, err := Match(context.Background(), alphaBeta{Depth: 2}, randomPlayer{}, MatchOptions{
		Games: 40, Parallel: 3, Seed: 5, Threshold: 0.55, OnGame: func(g GameResult) { seen.Add(g) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen.Wins != res.Wins || seen.Draws != res.Draws || seen.Losses != res.Losses || seen.Unpaired != res.Discarded {
		t.Errorf("tally %v, result %v (discarded %d)", seen, res, res.Discarded)
	}
}

// ParsePlayers splits a list, trims each spec and refuses one that does
// not parse; ReadLadder("") is the ladder built in.
func TestParsePlayersAndDefaultLadder(t *testing.T) {
	got, err := ParsePlayers("random, alphabeta:2 ,classic:3")
	if err != nil || !slices.Equal(got, []string{"random", "alphabeta:2", "classic:3"}) {
		t.Errorf("got %q, %v", got, err)
	}
	if _, err := ParsePlayers("random,classic:99"); err == nil || !strings.Contains(err.Error(), "classic") {
		t.Errorf("a bad spec: got %v, want its error", err)
	}
	l, err := ReadLadder("")
	if err != nil {
		t.Fatal(err)
	}
	d, err := DefaultLadder()
	if err != nil || !slices.Equal(l.Players(), d.Players()) {
		t.Errorf("ReadLadder(\"\") rungs %v, DefaultLadder's %v (%v)", l.Players(), d.Players(), err)
	}
}
