package rules

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Tag is one PDN tag pair, [Name "Value"].
type Tag struct {
	Name, Value string
}

// Record is one game of a PDN file: its tags, start position, moves and
// result. Tags holds the tag pairs in file order except GameType and FEN,
// which the file format derives from the game (GameType is always 22, the
// FEN tag is Start).
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

// ParsePDN reads the games of a PDN text. Each game is a list of tag pairs,
// [Name "Value"] (\" and \\ escape a quote and a backslash), then the move
// text, then a result: "2-0", "0-2", "1-1" or "*" ("1-0", "0-1" and
// "1/2-1/2" are read as synonyms). A GameType tag, when present, must be 22
// (Italian draughts); a FEN tag sets the start position. The move text may
// number moves ("1.", "1..."), give moves in full or short notation (see
// ParseMove), and hold comments "{...}" and "; ..." to the end of a line,
// lines starting with the escape "%",
// variations "(...)" and annotations ("!", "?!", "$3"), all of which are
// skipped. A game that ends without a result (at the end of the text or at
// the next game's tags) has Result Ongoing.
//
// Errors are *ParseError values with What "PDN", the byte offset of the
// offending token in text, and the token; an illegal move also names its
// move number and side in Detail.
func ParsePDN(text string) ([]Record, error) {
	ps := pdnParser{text: text}
	return ps.parse()
}

type pdnParser struct {
	text string
	i    int
	recs []Record

	// The game being read.
	inGame  bool
	moved   bool // move text has started (a tag now begins a new game)
	rec     Record
	pos     Position
	tagOff  int // offset of the game's first token, for errors
	gtSeen  bool
	fenSeen bool
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
}

func (ps *pdnParser) finish(r Result) {
	ps.rec.Result = r
	ps.recs = append(ps.recs, ps.rec)
	ps.inGame = false
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
				ps.finish(Ongoing)
			}
			ps.begin(off)
			if err := ps.tag(); err != nil {
				return nil, err
			}
		case '{':
			end := strings.IndexByte(t[off:], '}')
			if end < 0 {
				return nil, ps.fail(off, clip(t[off:]), ErrSyntax, `comment "{" is never closed`)
			}
			ps.i = off + end + 1
		case ';', '%':
			if c == '%' && off > 0 && t[off-1] != '\n' {
				return nil, ps.fail(off, "%", ErrSyntax, `"%" escapes a whole line and must start it`)
			}
			end := strings.IndexByte(t[off:], '\n')
			if end < 0 {
				ps.i = len(t)
			} else {
				ps.i = off + end + 1
			}
		case '(':
			if err := ps.skipVariation(); err != nil {
				return nil, err
			}
		case '$':
			j := off + 1
			for j < len(t) && t[j] >= '0' && t[j] <= '9' {
				j++
			}
			if j == off+1 {
				return nil, ps.fail(off, "$", ErrSyntax, `"$" must be followed by an annotation number`)
			}
			ps.i = j
		case ']', '}', ')', '"':
			return nil, ps.fail(off, string(c), ErrSyntax, fmt.Sprintf("unexpected %q", c))
		default:
			j := off
			for j < len(t) && !isPDNSpace(t[j]) && strings.IndexByte("[]{}();$\"", t[j]) < 0 {
				j++
			}
			if err := ps.word(off, t[off:j]); err != nil {
				return nil, err
			}
			ps.i = j
		}
	}
	if ps.inGame {
		ps.finish(Ongoing)
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
		if strings.TrimSpace(game) != PDNGameType {
			return ps.fail(valOff, t[valOff:j], ErrSyntax,
				"GameType "+strconv.Quote(value)+" is not Italian draughts (22), the only game this package reads")
		}
	case "FEN":
		if ps.fenSeen {
			return ps.fail(off, t[off:ps.i], ErrSyntax, "FEN given twice")
		}
		ps.fenSeen = true
		p, err := ParseFEN(value)
		if err != nil {
			var pe *ParseError
			if errors.As(err, &pe) {
				// The offset is exact when the value holds no escapes.
				return ps.fail(valOff+1+pe.Offset, pe.Token, pe.Err, "FEN tag: "+pe.Detail)
			}
			return ps.fail(valOff, value, ErrSyntax, "FEN tag: "+err.Error())
		}
		ps.rec.Start = p
		ps.pos = p
	default:
		ps.rec.Tags = append(ps.rec.Tags, Tag{Name: name, Value: value})
	}
	return nil
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
	switch w {
	case "2-0", "1-0":
		return ps.result(off, WhiteWins)
	case "0-2", "0-1":
		return ps.result(off, BlackWins)
	case "1-1", "1/2-1/2":
		return ps.result(off, Draw)
	case "*":
		return ps.result(off, Ongoing)
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
		if pe.Err == ErrIllegal || pe.Err == ErrAmbiguous {
			return ps.fail(off, w, pe.Err, num+" ("+ps.pos.Side().String()+"): "+pe.Detail)
		}
		return ps.fail(off+pe.Offset, pe.Token, pe.Err, num+": "+pe.Detail)
	}
	ps.rec.Moves = append(ps.rec.Moves, m)
	ps.pos = ps.pos.Play(m)
	return nil
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

// WritePDN writes recs as PDN: for each game its tags in order, then
// [GameType "22"], then [FEN "..."] when Start is not the start position,
// a blank line, the moves numbered and in full notation in lines under 80
// columns, and the result. Games are separated by a blank line. ParsePDN
// reads the output back into equal records. Tags named GameType or FEN in
// r.Tags are not written (the game itself gives them); a tag name that is
// not letters, digits and underscores, or a move that is not legal where it
// is played, is an error and nothing more is written.
func WritePDN(w io.Writer, recs ...Record) error {
	bw := bufio.NewWriter(w)
	var buf [MaxMoves]Move
	for gi, r := range recs {
		if gi > 0 {
			bw.WriteByte('\n')
		}
		for _, t := range r.Tags {
			if t.Name == "GameType" || t.Name == "FEN" {
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

		line := 0 // length of the current move text line
		put := func(s string) {
			if line > 0 && line+1+len(s) > pdnLineMax {
				bw.WriteByte('\n')
				line = 0
			}
			if line > 0 {
				bw.WriteByte(' ')
				line++
			}
			bw.WriteString(s)
			line += len(s)
		}
		p := r.Start
		ply := 0
		if p.Side() == Black {
			ply = 1
		}
		for i, m := range r.Moves {
			legal := p.Legal(buf[:0])
			ok := false
			for _, l := range legal {
				if l == m {
					ok = true
					break
				}
			}
			if !ok {
				return fmt.Errorf("rules: PDN game %d: move %d (%s) is not legal in %s", gi+1, i+1, m, p.FEN())
			}
			num := strconv.Itoa(ply/2 + 1)
			switch {
			case ply%2 == 0:
				put(num + ". " + m.String())
			case i == 0:
				put(num + "... " + m.String())
			default:
				put(m.String())
			}
			p = p.Play(m)
			ply++
		}
		put(r.Result.String())
		bw.WriteByte('\n')
	}
	return bw.Flush()
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
