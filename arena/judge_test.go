package arena

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"dama/rules"
)

// judgeMatch plays a short match of alphabeta:2 against random (a length
// cap that adjudicates some games) and returns its result and the PDN
// records of its counted games.
func judgeMatch(t *testing.T, seed int64) (MatchResult, []rules.Record) {
	t.Helper()
	var games []GameResult
	res, err := Match(context.Background(), alphaBeta{Depth: 2}, randomPlayer{}, MatchOptions{
		Games: 16, Parallel: 2, Seed: seed, MaxPlies: 40,
		OnGame: func(g GameResult) { games = append(games, g) },
	})
	if err != nil {
		t.Fatal(err)
	}
	recs := writeCountedRecords(t, games, res, rules.Tag{Name: "Event", Value: "judged"})
	return res, recs
}

// writeCountedRecords writes the games res counts with WriteCounted and
// returns the records the file reads back as.
func writeCountedRecords(t *testing.T, games []GameResult, res MatchResult, tags ...rules.Tag) []rules.Record {
	t.Helper()
	path := filepath.Join(t.TempDir(), "match.pdn")
	if err := WriteCounted(path, games, res.Games(), tags...); err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := rules.ParsePDN(string(text))
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// A match judged again from its PDN file gives the result the match
// gave: players, games, pairs and adjudications, in any order of games.
func TestJudgedMatchesMatch(t *testing.T) {
	res, recs := judgeMatch(t, 3)
	if res.Adjudicated == 0 || res.Wins == 0 {
		t.Fatalf("the match tests too little: %v", res)
	}
	got, err := Judged(recs)
	if err != nil {
		t.Fatal(err)
	}
	if got != res {
		t.Errorf("judged from PDN: %v\nthe match:        %v", got, res)
	}
	slices.Reverse(recs)
	if got, err := Judged(recs); err != nil || got != res {
		t.Errorf("games in reverse: %v, %v; want %v", got, err, res)
	}
}

// Pooled matches count every game of each, and their interval narrows.
func TestPool(t *testing.T) {
	r1, _ := judgeMatch(t, 3)
	r2, _ := judgeMatch(t, 4)
	p, err := Pool(r1, r2)
	if err != nil {
		t.Fatal(err)
	}
	if p.Games() != r1.Games()+r2.Games() || p.Wins != r1.Wins+r2.Wins || p.Draws != r1.Draws+r2.Draws ||
		p.Adjudicated != r1.Adjudicated+r2.Adjudicated || p.Pairs.Pairs() != r1.Pairs.Pairs()+r2.Pairs.Pairs() {
		t.Errorf("pooled %v from %v and %v", p, r1, r2)
	}
	if p.A != r1.A || p.B != r1.B {
		t.Errorf("pooled players %q, %q", p.A, p.B)
	}
	if p.Pairs.StdErr() >= r1.Pairs.StdErr() && p.Pairs.StdErr() >= r2.Pairs.StdErr() {
		t.Errorf("pooled standard error %.4f not below either match's (%.4f, %.4f)", p.Pairs.StdErr(), r1.Pairs.StdErr(), r2.Pairs.StdErr())
	}
	swapped := r2
	swapped.A, swapped.B = r2.B, r2.A
	if _, err := Pool(r1, swapped); err == nil || !strings.Contains(err.Error(), "same players") {
		t.Errorf("pooling A vs B with B vs A: %v, want an error", err)
	}
	if _, err := Pool(); err == nil {
		t.Error("pooling nothing: no error")
	}
}

// A file that is not a whole match is refused with the game named.
func TestJudgedErrors(t *testing.T) {
	_, recs := judgeMatch(t, 3)
	edit := func(f func([]rules.Record) []rules.Record) []rules.Record {
		c := make([]rules.Record, len(recs))
		for i, r := range recs {
			c[i] = r
			c[i].Tags = slices.Clone(r.Tags)
		}
		return f(c)
	}
	setTag := func(r *rules.Record, name, value string) {
		for i := range r.Tags {
			if r.Tags[i].Name == name {
				r.Tags[i].Value = value
				return
			}
		}
		r.Tags = append(r.Tags, rules.Tag{Name: name, Value: value})
	}
	dropTag := func(r *rules.Record, name string) {
		r.Tags = slices.DeleteFunc(r.Tags, func(t rules.Tag) bool { return t.Name == name })
	}
	for _, c := range []struct {
		name, want string
		recs       []rules.Record
	}{
		{"none", "no games", nil},
		{"a game without its pair", "Round 4 has no pair: Round 3", edit(func(r []rules.Record) []rules.Record { return slices.Delete(r, 2, 3) })},
		{"a game twice", "Round 1 given twice", edit(func(r []rules.Record) []rules.Record { return append(r, r[0]) })},
		{"other players", `players A "classic:3"`, edit(func(r []rules.Record) []rules.Record { setTag(&r[4], "White", "classic:3"); return r })},
		{"no Round", "no Round tag", edit(func(r []rules.Record) []rules.Record { dropTag(&r[1], "Round"); return r })},
		{"a bad Round", `Round "0"`, edit(func(r []rules.Record) []rules.Record { setTag(&r[1], "Round", "0"); return r })},
		{"a wrong Opening", `Opening "9"`, edit(func(r []rules.Record) []rules.Record { setTag(&r[1], "Opening", "9"); return r })},
		{"no Black", "no Black tag", edit(func(r []rules.Record) []rules.Record { dropTag(&r[2], "Black"); return r })},
		{"unfinished", "not finished", edit(func(r []rules.Record) []rules.Record { r[3].Result = rules.Ongoing; return r })},
	} {
		_, err := Judged(c.recs)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

// FuzzJudged: whatever PDN text holds, judging its games returns a result
// or an error, never a panic, and a result counts whole pairs only.
func FuzzJudged(f *testing.F) {
	var buf bytes.Buffer
	rec := rules.Record{Tags: []rules.Tag{{Name: "White", Value: "a"}, {Name: "Black", Value: "b"}, {Name: "Round", Value: "1"}}, Start: rules.Start(), Result: rules.Draw}
	rec2 := rec
	rec2.Tags = []rules.Tag{{Name: "White", Value: "b"}, {Name: "Black", Value: "a"}, {Name: "Round", Value: "2"}, {Name: "Termination", Value: "adjudicated: length cap 300"}}
	rec2.Result = rules.WhiteWins
	if err := rules.WritePDN(&buf, rec, rec2); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.String())
	f.Add(`[Round "3"][White "x"][Black "y"] 1/2-1/2`)
	f.Fuzz(func(t *testing.T, text string) {
		recs, err := rules.ParsePDN(text)
		if err != nil {
			return
		}
		res, err := Judged(recs)
		if err != nil {
			return
		}
		if res.Games() != 2*res.Pairs.Pairs() || res.Games() != len(recs) || res.Adjudicated > res.Games() {
			t.Fatalf("judged %v from %d games", res, len(recs))
		}
	})
}

// JudgeGames judges the games of a file around one that cannot be read:
// that game and its pair are left out, each named, and the others give
// the result Judged gives them (issue 49: arena judge refused a whole
// file over one ambiguous game that dama show skips).
func TestJudgeGamesLeavesOutBadGame(t *testing.T) {
	_, recs := judgeMatch(t, 3)
	var buf bytes.Buffer
	if err := rules.WritePDN(&buf, recs...); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	// All read: the result is Judged's, nothing left out.
	want, err := Judged(recs)
	if err != nil {
		t.Fatal(err)
	}
	if got, left, err := JudgeGames(rules.ReadPDNGames(text)); err != nil || len(left) != 0 || got != want {
		t.Errorf("a sound file: %v, left %v, %v; want %v", got, left, err, want)
	}
	// The file cut short inside its last game: that game and its pair
	// are left out.
	cut := rules.ReadPDNGames(text[:len(text)-10])
	if got, left, err := JudgeGames(cut); err != nil || len(left) != 2 || got.Games() != len(recs)-2 ||
		!strings.Contains(left[1].Error(), fmt.Sprintf("game %d: the text ends before the game's result", len(recs))) {
		t.Errorf("a file cut short: %v, left %v, %v", got, left, err)
	}
	// Game 3's first move made illegal.
	games := strings.SplitAfter(text, "\n\n[Event")
	const bad = 2 // index: game 3
	first := strings.Index(games[bad], "\n1. ")
	if first < 0 {
		t.Fatalf("no first move in game 3:\n%s", games[bad])
	}
	games[bad] = games[bad][:first] + "\n1. 17-17 " + games[bad][first+len("\n1. "):]
	read := rules.ReadPDNGames(strings.Join(games, ""))
	if read[bad].Err == nil {
		t.Fatal("the damaged game reads without an error")
	}
	round, _ := roundOf(read[bad].Record)
	var kept []rules.Record
	pairGame := 0
	for i, r := range recs {
		n, _ := roundOf(r)
		switch {
		case n == pairRound(round):
			pairGame = i + 1
		case n != round:
			kept = append(kept, r)
		}
	}
	want, err = Judged(kept)
	if err != nil {
		t.Fatal(err)
	}
	got, left, err := JudgeGames(read)
	if err != nil || got != want || got.Games() != len(recs)-2 {
		t.Errorf("game 3 damaged: %v, %v; want %v (%d games)", got, err, want, len(recs)-2)
	}
	if len(left) != 2 {
		t.Fatalf("left out %v, want game 3 and its pair", left)
	}
	first3, firstPair := 0, 1
	if pairGame < bad+1 {
		first3, firstPair = 1, 0
	}
	if msg := left[first3].Error(); !strings.HasPrefix(msg, "game 3: ") || !strings.Contains(msg, "17-17") {
		t.Errorf("left out %q, want game 3 and its bad move", msg)
	}
	if msg := left[firstPair].Error(); !strings.HasPrefix(msg, fmt.Sprintf("game %d: Round %d is left out with its pair, Round %d", pairGame, pairRound(round), round)) {
		t.Errorf("left out %q, want game %d, the pair of game 3", msg, pairGame)
	}
	// An error in a game kept names it by its number in the file.
	last := len(read) - 1
	if last == bad || last+1 == pairGame {
		t.Fatalf("the last game is game 3 or its pair")
	}
	read[last].Tags = append(slices.Clone(read[last].Tags), rules.Tag{Name: "Round", Value: "x"})
	read[last].Tags = slices.DeleteFunc(read[last].Tags, func(tg rules.Tag) bool { return tg.Name == "Round" && tg.Value != "x" })
	if _, _, err := JudgeGames(read); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("game %d: Round \"x\"", last+1)) {
		t.Errorf("game %d with a bad Round: %v, want it named", last+1, err)
	}
	// Nothing left: an error, the games still named.
	for i := range read {
		read[i].Err = fmt.Errorf("game %d: damaged", i+1)
	}
	if _, left, err := JudgeGames(read); err == nil || !strings.Contains(err.Error(), "none of the") || len(left) != len(read) {
		t.Errorf("every game damaged: left %d, %v", len(left), err)
	}
}

// JudgeFiles writes a line per file, the result its games give, and the
// two files' pooled result; a file that does not judge is an error naming
// it.
func TestJudgeFiles(t *testing.T) {
	dir := t.TempDir()
	var files []string
	var results []MatchResult
	for seed := int64(1); seed <= 2; seed++ {
		var games []GameResult
		res, err := Match(context.Background(), alphaBeta{Depth: 2}, randomPlayer{}, MatchOptions{
			Games: 8, Parallel: 2, Seed: seed, MaxPlies: 40,
			OnGame: func(g GameResult) { games = append(games, g) },
		})
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "m"+string(rune('0'+seed))+".pdn")
		if err := WriteCounted(path, games, res.Games()); err != nil {
			t.Fatal(err)
		}
		files, results = append(files, path), append(results, res)
	}
	var out bytes.Buffer
	if err := JudgeFiles(&out, files); err != nil {
		t.Fatal(err)
	}
	pooled, err := Pool(results...)
	if err != nil {
		t.Fatal(err)
	}
	want := files[0] + ": " + results[0].String() + "\n" + files[1] + ": " + results[1].String() + "\n" +
		"pooled, 2 matches: " + pooled.String() + "\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
	bad := filepath.Join(dir, "bad.pdn")
	if err := os.WriteFile(bad, []byte("[Event \"x\"]\n1. 22-18 *\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := JudgeFiles(&out, []string{files[0], bad}); err == nil || !strings.Contains(err.Error(), "judge "+bad) {
		t.Errorf("a file that does not judge: got %v, want an error naming %s", err, bad)
	}
	if err := JudgeFiles(&out, []string{filepath.Join(dir, "none.pdn")}); err == nil || !strings.Contains(err.Error(), "none.pdn") {
		t.Errorf("a missing file: got %v, want an error naming it", err)
	}
}
