package rules

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
)

// Tag is one PDN tag pair, [Name "Value"].
type Tag struct {
	Name, Value string
}

// Record is one game of a PDN file: its tags, start position, moves and
// result. Tags holds the tag pairs in file order except GameType, FEN and
// Result, which the file format derives from the game (GameType is always
// 22, the FEN tag is Start, the Result tag is Result), and except standard
// tags whose value is PDN's "unknown" ("?", "????.??.??"); the first tag of
// each name of PDNStandardTags comes first, in their order.
type Record struct {
	Tags   []Tag
	Start  Position
	Moves  []Move
	Result Result
}

// Tag returns the value of the first tag called name (names are case
// sensitive).
func (r Record) Tag(name string) (string, bool) {
	for _, t := range r.Tags {
		if t.Name == name {
			return t.Value, true
		}
	}
	return "", false
}

// PDNGameType is the value of the PDN GameType tag for Italian draughts.
const PDNGameType = "22"

// PDNStandardTags are the seven tags every game WritePDN writes carries,
// in their order (PDN's seven tag roster).
var PDNStandardTags = []string{"Event", "Site", "Date", "Round", "White", "Black", "Result"}

// PDN returns the result as PDN writes it for Italian draughts, the 8x8
// convention: "1-0", "0-1", "1/2-1/2" or "*".
func (r Result) PDN() string {
	switch r {
	case WhiteWins:
		return "1-0"
	case BlackWins:
		return "0-1"
	case Draw:
		return "1/2-1/2"
	}
	return "*"
}

// parseResult reads a result in either convention.
func parseResult(s string) (Result, bool) {
	switch s {
	case "2-0", "1-0":
		return WhiteWins, true
	case "0-2", "0-1":
		return BlackWins, true
	case "1-1", "1/2-1/2":
		return Draw, true
	case "*":
		return Ongoing, true
	}
	return Ongoing, false
}

// PDNGame is one game read by ReadPDNGames: the game as far as it could be
// read, and Err, the reason it could not be read further (nil for a good
// game).
type PDNGame struct {
	Record
	Err error
	// OtherGame, when not "", is what shows that the game is not Italian
	// draughts: a GameType tag other than 22, or a square above 32 (a
	// 10x10 board numbers its squares to 50), with the game's number.
	OtherGame string
	// Unended, set on the last game when the text ends inside it, before
	// its result, says so with the game's number: the file may have been
	// cut short. ParsePDN reads such a game (its result the Result tag's,
	// else Ongoing), so Err stays nil.
	Unended error
}

// Problem returns why the game is not whole: Err, else Unended, else nil.
func (g PDNGame) Problem() error {
	if g.Err != nil {
		return g.Err
	}
	return g.Unended
}

// ReadPDNGames reads the games of a PDN text each on its own, so that one
// bad game does not hide the others: a game with an illegal or ambiguous
// move, a bad tag or a syntax error keeps its tags and the moves before the
// bad one, and Err says which game, where and why (a *ParseError wrapped
// with the game number). The rest of a bad game is skipped up to its
// result or the next game's tags; an unclosed comment, variation or quote
// ends the text. The syntax is ParsePDN's.
func ReadPDNGames(text string) []PDNGame {
	ps := pdnParser{text: text, lenient: true}
	ps.parse()
	games := make([]PDNGame, len(ps.recs))
	for i, r := range ps.recs {
		games[i].Record = r
		if err := ps.errs[i]; err != nil {
			games[i].Err = fmt.Errorf("game %d: %w", i+1, err)
		}
		if o := ps.others[i]; o != "" {
			games[i].OtherGame = fmt.Sprintf("game %d: %s", i+1, o)
		}
	}
	if ps.unended && len(games) > 0 {
		n := len(games)
		games[n-1].Unended = fmt.Errorf("game %d: the text ends before the game's result: the file may be cut short", n)
	}
	return games
}

