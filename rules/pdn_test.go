package rules

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func readSample(t *testing.T) []Record {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "sample.pdn"))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := ParsePDN(string(b))
	if err != nil {
		t.Fatalf("ParsePDN(sample.pdn): %v", err)
	}
	return recs
}

// finalFEN replays a record.
func finalFEN(r Record) string {
	p := r.Start
	for _, m := range r.Moves {
		p = p.Play(m)
	}
	return p.FEN()
}

func TestParsePDNSample(t *testing.T) {
	recs := readSample(t)
	if len(recs) != 3 {
		t.Fatalf("read %d games, want 3", len(recs))
	}
	want := []struct {
		tags   []Tag
		start  string
		moves  string
		result Result
		final  string
	}{
		{
			tags: []Tag{{"Event", `Test "quoted" game`}, {"Site", "Roma"}, {"Date", "2026.11.30"},
				{"Round", "1"}, {"White", "Bianco"}, {"Black", "Nero"}},
			start:  StartFEN,
			moves:  "23-19 10-14 19x10 5x14",
			result: WhiteWins,
			final:  "W:W21,22,24,25,26,27,28,29,30,31,32:B1,2,3,4,6,7,8,9,11,12,14",
		},
		{
			tags:   []Tag{{"Event", "Known position, mirrored"}},
			start:  "B:W6,15,23:B2,K12",
			moves:  "2x11x20x27",
			result: BlackWins,
			final:  "W:W:BK12,27",
		},
		{
			start:  StartFEN,
			moves:  "21-17 12-16 17-13",
			result: Draw,
			final:  "B:W13,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,16",
		},
	}
	for i, w := range want {
		r := recs[i]
		if !reflect.DeepEqual(r.Tags, w.tags) {
			t.Errorf("game %d: tags %q, want %q", i+1, r.Tags, w.tags)
		}
		if got := r.Start; got != mustFEN(t, w.start) {
			t.Errorf("game %d: start %s, want %s", i+1, got.FEN(), w.start)
		}
		var ms []string
		for _, m := range r.Moves {
			ms = append(ms, m.String())
		}
		if got := strings.Join(ms, " "); got != w.moves {
			t.Errorf("game %d: moves %q, want %q", i+1, got, w.moves)
		}
		if r.Result != w.result {
			t.Errorf("game %d: result %v, want %v", i+1, r.Result, w.result)
		}
		if got := finalFEN(r); got != w.final {
			t.Errorf("game %d: final position %s, want %s", i+1, got, w.final)
		}
	}
	if v, ok := recs[0].Tag("White"); !ok || v != "Bianco" {
		t.Errorf(`Tag("White") = %q, %v; want "Bianco", true`, v, ok)
	}
	if v, ok := recs[0].Tag("white"); ok {
		t.Errorf(`Tag("white") = %q, true; want no tag (names are case sensitive)`, v)
	}
	if _, ok := recs[1].Tag("FEN"); ok {
		t.Errorf(`Tag("FEN") found; FEN is kept in Start, not in Tags`)
	}
}

// The writer's output is a golden file; go test -run WritePDNGolden -update
// rewrites it.
func TestWritePDNGolden(t *testing.T) {
	recs := readSample(t)
	var buf bytes.Buffer
	if err := WritePDN(&buf, recs...); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "sample.golden.pdn")
	if *update {
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); got != string(want) {
		t.Errorf("WritePDN output:\n%s\nwant (%s):\n%s", got, golden, want)
	}
	again, err := ParsePDN(buf.String())
	if err != nil {
		t.Fatalf("ParsePDN of WritePDN output: %v", err)
	}
	if !reflect.DeepEqual(again, recs) {
		t.Errorf("round trip: got %+v, want %+v", again, recs)
	}
}

