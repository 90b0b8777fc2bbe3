package arena

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"dama/rules"
)

// The PDN of a match holds the games its result counts: a match stopped
// early by its threshold leaves games of unfinished pairs out, and the
// file reads back with the counted games, in order, tagged.
func TestWriteCounted(t *testing.T) {
	var games []GameResult
	res, err := Match(context.Background(), alphaBeta{Depth: 2}, randomPlayer{}, MatchOptions{
		Games: 40, Parallel: 3, Seed: 1, Threshold: 0.5, MaxPlies: 60,
		OnGame: func(g GameResult) { games = append(games, g) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Stopped {
		t.Fatalf("the match was not stopped early: %v", res)
	}
	// An unpaired game must be left out: add one for a pair of its own.
	lone := games[0]
	lone.Index = 2*res.Pairs.Pairs() + 100
	games = append(games, lone)
	recs := writeCountedRecords(t, games, res, rules.Tag{Name: "Event", Value: "test match"}, rules.Tag{Name: "Generation", Value: "7"})
	if len(recs) != res.Games() {
		t.Fatalf("%d games in the file, the result counts %d", len(recs), res.Games())
	}
	w, d, l := 0, 0, 0
	prev := 0
	for i, r := range recs {
		round, _ := r.Tag("Round")
		n, err := strconv.Atoi(round)
		if err != nil || n <= prev {
			t.Errorf("game %d: Round %q after %d: want increasing game numbers", i, round, prev)
		}
		prev = n
		if op, _ := r.Tag("Opening"); op != strconv.Itoa((n-1)/2+1) {
			t.Errorf("game %d (round %d): Opening %q, want %d", i, n, op, (n-1)/2+1)
		}
		if ev, _ := r.Tag("Event"); ev != "test match" {
			t.Errorf("game %d: Event %q", i, ev)
		}
		if g, _ := r.Tag("Generation"); g != "7" {
			t.Errorf("game %d: Generation %q", i, g)
		}
		white, _ := r.Tag("White")
		aWhite := white == res.A
		switch c, ok := r.Result.Winner(); {
		case !ok:
			d++
		case (c == rules.White) == aWhite:
			w++
		default:
			l++
		}
	}
	if w != res.Wins || d != res.Draws || l != res.Losses {
		t.Errorf("file +%d =%d -%d, the result +%d =%d -%d", w, d, l, res.Wins, res.Draws, res.Losses)
	}
	// A count that the whole pairs do not give writes nothing.
	other := filepath.Join(t.TempDir(), "other.pdn")
	if err := WriteCounted(other, games, res.Games()+2); err == nil || !strings.Contains(err.Error(), "the result counts") {
		t.Errorf("a wrong count: err %v", err)
	}
	if _, err := os.Stat(other); !os.IsNotExist(err) {
		t.Errorf("a refused write left %s (%v)", other, err)
	}
}

// A climb numbers its games across its matches: distinct indices 0..N-1,
// pair i on the ladder's opening i.
func TestClimbGameIndices(t *testing.T) {
	l := testLadder(t)
	var idx []int
	starts := map[int]rules.Position{}
	res, err := Climb(context.Background(), alphaBeta{Depth: 1}, l, ParsePlayer, LadderOptions{
		Games: 12, ProbePairs: 1, Parallel: 2,
		OnGame: func(_ int, g GameResult) {
			idx = append(idx, g.Index)
			if s, ok := starts[g.Index/2]; ok && s != g.Start {
				t.Errorf("games of pair %d start from different positions", g.Index/2)
			}
			starts[g.Index/2] = g.Start
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(idx)
	for i, n := range idx {
		if n != i {
			t.Fatalf("climb game indices %v, want 0..%d", idx, res.Games-1)
		}
	}
	if len(idx) != res.Games {
		t.Errorf("%d games reported, %d counted", len(idx), res.Games)
	}
}