// ReadPDNFile reads the games of the PDN file path (ReadPDNGames) for a
// command that shows or uses them. It writes to w how many were read and
// why each bad one failed, and is an error when no game could be read: a
// file of another game (a GameType other than 22, squares up to 50) is
// named as such, not as a list of illegal moves.
func ReadPDNFile(w io.Writer, path string) ([]PDNGame, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	games := ReadPDNGames(string(text))
	if len(games) == 0 {
		return nil, fmt.Errorf("%s: no game in the file", path)
	}
	failed, other := 0, ""
	for _, g := range games {
		if g.Err != nil {
			failed++
		}
		if other == "" {
			other = g.OtherGame
		}
	}
	if failed == len(games) && other != "" {
		return nil, fmt.Errorf("%s is not Italian 8x8 draughts, the only game dama reads: %s", path, other)
	}
	fmt.Fprintf(w, "%s: %d games: %d read, %d failed\n", path, len(games), len(games)-failed, failed)
	for _, g := range games {
		if err := g.Problem(); err != nil { // a game cut short is read, and named
			fmt.Fprintf(w, "  %v\n", err)
		}
	}
	if failed == len(games) {
		return nil, fmt.Errorf("%s: none of its %d games could be read (the first: %v)", path, len(games), games[0].Err)
	}
	return games, nil
}

// ParsePDN reads the games of a PDN text. Each game is a list of tag pairs,
// [Name "Value"] (\" and \\ escape a quote and a backslash), then the move
// text, then a result: "1-0", "0-1", "1/2-1/2" or "*" ("2-0", "0-2" and
// "1-1" are read as synonyms). A GameType tag, when present, must be 22
// (Italian draughts); a FEN tag sets the start position; a Result tag gives
// the result of a game whose move text ends without one. The move text may
// number moves ("1.", "1..."), give moves in full or short notation (see
// ParseMove), and hold comments "{...}" and "; ..." to the end of a line,
// lines starting with the escape "%",
// variations "(...)" and annotations ("!", "?!", "$3"), all of which are
// skipped. A game that ends without a result (at the end of the text or at
// the next game's tags) has Result Ongoing.
//
// Errors are *ParseError values with What "PDN", the byte offset of the
// offending token in text, and the token; an illegal move also names its
// move number and side in Detail. The first bad game makes the whole text
// an error; ReadPDNGames reads the good games around bad ones.
func ParsePDN(text string) ([]Record, error) {
	ps := pdnParser{text: text}
	return ps.parse()
}

type pdnParser struct {
	text string
	i    int
	recs []Record
	errs []error // with lenient, each game's error (nil for a good game)
	// others holds, for each game, what shows it is another game than
	// Italian draughts ("" if nothing does); other is the current game's.
	others []string
	other  string

	// lenient records an error in the game and reads on (ReadPDNGames);
	// skip is set while the rest of a bad game is skipped.
	lenient bool
	skip    bool
	gameErr error
	// unended is set when the text ends inside a game, before its result.
	unended bool

	// The game being read.
	inGame  bool
	moved   bool // move text has started (a tag now begins a new game)
	rec     Record
	pos     Position
	tagOff  int // offset of the game's first token, for errors
	gtSeen  bool
	fenSeen bool
	tagRes  Result // the Result tag's value (Ongoing if none)
}

func (ps *pdnParser) fail(off int, tok string, err error, detail string) error {
	return &ParseError{What: "PDN", Offset: off, Token: tok, Err: err, Detail: detail}
}

func (ps *pdnParser) begin(off int) {
	if ps.inGame {
		return
	}
	ps.inGame = true
	ps.moved = false
	ps.rec = Record{Start: Start()}
	ps.pos = ps.rec.Start
	ps.tagOff = off
	ps.gtSeen, ps.fenSeen = false, false
	ps.tagRes = Ongoing
	ps.skip, ps.gameErr = false, nil
	ps.other = ""
}

func (ps *pdnParser) finish(r Result) {
	ps.rec.Result = r
	ps.rec.Tags = rosterFirst(ps.rec.Tags)
	ps.recs = append(ps.recs, ps.rec)
	ps.errs = append(ps.errs, ps.gameErr)
	ps.others = append(ps.others, ps.other)
	ps.inGame = false
	ps.skip, ps.gameErr = false, nil
}

