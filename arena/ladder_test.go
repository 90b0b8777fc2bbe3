package arena

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"
)

// expectedPairs returns n pairs whose outcomes follow the logistic model
// for a player diff Elo stronger, with no draws and independent games:
// the pentanomial counts are the binomial probabilities of 0, 1 or 2 wins
// (rounded), so the fit sees the model's own expectation.
func expectedPairs(n int, diff float64) Pentanomial {
	p := ExpectedScore(diff)
	var pp Pentanomial
	pp[0] = int(math.Round(float64(n) * (1 - p) * (1 - p)))
	pp[4] = int(math.Round(float64(n) * p * p))
	pp[2] = n - pp[0] - pp[4]
	return pp
}

func TestFitRatingsRecoversTruth(t *testing.T) {
	truth := []float64{0, 150, 420, 600}
	var pairings []pairing
	for i := range truth {
		for j := i + 1; j < len(truth) && j <= i+2; j++ {
			pairings = append(pairings, pairing{I: i, J: j, Pairs: expectedPairs(20000, truth[i]-truth[j])})
		}
	}
	elo, se, err := fitRatings(len(truth), 0, pairings)
	if err != nil {
		t.Fatal(err)
	}
	for i := range truth {
		if math.Abs(elo[i]-truth[i]) > 3 {
			t.Errorf("player %d: fitted %.1f, true %.1f", i, elo[i], truth[i])
		}
		if i > 0 && (se[i] <= 0 || se[i] > 10) {
			t.Errorf("player %d: standard error %.2f, want small and positive with 20000 pairs", i, se[i])
		}
	}
	if se[0] != 0 {
		t.Errorf("anchor has standard error %v, want 0", se[0])
	}
	// Anchoring elsewhere shifts every rating by the same amount.
	elo2, _, err := fitRatings(len(truth), 2, pairings)
	if err != nil {
		t.Fatal(err)
	}
	for i := range truth {
		if math.Abs((elo2[i]-elo2[0])-(elo[i]-elo[0])) > 1e-6 {
			t.Errorf("player %d: gaps differ with another anchor: %v vs %v", i, elo2, elo)
		}
	}
}

func TestFitRatingsErrors(t *testing.T) {
	if _, _, err := fitRatings(3, 0, []pairing{{I: 0, J: 1, Pairs: Pentanomial{1, 1, 1, 1, 1}}}); err == nil || !strings.Contains(err.Error(), "connected") {
		t.Errorf("player 2 never played: err = %v, want not connected", err)
	}
	if _, _, err := fitRatings(2, 0, []pairing{{I: 0, J: 5}}); err == nil {
		t.Error("pairing out of range accepted")
	}
	// A clean sweep is finite thanks to the prior.
	elo, se, err := fitRatings(2, 0, []pairing{{I: 0, J: 1, Pairs: Pentanomial{50, 0, 0, 0, 0}}})
	if err != nil {
		t.Fatal(err)
	}
	if math.IsInf(elo[1], 0) || math.IsNaN(elo[1]) || elo[1] < 600 || math.IsNaN(se[1]) {
		t.Errorf("clean sweep: rating %v ± %v, want large and finite", elo[1], se[1])
	}
}

func TestRateAgainst(t *testing.T) {
	ratings := []float64{0, 300, 700}
	const truth = 450.0
	res := make([]Pentanomial, len(ratings))
	for i, r := range ratings {
		res[i] = expectedPairs(10000, truth-r)
	}
	elo, se, err := rateAgainst(ratings, res)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(elo-truth) > 3 || se <= 0 || se > 10 {
		t.Errorf("rated %.1f ± %.2f, want %.0f with a small error", elo, se, truth)
	}
	// Fewer games, larger error.
	for i, r := range ratings {
		res[i] = expectedPairs(100, truth-r)
	}
	_, se2, err := rateAgainst(ratings, res)
	if err != nil {
		t.Fatal(err)
	}
	if se2 < 5*se {
		t.Errorf("standard error with 100 pairs %.2f, with 10000 %.2f: want about 10x", se2, se)
	}
	if _, _, err := rateAgainst(ratings, make([]Pentanomial, 3)); err == nil {
		t.Error("no games: want an error")
	}
	if _, _, err := rateAgainst([]float64{math.NaN()}, []Pentanomial{{1}}); err == nil {
		t.Error("NaN rating: want an error")
	}
}

func testLadder(t *testing.T) *Ladder {
	t.Helper()
	l := &Ladder{
		Anchor: "random", Seed: 3, OpeningPlies: 6, MaxPlies: 200,
		Rungs:   []Rung{{Player: "random"}, {Player: "alphabeta:1", Elo: 500, StdErr: 40}, {Player: "alphabeta:3", Elo: 900, StdErr: 50}},
		Matches: []LadderMatch{{A: "random", B: "alphabeta:1", Pairs: Pentanomial{3, 1, 0, 0, 0}}},
	}
	b, err := l.Encode()
	if err != nil {
		t.Fatal(err)
	}
	l2, err := decodeLadder(b)
	if err != nil {
		t.Fatal(err)
	}
	return l2
}