func TestParsePDNForms(t *testing.T) {
	cases := []struct {
		name, text string
		games      int
		moves      []int    // per game
		results    []Result // per game
	}{
		{"empty", "", 0, nil, nil},
		{"only blanks and comments", " \n{x} ; y\n", 0, nil, nil},
		{"no tags", "1. 22-18 *", 1, []int{1}, []Result{Ongoing}},
		{"two games without tags", "1. 22-18 * 1. 21-17 2-0", 2, []int{1, 1}, []Result{Ongoing, WhiteWins}},
		{"tags only", `[Event "e"]`, 1, []int{0}, []Result{Ongoing}},
		{"no result before next tags", "[A \"1\"]\n1. 22-18\n[A \"2\"]\n1. 21-17 0-2", 2, []int{1, 1}, []Result{Ongoing, BlackWins}},
		{"synonyms", "1-0 0-1 1/2-1/2 1-1 0-2 2-0 *", 7, []int{0, 0, 0, 0, 0, 0, 0},
			[]Result{WhiteWins, BlackWins, Draw, Draw, BlackWins, WhiteWins, Ongoing}},
		{"numbers glued and spaced", "1.22-18 11-15 2. 18-14 3...", 1, []int{3}, []Result{Ongoing}},
		{"black numbered alone", "1. 22-18 1... 11-15 *", 1, []int{2}, []Result{Ongoing}},
		{"annotations", "1. 22-18!! $12 11-15?! ! ? 2. 18-14 !? *", 1, []int{3}, []Result{Ongoing}},
		{"nested variations with comments", "1. 22-18 (1. 21-17 (1. 23-19 {)}) 11-15) 11-15 *", 1, []int{2}, []Result{Ongoing}},
		{"extended GameType", `[GameType "22,W,8,8,A0,0"] 1. 22-18 *`, 1, []int{1}, []Result{Ongoing}},
		{"escaped line", "%engine data 1. 22-17\n1. 22-18 *", 1, []int{1}, []Result{Ongoing}},
		{"CRLF", "[Event \"e\"]\r\n\r\n1. 22-18 *\r\n", 1, []int{1}, []Result{Ongoing}},
	}
	for _, c := range cases {
		recs, err := ParsePDN(c.text)
		if err != nil {
			t.Errorf("%s: ParsePDN(%q): %v", c.name, c.text, err)
			continue
		}
		if len(recs) != c.games {
			t.Errorf("%s: ParsePDN(%q) read %d games, want %d", c.name, c.text, len(recs), c.games)
			continue
		}
		for i, r := range recs {
			if len(r.Moves) != c.moves[i] || r.Result != c.results[i] {
				t.Errorf("%s: game %d has %d moves, result %v; want %d, %v", c.name, i+1, len(r.Moves), r.Result, c.moves[i], c.results[i])
			}
		}
	}
}