// rosterFirst moves the first tag of each standard name to the front, in
// the order of PDNStandardTags, keeping the others in their order.
func rosterFirst(tags []Tag) []Tag {
	if len(tags) == 0 {
		return tags
	}
	out := make([]Tag, 0, len(tags))
	used := make([]bool, len(tags))
	for _, name := range PDNStandardTags {
		for i, t := range tags {
			if t.Name == name {
				out = append(out, t)
				used[i] = true
				break
			}
		}
	}
	for i, t := range tags {
		if !used[i] {
			out = append(out, t)
		}
	}
	return out
}

// finishImplicit ends a game whose move text has no result: the Result
// tag's, if any.
func (ps *pdnParser) finishImplicit() { ps.finish(ps.tagRes) }

// recover, in lenient mode, records err in the current game and moves on:
// past the token at off that ends at end (or to the end of the line when
// end is not past off). It reports whether parsing goes on.
func (ps *pdnParser) recover(err error, off, end int) bool {
	if !ps.lenient {
		return false
	}
	ps.begin(off)
	if ps.gameErr == nil {
		ps.gameErr = err
	}
	ps.skip = true
	ps.moved = ps.moved || ps.rec.Moves != nil
	if end <= off {
		end = len(ps.text)
		if nl := strings.IndexByte(ps.text[off:], '\n'); nl >= 0 {
			end = off + nl + 1
		}
	}
	ps.i = max(ps.i, end)
	return true
}

func (ps *pdnParser) parse() ([]Record, error) {
	t := ps.text
	for {
		for ps.i < len(t) && isPDNSpace(t[ps.i]) {
			ps.i++
		}
		if ps.i >= len(t) {
			break
		}
		off := ps.i
		switch c := t[off]; c {
		case '[':
			if ps.inGame && ps.moved {
				ps.finishImplicit()
			}
			ps.begin(off)
			if err := ps.tag(); err != nil {
				if !ps.recover(err, off, ps.i) {
					return nil, err
				}
			}
		case '{':
			end := strings.IndexByte(t[off:], '}')
			if end < 0 {
				err := ps.fail(off, clip(t[off:]), ErrSyntax, `comment "{" is never closed`)
				if !ps.recover(err, off, len(t)) {
					return nil, err
				}
				continue
			}
			ps.i = off + end + 1
		case ';', '%':
			if c == '%' && off > 0 && t[off-1] != '\n' {
				err := ps.fail(off, "%", ErrSyntax, `"%" escapes a whole line and must start it`)
				if !ps.recover(err, off, off+1) {
					return nil, err
				}
				continue
			}
			end := strings.IndexByte(t[off:], '\n')
			if end < 0 {
				ps.i = len(t)
			} else {
				ps.i = off + end + 1
			}
		case '(':
			if err := ps.skipVariation(); err != nil {
				if !ps.recover(err, off, len(t)) {
					return nil, err
				}
			}
		case '$':
			j := off + 1
			for j < len(t) && t[j] >= '0' && t[j] <= '9' {
				j++
			}
			if j == off+1 {
				err := ps.fail(off, "$", ErrSyntax, `"$" must be followed by an annotation number`)
				if !ps.recover(err, off, off+1) {
					return nil, err
				}
				continue
			}
			ps.i = j
		case ']', '}', ')', '"':
			err := ps.fail(off, string(c), ErrSyntax, fmt.Sprintf("unexpected %q", c))
			if !ps.recover(err, off, off+1) {
				return nil, err
			}
		default:
			j := off
			for j < len(t) && !isPDNSpace(t[j]) && strings.IndexByte("[]{}();$\"", t[j]) < 0 {
				j++
			}
			if err := ps.word(off, t[off:j]); err != nil {
				if !ps.recover(err, off, j) {
					return nil, err
				}
			}
			ps.i = j
		}
	}
	if ps.inGame {
		ps.unended = true
		ps.finishImplicit()
	}
	return ps.recs, nil
}

