package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strings"

	"dama/rules"
)

// What the analysis board reads and writes: a PDN game or a FEN to
// analyse (POST /api/import), and its move tree as PDN with variations
// (POST /api/pdn with "variations").

// variationRequest is a branch of the board's move tree: the moves played
// instead of move index Ply of the line it branches from.
type variationRequest struct {
	Ply        int                `json:"ply"`
	Moves      []string           `json:"moves"`
	Variations []variationRequest `json:"variations"`
}

// maxTreeMoves bounds the moves of a move tree, maxTreeDepth its nesting.
const (
	maxTreeMoves = 5000
	maxTreeDepth = 32
)

// readVariations checks the branches of a line that starts at p (game
// ply ply) and has moves, each move by rules.ParseMove; an error names
// the branch (by the move it replaces) and the move.
func readVariations(p rules.Position, ply int, moves []rules.Move, vars []variationRequest, what string, depth int, budget *int) ([]rules.Variation, error) {
	if len(vars) > 0 && depth >= maxTreeDepth {
		return nil, fmt.Errorf("%s: variations nested more than %d deep", what, maxTreeDepth)
	}
	var out []rules.Variation
	for i, v := range vars {
		name := fmt.Sprintf("%s variation %d", what, i+1)
		if v.Ply < 0 || v.Ply >= len(moves) {
			return nil, fmt.Errorf("%s: ply %d, the line has %d moves", name, v.Ply, len(moves))
		}
		if len(v.Moves) == 0 {
			return nil, fmt.Errorf("%s: no moves", name)
		}
		if *budget -= len(v.Moves); *budget < 0 {
			return nil, fmt.Errorf("the move tree has more than %d moves", maxTreeMoves)
		}
		at := p
		for _, m := range moves[:v.Ply] {
			at = at.Play(m)
		}
		g := rules.NewGame(at)
		var line []rules.Move
		for k, text := range v.Moves {
			if o := g.Outcome(); o.Over() {
				return nil, fmt.Errorf("%s, move %d %q: the game is over (%s)", name, k+1, text, o.Result)
			}
			m, err := rules.ParseMove(g.Position(), text)
			if err != nil {
				return nil, fmt.Errorf("%s, move %d %q: %s", name, k+1, text, oneLine(err))
			}
			g.PlayUnchecked(m)
			line = append(line, m)
		}
		sub, err := readVariations(at, ply+v.Ply, line, v.Variations, name+",", depth+1, budget)
		if err != nil {
			return nil, err
		}
		out = append(out, rules.Variation{Ply: v.Ply, Moves: line, Variations: sub})
	}
	return out, nil
}

// boardResults are the results a game on the board may be given beyond
// its rules' (a resignation, a draw agreed, a flag fall).
var boardResults = map[string]rules.Result{"1-0": rules.WhiteWins, "0-1": rules.BlackWins, "1/2-1/2": rules.Draw}

