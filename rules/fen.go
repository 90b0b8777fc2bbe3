package rules

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Sentinel errors wrapped by *ParseError.
var (
	ErrSyntax    = errors.New("syntax error")
	ErrSquare    = errors.New("no such square")
	ErrIllegal   = errors.New("illegal move")
	ErrAmbiguous = errors.New("ambiguous move")
	ErrPosition  = errors.New("impossible position")
)

// ParseError reports what was wrong with a text and where.
type ParseError struct {
	What   string // what was being parsed: "FEN", "move", "PDN"
	Offset int    // byte offset of Token in the input
	Token  string // the offending token
	Err    error  // one of the sentinel errors, or a more specific one
	Detail string // optional explanation
}

func (e *ParseError) Error() string {
	msg := fmt.Sprintf("%s: %v at offset %d (%q)", e.What, e.Err, e.Offset, e.Token)
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return msg
}

// Unwrap returns the underlying sentinel error.
func (e *ParseError) Unwrap() error { return e.Err }

// StartFEN is the initial position in PDN FEN form.
const StartFEN = "W:W21-32:B1-12"

// ParseFEN reads a position in PDN FEN form, e.g. "W:W21,22,K31:B1,2,K10".
// Square ranges ("21-32", "K1-4") are accepted, as are surrounding quotes
// and a trailing period. A square given twice, a man on its promotion row
// and a square outside 1..32 are errors.
func ParseFEN(s string) (Position, error) {
	orig := s
	fail := func(off int, tok string, err error, detail string) (Position, error) {
		return Position{}, &ParseError{What: "FEN", Offset: off, Token: tok, Err: err, Detail: detail}
	}
	// Trim blanks, quotes and a final period, remembering the offset.
	start := 0
	for start < len(s) && strings.IndexByte(" \t\r\n\"", s[start]) >= 0 {
		start++
	}
	end := len(s)
	for end > start && strings.IndexByte(" \t\r\n\".", s[end-1]) >= 0 {
		end--
	}
	s = s[start:end]
	if s == "" {
		return fail(0, orig, ErrSyntax, "empty FEN")
	}
	fields := strings.Split(s, ":")
	var side Color
	switch strings.ToUpper(fields[0]) {
	case "W":
		side = White
	case "B":
		side = Black
	default:
		return fail(start, fields[0], ErrSyntax, "side to move must be W or B")
	}
	if len(fields) > 3 {
		return fail(start, s, ErrSyntax, "expected side:white pieces:black pieces")
	}
	var board [NumSquares]Piece
	off := start + len(fields[0]) + 1
	seen := [2]bool{}
	for _, f := range fields[1:] {
		if f == "" {
			return fail(off, f, ErrSyntax, "empty piece list; write W or B with no squares")
		}
		var c Color
		switch f[0] {
		case 'W', 'w':
			c = White
		case 'B', 'b':
			c = Black
		default:
			return fail(off, f, ErrSyntax, "piece list must start with W or B")
		}
		if seen[c] {
			return fail(off, f, ErrSyntax, "colour "+c.String()+" given twice")
		}
		seen[c] = true
		tokOff := off + 1
		body := f[1:]
		if body != "" {
			for _, tok := range strings.Split(body, ",") {
				if err := fenToken(tok, tokOff, c, &board); err != nil {
					return Position{}, err
				}
				tokOff += len(tok) + 1
			}
		}
		off += len(f) + 1
	}
	p := NewPosition(board, side)
	if msg := tooManyPieces(p); msg != "" {
		return fail(0, orig, ErrPosition, msg)
	}
	return p, nil
}

// maxPieces is the most pieces a side can have: the twelve it starts with.
const maxPieces = 12

// CheckPieces reports a position in which a side has more than maxPieces (12)
// pieces (men and kings together), which no game can reach.
func CheckPieces(p Position) error {
	if msg := tooManyPieces(p); msg != "" {
		return fmt.Errorf("%w: %s", ErrPosition, msg)
	}
	return nil
}

// tooManyPieces says which side of p has too many pieces ("" if none).
func tooManyPieces(p Position) string {
	for _, c := range []Color{White, Black} {
		men, kings := p.Count(c)
		if men+kings > maxPieces {
			return fmt.Sprintf("%s has %d pieces (%d men, %d kings), at most %d", c, men+kings, men, kings, maxPieces)
		}
	}
	return ""
}

// fenToken places the pieces of one FEN token ("K10", "21-32").
func fenToken(tok string, off int, c Color, board *[NumSquares]Piece) error {
	fail := func(err error, detail string) error {
		return &ParseError{What: "FEN", Offset: off, Token: tok, Err: err, Detail: detail}
	}
	t := strings.TrimSpace(tok)
	king := false
	if t != "" && (t[0] == 'K' || t[0] == 'k') {
		king = true
		t = t[1:]
	}
	lo, hi := t, t
	if i := strings.IndexByte(t, '-'); i >= 0 {
		lo, hi = t[:i], t[i+1:]
		if hi != "" && (hi[0] == 'K' || hi[0] == 'k') {
			hi = hi[1:]
		}
	}
	a, err1 := strconv.Atoi(lo)
	b, err2 := strconv.Atoi(hi)
	if err1 != nil || err2 != nil {
		return fail(ErrSyntax, "expected a square number or a range")
	}
	if a < 1 || a > NumSquares || b < 1 || b > NumSquares {
		return fail(ErrSquare, "squares are numbered 1 to 32")
	}
	if a > b {
		return fail(ErrSyntax, "range goes downwards")
	}
	for s := a; s <= b; s++ {
		sq := Square(s)
		if board[s-1] != Empty {
			return fail(ErrPosition, "square "+sq.String()+" given twice")
		}
		pc := WhiteMan
		if c == Black {
			pc = BlackMan
		}
		if king {
			pc++
		} else if (c == White && sq.Row() == 0) || (c == Black && sq.Row() == 7) {
			return fail(ErrPosition, "a man on square "+sq.String()+" would already have been crowned")
		}
		board[s-1] = pc
	}
	return nil
}

// FEN returns the position in PDN FEN form, squares in increasing order,
// kings marked with K, e.g. "W:W21,22,K31:B1,2,K10".
func (p Position) FEN() string {
	var sb strings.Builder
	if p.side == White {
		sb.WriteByte('W')
	} else {
		sb.WriteByte('B')
	}
	for _, c := range []Color{White, Black} {
		sb.WriteString(":")
		if c == White {
			sb.WriteByte('W')
		} else {
			sb.WriteByte('B')
		}
		first := true
		kings := p.Kings(c)
		for _, s := range p.Pieces(c).Squares() {
			if !first {
				sb.WriteByte(',')
			}
			first = false
			if kings.Has(s) {
				sb.WriteByte('K')
			}
			sb.WriteString(s.String())
		}
	}
	return sb.String()
}

// String returns the FEN of the position.
func (p Position) String() string { return p.FEN() }