// tag reads [Name "Value"] at ps.i.
func (ps *pdnParser) tag() error {
	t := ps.text
	off := ps.i
	j := off + 1
	for j < len(t) && isPDNSpace(t[j]) {
		j++
	}
	nameOff := j
	for j < len(t) && isTagNameByte(t[j]) {
		j++
	}
	name := t[nameOff:j]
	if name == "" {
		return ps.fail(off, clip(t[off:]), ErrSyntax, "a tag pair is [Name \"Value\"]; the name is missing")
	}
	for j < len(t) && isPDNSpace(t[j]) {
		j++
	}
	if j >= len(t) || t[j] != '"' {
		return ps.fail(j, clip(t[j:]), ErrSyntax, "tag "+name+": expected a quoted value")
	}
	valOff := j
	j++
	var sb strings.Builder
	for {
		if j >= len(t) {
			ps.i = len(t)
			return ps.fail(valOff, clip(t[valOff:]), ErrSyntax, "tag "+name+": the value's quote is never closed")
		}
		c := t[j]
		if c == '"' {
			j++
			break
		}
		if c == '\\' && j+1 < len(t) && (t[j+1] == '"' || t[j+1] == '\\') {
			sb.WriteByte(t[j+1])
			j += 2
			continue
		}
		sb.WriteByte(c)
		j++
	}
	value := sb.String()
	for j < len(t) && isPDNSpace(t[j]) {
		j++
	}
	if j >= len(t) || t[j] != ']' {
		return ps.fail(off, clip(t[off:]), ErrSyntax, "tag "+name+`: expected "]" after the value`)
	}
	ps.i = j + 1

	switch name {
	case "GameType":
		if ps.gtSeen {
			return ps.fail(off, t[off:ps.i], ErrSyntax, "GameType given twice")
		}
		ps.gtSeen = true
		// PDN allows "22,W,8,8,A0,0"-style values: the first field is the game.
		game, _, _ := strings.Cut(value, ",")
		if game = strings.TrimSpace(game); game != PDNGameType {
			what := "GameType " + strconv.Quote(value)
			if name, ok := pdnGameTypes[game]; ok {
				what += " (" + name + ")"
			}
			ps.noteOther(what)
			return ps.fail(valOff, t[valOff:j], ErrSyntax,
				what+" is not Italian draughts (22), the only game this package reads")
		}
	case "FEN":
		if ps.fenSeen {
			return ps.fail(off, t[off:ps.i], ErrSyntax, "FEN given twice")
		}
		ps.fenSeen = true
		p, err := ParseFEN(value)
		if err != nil {
			var pe *ParseError
			if errors.As(err, &pe) && pe.Err == ErrSquare {
				ps.noteOtherSquare("the FEN tag", pe.Token)
			}
			if errors.As(err, &pe) {
				// The offset is exact when the value holds no escapes.
				return ps.fail(valOff+1+pe.Offset, pe.Token, pe.Err, "FEN tag: "+pe.Detail)
			}
			return ps.fail(valOff, value, ErrSyntax, "FEN tag: "+err.Error())
		}
		ps.rec.Start = p
		ps.pos = p
	case "Result":
		if r, ok := parseResult(strings.TrimSpace(value)); ok {
			ps.tagRes = r
		}
	default:
		if !(slices.Contains(PDNStandardTags, name) && unknownTagValue(value)) {
			ps.rec.Tags = append(ps.rec.Tags, Tag{Name: name, Value: value})
		}
	}
	return nil
}

// unknownTagValue reports PDN's "unknown" values: "?", "????.??.??".
func unknownTagValue(v string) bool {
	return v != "" && strings.Trim(v, "?.") == "" && strings.Contains(v, "?")
}

// skipVariation skips a parenthesised variation at ps.i, nested variations
// and comments included.
func (ps *pdnParser) skipVariation() error {
	t := ps.text
	off := ps.i
	depth := 0
	for j := off; j < len(t); j++ {
		switch t[j] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				ps.i = j + 1
				return nil
			}
		case '{':
			end := strings.IndexByte(t[j:], '}')
			if end < 0 {
				return ps.fail(j, clip(t[j:]), ErrSyntax, `comment "{" is never closed`)
			}
			j += end
		}
	}
	return ps.fail(off, clip(t[off:]), ErrSyntax, `variation "(" is never closed`)
}