func TestParsePDNErrors(t *testing.T) {
	cases := []struct {
		name, text string
		err        error
		off        int
		tok        string
		detail     string
	}{
		{"other game type", `[GameType "20"]`, ErrSyntax, 10, `"20"`, "not Italian draughts"},
		{"GameType twice", `[GameType "22"][GameType "22"]`, ErrSyntax, 15, "", "twice"},
		{"unterminated value", `[Event "x]`, ErrSyntax, 7, "", "never closed"},
		{"missing bracket", `[Event "x" 1. 22-18`, ErrSyntax, 0, "", `expected "]"`},
		{"missing name", `[ "x"]`, ErrSyntax, 0, "", "name is missing"},
		{"missing value", `[Event x]`, ErrSyntax, 7, "", "quoted value"},
		{"unterminated comment", "1. 22-18 {oops", ErrSyntax, 9, "{oops", "never closed"},
		{"unterminated variation", "1. 22-18 (1... 11-15", ErrSyntax, 9, "", "never closed"},
		{"stray bracket", "1. 22-18 ] *", ErrSyntax, 9, "]", "unexpected"},
		{"bare dollar", "1. 22-18 $ *", ErrSyntax, 9, "$", "annotation number"},
		{"bad FEN square", `[FEN "W:W33:B1"]`, ErrSquare, 9, "33", "FEN tag"},
		{"bad FEN", `[FEN "X:W1:B2"]`, ErrSyntax, 6, "X", "FEN tag"},
		{"illegal white move", "1. 22-17 *", ErrIllegal, 3, "22-17", "move 1. (white)"},
		{"illegal black move", "1. 22-18 22-17 *", ErrIllegal, 9, "22-17", "move 1... (black)"},
		{"illegal later move", "1. 22-18 11-15 2. 18-14 10x19 3. 14x5 *", ErrIllegal, 33, "14x5", "move 3. (white)"},
		{"illegal after FEN", "[FEN \"B:W22:B9\"]\n1... 9-14 *", ErrIllegal, 22, "9-14", "move 1... (black)"},
		{"ambiguous short capture", "[FEN \"W:W26:B21,13,22,14\"] 1. 26x10 *", ErrAmbiguous, 30, "26x10", "26x17x10 26x19x10"},
		{"bad square", "1. 22-40 *", ErrSquare, 6, "40", "move 1."},
		{"percent inside a line", "1. 22-18 % *", ErrSyntax, 9, "%", "must start"},
		{"garbage", "1. hello *", ErrSyntax, 3, "h", ""},
		{"move after game end", "[FEN \"W:W22:B18\"] 1. 22x13 12-16 *", ErrIllegal, 27, "12-16", "no legal move"},
	}
	for _, c := range cases {
		recs, err := ParsePDN(c.text)
		call := fmt.Sprintf("%s: ParsePDN(%q)", c.name, c.text)
		if !checkParseErrorIs(t, err, call, "PDN", c.err, c.off, c.tok, c.detail) {
			continue
		}
		if recs != nil {
			t.Errorf("%s: ParsePDN returned records with an error", c.name)
		}
	}
}

func TestWritePDN(t *testing.T) {
	start := mustFEN(t, "B:W6,15,23:B2,K12")
	rec := Record{
		Tags: []Tag{
			{"Event", `a "b" \c`},
			{"GameType", "20"}, // ignored: always 22
			{"FEN", "W:W1:B2"}, // ignored: Start decides
		},
		Start:  start,
		Moves:  []Move{mustMove(t, start.FEN(), "2x27")},
		Result: BlackWins,
	}
	var buf bytes.Buffer
	if err := WritePDN(&buf, rec); err != nil {
		t.Fatal(err)
	}
	want := `[Event "a \"b\" \\c"]
[Site "?"]
[Date "????.??.??"]
[Round "?"]
[White "?"]
[Black "?"]
[Result "0-1"]
[GameType "22"]
[FEN "B:W6,15,23:B2,K12"]

1... 2x11x20x27 0-1
`
	if got := buf.String(); got != want {
		t.Errorf("WritePDN =\n%s\nwant\n%s", got, want)
	}
	recs, err := ParsePDN(buf.String())
	if err != nil {
		t.Fatal(err)
	}
	rec.Tags = rec.Tags[:1]
	if len(recs) != 1 || !reflect.DeepEqual(recs[0], rec) {
		t.Errorf("round trip = %+v, want %+v", recs, rec)
	}

	// A long game wraps under 80 columns, each line starting cleanly.
	g := NewGame(Start())
	for i := 0; i < 60 && !g.Outcome().Over(); i++ {
		g.PlayUnchecked(g.Legal(nil)[0])
	}
	buf.Reset()
	if err := WritePDN(&buf, Record{Start: Start(), Moves: g.Moves(), Result: Ongoing}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) < 4 {
		t.Fatalf("WritePDN of %d moves wrote %d lines:\n%s", g.Ply(), len(lines), buf.String())
	}
	for _, l := range lines {
		if len(l) >= 80 || strings.HasSuffix(l, " ") || strings.HasSuffix(l, ".") {
			t.Errorf("bad line %q", l)
		}
	}

	// Errors.
	bad := []Record{
		{Tags: []Tag{{"Bad Name", "x"}}, Start: Start()},
		{Tags: []Tag{{"", "x"}}, Start: Start()},
		{Start: Start(), Moves: []Move{mustMove(t, "W:W22:B18", "22x13")}},
	}
	for _, r := range bad {
		if err := WritePDN(&bytes.Buffer{}, r); err == nil {
			t.Errorf("WritePDN(%+v): no error", r)
		}
	}
}

