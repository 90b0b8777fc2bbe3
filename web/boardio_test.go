package web

import (
	"strings"
	"testing"

	"dama/rules"
)

// The board's move tree comes back as PDN with its variations, and a
// result the board gave (a resignation) with its reason.
func TestPDNVariations(t *testing.T) {
	_, ts := newTestServer(t, Options{})
	body := `{"moves": ["22-18", "11-15", "26-22"], "result": "1-0", "reason": "Black resigned",
		"variations": [{"ply": 1, "moves": ["12-16", "21-17"], "variations": [{"ply": 1, "moves": ["23-19"]}]}, {"ply": 0, "moves": ["21-17"]}]}`
	text := post(t, ts, "/api/pdn", body, 200, nil)
	if !strings.Contains(text, "1. 22-18 (1. 21-17) 1... 11-15 (1... 12-16 2. 21-17 (2. 23-19)) 2. 26-22 1-0") ||
		!strings.Contains(text, `[Termination "Black resigned"]`) || !strings.Contains(text, `[Result "1-0"]`) {
		t.Errorf("PDN:\n%s", text)
	}
	recs, err := rules.ParsePDN(text)
	if err != nil || len(recs) != 1 || len(recs[0].Moves) != 3 || recs[0].Result != rules.WhiteWins {
		t.Errorf("ParsePDN: %v %+v", err, recs)
	}
	for bad, want := range map[string]string{
		`{"moves": ["22-18"], "variations": [{"ply": 0, "moves": ["11-15"]}]}`:                                                          `variation 1, move 1 "11-15"`,
		`{"moves": ["22-18"], "variations": [{"ply": 1, "moves": ["21-17"]}]}`:                                                          "variation 1: ply 1, the line has 1 moves",
		`{"moves": ["22-18"], "variations": [{"ply": 0, "moves": []}]}`:                                                                 "variation 1: no moves",
		`{"moves": ["22-18", "11-15"], "variations": [{"ply": 1, "moves": ["12-16"], "variations": [{"ply": 0, "moves": ["22-18"]}]}]}`: `variation 1, variation 1, move 1 "22-18"`,
		`{"moves": ["22-18"], "result": "2-0"}`:                                                                                         `result "2-0"`,
		`{"start": "B:W21:B", "result": "0-1"}`:                                                                                         "the game is over by the rules, 1-0",
		`{"moves": [], "reason": "a\nb"}`:                                                                                               "reason: at most 80 printable characters",
	} {
		if got := post(t, ts, "/api/pdn", bad, 400, nil); !strings.Contains(got, want) {
			t.Errorf("%s: %q, want it to name %q", bad, got, want)
		}
	}
}

// Import reads a FEN or a PDN game; what does not read is named.
func TestImport(t *testing.T) {
	_, ts := newTestServer(t, Options{})
	var v imported
	post(t, ts, "/api/import", `{"text": "W:W21,22:B9,K10"}`, 200, &v)
	if v.Start != "W:W21,22:B9,K10" || len(v.Moves) != 0 {
		t.Errorf("FEN import: %+v", v)
	}
	pdn := `[Event \"one\"]\n1. 22-18 (1. 21-17 10-14) 11-15 2. 26-22 *\n\n[Event \"two\"]\n1. 21-17 *\n`
	post(t, ts, "/api/import", `{"text": "`+pdn+`"}`, 200, &v)
	if strings.Join(v.Moves, " ") != "22-18 11-15 26-22" || v.Games != 2 || v.Game != 1 || v.Result != "*" || len(v.Tags) == 0 || v.Tags[0][1] != "one" {
		t.Errorf("PDN import: %+v", v)
	}
	post(t, ts, "/api/import", `{"text": "`+pdn+`", "game": 2}`, 200, &v)
	if strings.Join(v.Moves, " ") != "21-17" || v.Game != 2 {
		t.Errorf("second game: %+v", v)
	}
	for bad, want := range map[string]string{
		`{"text": ""}`:                              "import: empty",
		`{"text": "W:W21,99:B1"}`:                   "FEN:",
		`{"text": "1. 22-18 22-18 *"}`:              "move 1...",
		`{"text": "1. 22-18 *", "game": 3}`:         "game 3: the text has 1 games",
		`{"text": "[GameType \"20\"]\n1. 32-28 *"}`: "not Italian draughts",
		`{"text": "hello"}`:                         "PDN:",
	} {
		if got := post(t, ts, "/api/import", bad, 400, nil); !strings.Contains(got, want) {
			t.Errorf("%s: %q, want it to name %q", bad, got, want)
		}
	}
}

// The engine plays by a clock, and answers a draw offer by its search.
func TestEngineClockAndDraw(t *testing.T) {
	_, ts := newTestServer(t, Options{})
	var r struct {
		Move     string
		Draw     string
		Position positionView
	}
	post(t, ts, "/api/engine", `{"moves": ["22-18"], "model": "random", "left_ms": 2000, "inc_ms": 100}`, 200, &r)
	if r.Move == "" || len(r.Position.Moves) != 2 || r.Draw != "" {
		t.Errorf("a move by the clock: %+v", r)
	}
	for _, bad := range []string{`{"left_ms": -1}`, `{"inc_ms": 999999999}`} {
		post(t, ts, "/api/engine", bad, 400, nil)
	}
	// Four kings against one, the engine (White) to move: it plays on; with
	// one king against four, it takes the draw.
	r.Move, r.Draw = "", ""
	post(t, ts, "/api/engine", `{"start": "W:WK1,K2,K3,K4:BK32", "model": "shipped", "visits": 64, "draw_offer": true}`, 200, &r)
	if r.Draw != "declined" || r.Move == "" {
		t.Errorf("winning engine offered a draw: %+v", r)
	}
	r = struct {
		Move     string
		Draw     string
		Position positionView
	}{}
	post(t, ts, "/api/engine", `{"start": "W:WK1:BK30,K31,K32,K28", "model": "shipped", "visits": 64, "draw_offer": true}`, 200, &r)
	if r.Draw != "accepted" || r.Move != "" || len(r.Position.Moves) != 0 {
		t.Errorf("losing engine offered a draw: %+v", r)
	}
}

func TestAcceptsDraw(t *testing.T) {
	for _, c := range []struct {
		wdl  [3]float32
		want bool
	}{{[3]float32{0.9, 0.1, 0}, false}, {[3]float32{0.2, 0.6, 0.2}, true}, {[3]float32{0, 0.2, 0.8}, true}, {[3]float32{0.3, 0.6, 0.1}, false}} {
		if got := acceptsDraw(c.wdl); got != c.want {
			t.Errorf("acceptsDraw(%v) = %v, want %v", c.wdl, got, c.want)
		}
	}
}