// word handles a token of move text: a move number, a move, a result or an
// annotation.
func (ps *pdnParser) word(off int, w string) error {
	if r, ok := parseResult(w); ok {
		return ps.result(off, r)
	}
	if ps.skip {
		ps.moved = true // the rest of a bad game: a tag now begins the next
		ps.noteOtherSquare("move text", w)
		return nil
	}
	// A move number: digits followed by one or more periods.
	j := 0
	for j < len(w) && w[j] >= '0' && w[j] <= '9' {
		j++
	}
	if j < len(w) && w[j] == '.' {
		for j < len(w) && w[j] == '.' {
			j++
		}
		off += j
		w = w[j:]
	} else if j == 0 {
		for j < len(w) && w[j] == '.' {
			j++
		}
		off += j
		w = w[j:]
	}
	// Trailing annotations: "22-18!", "10x19?!".
	w = strings.TrimRight(w, "!?")
	if w == "" {
		return nil
	}
	ps.begin(off)
	ps.moved = true
	m, err := ParseMove(ps.pos, w)
	if err != nil {
		var pe *ParseError
		if !errors.As(err, &pe) {
			return ps.fail(off, w, ErrSyntax, err.Error())
		}
		ply := len(ps.rec.Moves)
		if ps.rec.Start.Side() == Black {
			ply++
		}
		num := fmt.Sprintf("move %d", ply/2+1)
		if ply%2 == 1 {
			num += "..."
		} else {
			num += "."
		}
		if pe.Err == ErrSquare {
			ps.noteOtherSquare(num, w)
		}
		if pe.Err == ErrIllegal || pe.Err == ErrAmbiguous {
			return ps.fail(off, w, pe.Err, num+" ("+ps.pos.Side().String()+"): "+pe.Detail)
		}
		return ps.fail(off+pe.Offset, pe.Token, pe.Err, num+": "+pe.Detail)
	}
	ps.rec.Moves = append(ps.rec.Moves, m)
	ps.pos = ps.pos.Play(m)
	return nil
}

// pdnGameTypes names the games of PDN's GameType numbers other than
// Italian draughts (22) that a user may meet.
var pdnGameTypes = map[string]string{
	"20": "international draughts, 10x10",
	"21": "English draughts or checkers",
	"23": "American pool checkers",
	"24": "Spanish draughts",
	"25": "Russian draughts",
	"26": "Brazilian draughts",
	"27": "Canadian draughts, 12x12",
	"28": "Portuguese draughts",
	"29": "Czech draughts",
	"30": "Turkish draughts",
	"31": "Thai draughts",
	"40": "Frisian draughts, 10x10",
}

// noteOther records what shows that the game being read is another game
// than Italian draughts, unless something already did.
func (ps *pdnParser) noteOther(what string) {
	if ps.other == "" {
		ps.other = what
	}
}

// noteOtherSquare notes a square of a 10x10 board (33 to 50) in tok, a
// move ("12. 33-28", "33x22") or a FEN square list, read in where.
func (ps *pdnParser) noteOtherSquare(where, tok string) {
	// A leading move number ("33.") is no square.
	if i := strings.IndexFunc(tok, func(r rune) bool { return r < '0' || r > '9' }); i > 0 && tok[i] == '.' {
		tok = strings.TrimLeft(tok[i:], ".")
	}
	for _, f := range strings.FieldsFunc(tok, func(r rune) bool { return r < '0' || r > '9' }) {
		if n, err := strconv.Atoi(f); err == nil && n > NumSquares && n <= 50 {
			ps.noteOther(fmt.Sprintf("square %d in %s (%q): Italian draughts numbers its squares 1 to %d, a 10x10 board to 50", n, where, clip(tok), NumSquares))
			return
		}
	}
}

func (ps *pdnParser) result(off int, r Result) error {
	ps.begin(off)
	ps.finish(r)
	return nil
}

func isPDNSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'
}

func isTagNameByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// clip shortens s to a token-sized excerpt for an error message.
func clip(s string) string {
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i]
	}
	if len(s) > 40 {
		s = s[:40] + "..."
	}
	return s
}

// pdnLineMax is the longest move text line WritePDN writes.
const pdnLineMax = 79

// WritePDN writes recs as PDN: for each game the seven standard tags
// (PDNStandardTags; "?" or "????.??.??" where r.Tags has no value, the
// Result tag from r.Result), its other tags in order, then [GameType "22"],
// then [FEN "..."] when Start is not the start position, a blank line, the
// moves numbered and in full notation in lines under 80 columns, and the
// result in the 8x8 convention (Result.PDN). Games are separated by a
// blank line. ParsePDN reads the output back into equal records. Tags
// named GameType, FEN or Result in r.Tags are not written (the game itself
// gives them); a tag name that is
// not letters, digits and underscores, or a move that is not legal where it
// is played, is an error and nothing more is written.
func WritePDN(w io.Writer, recs ...Record) error { return writePDN(w, recs, nil) }

// writePDN writes recs, each with its variations vars[i] (none where vars
// is shorter).
func writePDN(w io.Writer, recs []Record, vars [][]Variation) error {
	bw := bufio.NewWriter(w)
	for gi, r := range recs {
		if gi > 0 {
			bw.WriteByte('\n')
		}
		first := map[string]bool{} // standard names whose first tag is written
		for _, name := range PDNStandardTags {
			v, ok := r.Tag(name)
			first[name] = true
			switch {
			case name == "Result":
				v = r.Result.PDN()
			case !ok && name == "Date":
				v = "????.??.??"
			case !ok:
				v = "?"
			}
			writeTag(bw, name, v)
		}
		for _, t := range r.Tags {
			if t.Name == "GameType" || t.Name == "FEN" || t.Name == "Result" {
				continue
			}
			if first[t.Name] {
				first[t.Name] = false // written in the roster
				continue
			}
			if t.Name == "" || strings.IndexFunc(t.Name, func(c rune) bool { return c > 127 || !isTagNameByte(byte(c)) }) >= 0 {
				return fmt.Errorf("rules: PDN game %d: tag name %q is not letters, digits and underscores", gi+1, t.Name)
			}
			writeTag(bw, t.Name, t.Value)
		}
		writeTag(bw, "GameType", PDNGameType)
		if r.Start != Start() {
			writeTag(bw, "FEN", r.Start.FEN())
		}
		bw.WriteByte('\n')
		mt := &moveText{w: bw}
		var vs []Variation
		if gi < len(vars) {
			vs = vars[gi]
		}
		ply := 0
		if r.Start.Side() == Black {
			ply = 1
		}
		if err := mt.line(r.Start, ply, r.Moves, vs, fmt.Sprintf("PDN game %d", gi+1)); err != nil {
			return fmt.Errorf("rules: %w", err)
		}
		mt.put(r.Result.PDN())
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// WriteAt writes r as people read it up to ply n (0..len(r.Moves)): its
// tags, its first n moves numbered, how far that is and the result, and
// a diagram of the position after them.
func (r Record) WriteAt(w io.Writer, n int) {
	p := r.Start
	for _, m := range r.Moves[:n] {
		p = p.Play(m)
	}
	for _, t := range r.Tags {
		fmt.Fprintf(w, "[%s %q]\n", t.Name, t.Value)
	}
	for i, m := range r.Moves[:n] {
		if i%2 == 0 {
			fmt.Fprintf(w, "%d. ", i/2+1)
		}
		fmt.Fprintf(w, "%s ", m)
	}
	fmt.Fprintf(w, "\nafter %d of %d plies, result %s\n", n, len(r.Moves), r.Result)
	fmt.Fprint(w, p.Diagram())
}

func writeTag(w *bufio.Writer, name, value string) {
	w.WriteByte('[')
	w.WriteString(name)
	w.WriteString(` "`)
	for i := 0; i < len(value); i++ {
		if c := value[i]; c == '"' || c == '\\' {
			w.WriteByte('\\')
		}
		w.WriteByte(value[i])
	}
	w.WriteString("\"]\n")
}