// Results are written as Italian tools read them (1-0, 0-1, 1/2-1/2), and
// every game carries the seven standard tags; both result forms are read
// (issue 13, point 1).
func TestPDNResultsAndSevenTags(t *testing.T) {
	for _, r := range []Result{WhiteWins, BlackWins, Draw, Ongoing} {
		var buf bytes.Buffer
		rec := Record{Tags: []Tag{{"White", "Bianco"}, {"Annotator", "x"}}, Start: Start(), Moves: []Move{mustMove(t, StartFEN, "22-18")}, Result: r}
		if err := WritePDN(&buf, rec); err != nil {
			t.Fatal(err)
		}
		want := map[Result]string{WhiteWins: "1-0", BlackWins: "0-1", Draw: "1/2-1/2", Ongoing: "*"}[r]
		out := buf.String()
		if !strings.HasSuffix(out, " "+want+"\n") || !strings.Contains(out, `[Result "`+want+`"]`) {
			t.Errorf("result %v written as:\n%s\nwant %s in the Result tag and after the moves", r, out, want)
		}
		var names []string
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "[") {
				names = append(names, strings.Fields(l[1:])[0])
			}
		}
		if got := strings.Join(names, " "); got != "Event Site Date Round White Black Result Annotator GameType" {
			t.Errorf("tags written: %s; want the seven standard tags first", got)
		}
		back, err := ParsePDN(out)
		if err != nil || len(back) != 1 || !reflect.DeepEqual(back[0], rec) {
			t.Errorf("round trip of result %v: %+v (%v), want %+v", r, back, err, rec)
		}
	}
	// A Result tag stands in for a missing result in the move text.
	recs, err := ParsePDN("[Result \"1-1\"]\n1. 22-18\n")
	if err != nil || len(recs) != 1 || recs[0].Result != Draw {
		t.Errorf("result from the Result tag: %+v, %v", recs, err)
	}
}

// One bad game does not block the others: each game is read on its own, a
// bad one keeps its moves up to the bad move and says where and why
// (issue 13, point 2).
func TestReadPDNGames(t *testing.T) {
	text := `[Event "one"]
1. 22-18 11-15 1-0

[Event "two"]
[FEN "B:W6,15,23:B2,K12"]
1... 2x27 0-1

[Event "three"]
1. 22-18 12-16 2. 21-17 99-1 3. 17-13 *

[Event "four"]
[FEN "W:W1:B5"]
1. 1-5 *

[Event "five"]
1. 21-17 12-16 1/2-1/2
`
	games := ReadPDNGames(text)
	if len(games) != 5 {
		t.Fatalf("read %d games, want 5", len(games))
	}
	for i, want := range []struct {
		moves int
		err   string
	}{{2, ""}, {1, ""}, {3, "move 2..."}, {0, "FEN"}, {2, ""}} {
		g := games[i]
		if len(g.Moves) != want.moves {
			t.Errorf("game %d: %d moves, want %d", i+1, len(g.Moves), want.moves)
		}
		switch {
		case want.err == "" && g.Err != nil:
			t.Errorf("game %d: error %v", i+1, g.Err)
		case want.err != "" && (g.Err == nil || !strings.Contains(g.Err.Error(), want.err) || !strings.Contains(g.Err.Error(), fmt.Sprintf("game %d", i+1))):
			t.Errorf("game %d: error %v, want one naming game %d and %q", i+1, g.Err, i+1, want.err)
		}
	}
	if v, _ := games[4].Tag("Event"); v != "five" || games[4].Result != Draw {
		t.Errorf("game after the bad ones: event %q result %v", v, games[4].Result)
	}
	for i, g := range games {
		if g.Unended != nil || (g.Problem() == nil) != (g.Err == nil) {
			t.Errorf("game %d: Unended %v, Problem %v, Err %v", i+1, g.Unended, g.Problem(), g.Err)
		}
	}
}