// handlePDN writes the game as PDN, with its variations (the board's move
// tree) and, for a game the rules have not ended, the result and the
// reason the board gives ("result": "1-0", "reason": "Black resigned").
func (s *Server) handlePDN(w http.ResponseWriter, r *http.Request) {
	req, g, ok := readGame(w, r)
	if !ok {
		return
	}
	res := g.Outcome().Result
	tags := []rules.Tag{{Name: "Event", Value: "dama web"}}
	if req.Result != "" {
		given, ok := boardResults[req.Result]
		switch {
		case !ok:
			httpError(w, http.StatusBadRequest, fmt.Sprintf("result %q: want 1-0, 0-1 or 1/2-1/2", req.Result))
			return
		case g.Outcome().Over() && given != res:
			httpError(w, http.StatusBadRequest, fmt.Sprintf("result %q: the game is over by the rules, %s", req.Result, res.PDN()))
			return
		}
		res = given
	}
	if req.Reason != "" {
		if len(req.Reason) > 80 || strings.ContainsFunc(req.Reason, func(c rune) bool { return c < ' ' || c == 0x7f }) {
			httpError(w, http.StatusBadRequest, "reason: at most 80 printable characters")
			return
		}
		tags = append(tags, rules.Tag{Name: "Termination", Value: req.Reason})
	}
	tags = append(tags, rules.Tag{Name: "Result", Value: res.PDN()})
	budget := maxTreeMoves
	vars, err := readVariations(g.Start(), 0, g.Moves(), req.Variations, "", 0, &budget)
	if err != nil {
		httpError(w, http.StatusBadRequest, strings.TrimPrefix(oneLine(err), " "))
		return
	}
	rec := rules.Record{Tags: tags, Start: g.Start(), Moves: g.Moves(), Result: res}
	var buf bytes.Buffer
	if err := rules.WritePDNVariations(&buf, rec, vars); err != nil {
		httpError(w, http.StatusInternalServerError, oneLine(err))
		return
	}
	w.Header().Set("Content-Type", "application/x-pdn; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="dama-web.pdn"`)
	w.Write(buf.Bytes())
}

// importRequest is a PDN text or a FEN to analyse; Game picks a game of a
// PDN text with several (1, the first, by default).
type importRequest struct {
	Text string `json:"text"`
	Game int    `json:"game"`
}

// handleImport reads a FEN or a PDN game into a start position and moves
// for the board. A PDN's variations are skipped (its main line is read);
// a game that does not read is an error naming the game, the move and
// why, as rules.ReadPDNGames says it.
func (s *Server) handleImport(w http.ResponseWriter, r *http.Request) {
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct != "application/json" {
		httpError(w, http.StatusUnsupportedMediaType, "want a JSON body (Content-Type: application/json)")
		return
	}
	var req importRequest
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxRequest))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			httpError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("import: more than %d KiB; import one game", maxRequest>>10))
			return
		}
		httpError(w, http.StatusBadRequest, "request body: "+oneLine(err))
		return
	}
	v, err := importGame(req)
	if err != nil {
		httpError(w, http.StatusBadRequest, oneLine(err))
		return
	}
	writeJSON(w, v)
}

// imported is a game read for the board.
type imported struct {
	Start  string     `json:"start"` // FEN
	Moves  []string   `json:"moves"`
	Tags   [][]string `json:"tags"`
	Result string     `json:"result"`
	Games  int        `json:"games"` // games in the text
	Game   int        `json:"game"`  // the one read
}

func importGame(req importRequest) (imported, error) {
	text := strings.TrimSpace(req.Text)
	if text == "" {
		return imported{}, errors.New("import: empty: paste a FEN (W:W21-32:B1-12) or a PDN game")
	}
	if fen := strings.Trim(text, `"`); !strings.ContainsAny(fen, "[]{}\n") && (strings.HasPrefix(fen, "W:") || strings.HasPrefix(fen, "B:")) {
		p, err := rules.ParseFEN(fen)
		if err != nil {
			return imported{}, fmt.Errorf("FEN: %s", oneLine(err))
		}
		return imported{Start: p.FEN(), Moves: []string{}, Tags: [][]string{}, Result: "*", Games: 1, Game: 1}, nil
	}
	games := rules.ReadPDNGames(text)
	if len(games) == 0 {
		return imported{}, errors.New("PDN: no game in the text (a FEN starts with W: or B:)")
	}
	n := req.Game
	if n == 0 {
		n = 1
	}
	if n < 1 || n > len(games) {
		return imported{}, fmt.Errorf("game %d: the text has %d games", n, len(games))
	}
	pg := games[n-1]
	if pg.OtherGame != "" {
		return imported{}, fmt.Errorf("PDN game %d is not Italian draughts: %s", n, pg.OtherGame)
	}
	if pg.Err != nil {
		return imported{}, fmt.Errorf("PDN: %s", oneLine(pg.Err))
	}
	v := imported{Start: pg.Start.FEN(), Moves: []string{}, Tags: [][]string{}, Result: pg.Result.PDN(), Games: len(games), Game: n}
	for _, m := range pg.Moves {
		v.Moves = append(v.Moves, m.String())
	}
	for _, t := range pg.Tags {
		v.Tags = append(v.Tags, []string{t.Name, t.Value})
	}
	return v, nil
}