func TestLadderFile(t *testing.T) {
	l := testLadder(t)
	b, err := l.Encode()
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	bad := map[string]string{
		"truncated":     s[:len(s)/2],
		"empty":         "",
		"other version": strings.Replace(s, `"version": 1`, `"version": 2`, 1),
		"no version":    strings.Replace(s, `"version": 1,`, ``, 1),
		"edited rating": strings.Replace(s, `"elo": 500`, `"elo": 550`, 1),
		"unknown field": strings.Replace(s, `"anchor"`, `"colour": 1, "anchor"`, 1),
	}
	for name, in := range bad {
		if _, err := decodeLadder([]byte(in)); err == nil {
			t.Errorf("%s: accepted", name)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
	if _, err := decodeLadder([]byte(strings.Replace(s, `"version": 1`, `"version": 2`, 1))); err == nil || !strings.Contains(err.Error(), "version 2") {
		t.Errorf("other version: %v, want the version named", err)
	}
	// Rungs out of order or without the anchor are refused by Encode.
	l.Rungs[1].Elo = 1000
	if _, err := l.Encode(); err == nil {
		t.Error("rungs out of order encoded")
	}
	l.Rungs[1].Elo = 500
	l.Anchor = "nobody"
	if _, err := l.Encode(); err == nil {
		t.Error("missing anchor encoded")
	}
}

func TestDefaultLadder(t *testing.T) {
	l, err := DefaultLadder()
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Rungs) < 3 || l.Rungs[0].Player != "random" {
		t.Fatalf("default ladder rungs %v: want random first and at least 3 rungs", l.Players())
	}
	for _, r := range l.Rungs {
		if _, err := ParsePlayer(r.Player); err != nil {
			t.Errorf("rung %s: %v", r.Player, err)
		}
	}
}

func TestClimb(t *testing.T) {
	l := testLadder(t)
	var games int
	res, err := Climb(context.Background(), alphaBeta{Depth: 2}, l, ParsePlayer, LadderOptions{
		Games: 20, ProbePairs: 1, Parallel: 2,
		OnGame: func(int, GameResult) { games++ },
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(res)
	if res.Games != 20 || games != 20 {
		t.Fatalf("%d games counted, %d reported: want 20", res.Games, games)
	}
	for i, r := range res.Rungs {
		if r.Pairs.Pairs() < 1 {
			t.Errorf("rung %d played no probe pair", i)
		}
	}
	if !(res.Low < res.Elo && res.Elo < res.High) || res.Elo < 200 {
		t.Errorf("alphabeta:2 rated %v [%v, %v]: want well above random", res.Elo, res.Low, res.High)
	}
	// The same ladder and player give the same games.
	res2, err := Climb(context.Background(), alphaBeta{Depth: 2}, l, ParsePlayer, LadderOptions{Games: 20, ProbePairs: 1, Parallel: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res2.Elo != res.Elo {
		t.Errorf("not reproducible: %v then %v", res.Elo, res2.Elo)
	}
	if _, err := Climb(context.Background(), alphaBeta{Depth: 2}, l, ParsePlayer, LadderOptions{Games: 4, ProbePairs: 1}); err == nil {
		t.Error("budget below the probes accepted")
	}
	if _, err := Climb(context.Background(), alphaBeta{Depth: 2}, l, ParsePlayer, LadderOptions{Games: 7}); err == nil {
		t.Error("odd games accepted")
	}
}

func TestFocusRungs(t *testing.T) {
	r := []float64{0, 400, 800, 1200}
	// 800 is at 0.49; 400 (0.91) and 1200 (0.09) are out, so the nearest
	// other rung joins.
	if got := focusRungs(r, 790); len(got) != 2 || got[0] != 2 || got[1] != 1 {
		t.Errorf("at 790: focus %v, want [2 1]", got)
	}
	if got := focusRungs(r, 5000); len(got) != 2 || got[0] != 3 || got[1] != 2 {
		t.Errorf("far above: focus %v, want the top two", got)
	}
	if got := focusRungs(r, 600); len(got) != 2 || !(got[0] == 1 || got[0] == 2) {
		t.Errorf("between 400 and 800: focus %v", got)
	}
}

func TestMatchThresholdStopsEarly(t *testing.T) {
	res, err := Match(context.Background(), alphaBeta{Depth: 2}, randomPlayer{}, MatchOptions{Games: 40, Seed: 1, Threshold: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != Accept || !res.Stopped || res.Games() > 24 {
		t.Errorf("alphabeta:2 vs random at threshold 0.5: %v; want accept after about 20 games", res)
	}
	res, err = Match(context.Background(), randomPlayer{}, alphaBeta{Depth: 2}, MatchOptions{Games: 40, Seed: 1, Threshold: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != Reject || !res.Stopped || res.Games() > 24 {
		t.Errorf("random vs alphabeta:2 at threshold 0.5: %v; want reject after about 20 games", res)
	}
}

// Calibrate makes every player before the first game: a player listed
// twice, under any spelling, or a bad spec late in the list fails before
// any game (issue 20, item 6).
func TestCalibrateChecksPlayersFirst(t *testing.T) {
	for _, tc := range []struct {
		players []string
		want    string
	}{
		{[]string{"random", "alphabeta:1", "ab:1"}, "players 2 (alphabeta:1) and 3 (ab:1) are both alphabeta:1"},
		{[]string{"random", "alphabeta:1", "random"}, "players 1 (random) and 3 (random) are both random"},
		{[]string{"random", "alphabeta:1", "alphabeta:99"}, `"alphabeta:99"`},
	} {
		games := 0
		_, err := Calibrate(context.Background(), tc.players, ParsePlayer, CalibrateOptions{
			Games: 2, OnGame: func(GameResult) { games++ },
		})
		if err == nil || !strings.Contains(err.Error(), tc.want) || games != 0 {
			t.Errorf("%v: %v after %d games, want an error with %q before any game", tc.players, err, games, tc.want)
		}
	}
}

// Extend adds rungs by playing only the new players' matches: a ladder
// extended by two players has the matches and ratings of one calibrated
// with all of them at once, and the old ladder is left as it was.
func TestExtendMatchesCalibrate(t *testing.T) {
	ctx := context.Background()
	all := []string{"random", "alphabeta:1", "alphabeta:2", "alphabeta:3"}
	opt := CalibrateOptions{Games: 4}
	whole, err := Calibrate(ctx, all, ParsePlayer, opt)
	if err != nil {
		t.Fatal(err)
	}
	base, err := Calibrate(ctx, all[:2], ParsePlayer, opt)
	if err != nil {
		t.Fatal(err)
	}
	baseRungs, baseMatches := slices.Clone(base.Rungs), slices.Clone(base.Matches)
	var played []string
	ext, err := Extend(ctx, base, all[2:], ParsePlayer, CalibrateOptions{Games: 4, OnMatch: func(m MatchResult) {
		played = append(played, m.A+" vs "+m.B)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(base.Rungs, baseRungs) || !slices.Equal(base.Matches, baseMatches) {
		t.Errorf("Extend changed the ladder it extends")
	}
	// Only the new players' matches are played: alphabeta:2 against the two
	// below it, alphabeta:3 against alphabeta:1 and alphabeta:2.
	if want := 4; len(played) != want || CalibrationMatches(2, 2, 2) != want {
		t.Errorf("played %v, CalibrationMatches says %d; want %d matches", played, CalibrationMatches(2, 2, 2), want)
	}
	if n := len(whole.Matches); CalibrationMatches(0, len(all), 2) != n {
		t.Errorf("CalibrationMatches says %d matches for the calibration of %d players, it played %d", CalibrationMatches(0, len(all), 2), len(all), n)
	}
	key := func(m LadderMatch) string { return fmt.Sprintf("%s|%s|%v", m.A, m.B, m.Pairs) }
	got, want := map[string]bool{}, map[string]bool{}
	for _, m := range ext.Matches {
		got[key(m)] = true
	}
	for _, m := range whole.Matches {
		want[key(m)] = true
	}
	if !maps.Equal(got, want) || len(ext.Matches) != len(whole.Matches) {
		t.Errorf("extended ladder's matches %v, want those of one calibration %v", ext.Matches, whole.Matches)
	}
	if len(ext.Rungs) != len(whole.Rungs) {
		t.Fatalf("extended ladder has %d rungs, want %d", len(ext.Rungs), len(whole.Rungs))
	}
	for i, r := range ext.Rungs {
		w := whole.Rungs[i]
		if r.Player != w.Player || math.Abs(r.Elo-w.Elo) > 0.11 || math.Abs(r.StdErr-w.StdErr) > 0.11 {
			t.Errorf("rung %d: %+v, want %+v", i, r, w)
		}
	}
	if ext.Rungs[0].MoveMillis != base.Rungs[0].MoveMillis {
		t.Errorf("old rung's move time %v, want the ladder's %v", ext.Rungs[0].MoveMillis, base.Rungs[0].MoveMillis)
	}
	b, err := ext.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := decodeLadder(b); err != nil {
		t.Errorf("extended ladder does not read back: %v", err)
	}
}

// Extend refuses, before any game, a player that is a rung already (under
// any spelling), a bad spec and an empty list.
func TestExtendRefuses(t *testing.T) {
	base := testLadder(t)
	for _, tc := range []struct {
		add  []string
		want string
	}{
		{[]string{"ab:1"}, "already a rung"},
		{[]string{"alphabeta:4", "alphabeta:99"}, `"alphabeta:99"`},
		{[]string{"alphabeta:4", "alphabeta:4"}, "already a rung"},
		{nil, "no players"},
	} {
		games := 0
		_, err := Extend(context.Background(), base, tc.add, ParsePlayer, CalibrateOptions{
			Games: 2, OnGame: func(GameResult) { games++ },
		})
		if err == nil || !strings.Contains(err.Error(), tc.want) || games != 0 {
			t.Errorf("%v: %v after %d games, want an error with %q before any game", tc.add, err, games, tc.want)
		}
	}
}