// A text that ends inside a game, before its result, marks that game
// Unended (a file cut short, issue 49: dama show of one exited 0), and
// only that one; ParsePDN still reads it.
func TestReadPDNGamesCutShort(t *testing.T) {
	whole := "[Event \"a\"]\n[Result \"1-0\"]\n1. 22-18 11-15 1-0\n\n[Event \"b\"]\n[Result \"0-1\"]\n1. 22-18 12-16 2. 21-17 0-1\n"
	for _, tc := range []struct {
		text    string
		unended bool
	}{
		{whole, false},
		{strings.TrimSuffix(whole, "0-1\n"), true}, // in the move text: the Result tag's result
		{strings.TrimSuffix(whole, "2. 21-17 0-1\n"), true},
		{whole[:strings.Index(whole, "[Result \"0-1")], true},                 // in the tags
		{"[Event \"a\"]\n1. 22-18 11-15\n[Event \"b\"]\n1. 21-17 *\n", false}, // the next game's tags end the first
	} {
		games := ReadPDNGames(tc.text)
		if _, err := ParsePDN(tc.text); err != nil {
			t.Errorf("ParsePDN(%q): %v", tc.text, err)
		}
		last := games[len(games)-1]
		if got := last.Unended != nil; got != tc.unended || games[0].Unended != nil && len(games) > 1 {
			t.Errorf("%q: last game Unended %v, want %v", tc.text, last.Unended, tc.unended)
			continue
		}
		if tc.unended {
			want := fmt.Sprintf("game %d: the text ends before the game's result", len(games))
			if last.Err != nil || !strings.HasPrefix(last.Problem().Error(), want) {
				t.Errorf("%q: Problem %v, Err %v; want %q", tc.text, last.Problem(), last.Err, want)
			}
		}
	}
}

// A game of another kind of draughts says what shows it, so that a file of
// them is not taken for Italian games full of illegal moves (issue 19,
// item 6: a 10x10 file gave "0 read, 45 failed" and "illegal move" lines).
// A typo in an Italian game (square 99) is no such sign.
func TestReadPDNGamesOtherGame(t *testing.T) {
	for _, tc := range []struct {
		name, text, want string
	}{
		{"GameType", "[GameType \"20\"]\n1. 32-28 19-23 *\n", `game 1: GameType "20" (international draughts, 10x10)`},
		{"GameType with fields", "[GameType \"21,W,8,8,A0,0\"]\n1. 9-14 *\n", `GameType "21,W,8,8,A0,0" (English draughts`},
		{"square in the first move", "1. 33-28 18-23 *\n", "game 1: square 33 in move 1. "},
		{"square after an illegal move", "1. 32-28 19-23 2. 37-32 *\n", `game 1: square 37 in move text ("37-32")`},
		{"square in FEN", "[FEN \"W:W31-50:B1-20\"]\n1. 32-28 *\n", "game 1: square 50 in the FEN tag"},
		{"second game", "1. 22-18 *\n\n1. 31-27 19-23 2. 27x18 12x23 3. 45-40 *\n", "game 2: square 45 in move text"},
		{"move numbers are no squares", "1. 22-18 11-15 33. 99-1 *\n", ""},
		{"typo", "1. 22-18 99-1 *\n", ""},
		{"Italian", "[GameType \"22\"]\n1. 22-18 11-15 *\n", ""},
	} {
		other := ""
		for _, g := range ReadPDNGames(tc.text) {
			if other == "" {
				other = g.OtherGame
			}
		}
		if tc.want == "" && other != "" || !strings.Contains(other, tc.want) {
			t.Errorf("%s: OtherGame %q, want %q", tc.name, other, tc.want)
		}
	}
}
