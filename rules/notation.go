package rules

import (
	"slices"
	"strconv"
	"strings"
)

// ParseMove reads a move of p in FID notation and returns the legal move it
// names. A simple move is written "22-18"; a capture lists its start and
// every landing square, "31x22x13x6", or only its start and end, "31x6",
// when exactly one legal capture goes from the one to the other. The
// separator must match the move: "-" for a simple move, "x" for a capture.
//
// A full capture path must be the path of a legal move, or another path by
// which the same piece captures the same pieces from the same start to the
// same end (a different order of the same jumps gives the same move, and
// Legal keeps only one of them); the move returned is then the one Legal
// gives.
//
// Errors are *ParseError values with What "move" that wrap ErrSyntax (not a
// move), ErrSquare (a number outside 1..32), ErrIllegal (no legal move
// matches) or ErrAmbiguous (a short capture that several legal moves match;
// Detail lists their full forms).
func ParseMove(p Position, s string) (Move, error) {
	fail := func(off int, tok string, err error, detail string) (Move, error) {
		return Move{}, &ParseError{What: "move", Offset: off, Token: tok, Err: err, Detail: detail}
	}
	// Leading and trailing blanks are allowed; offsets count from s.
	start := 0
	for start < len(s) && isBlank(s[start]) {
		start++
	}
	end := len(s)
	for end > start && isBlank(s[end-1]) {
		end--
	}
	text := s[start:end]
	if text == "" {
		return fail(0, s, ErrSyntax, "empty move")
	}

	var sqs [maxCaptures + 1]Square
	n := 0
	var sep byte
	i := start
	for {
		j := i
		for j < end && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == i {
			if i < end {
				return fail(i, s[i:i+1], ErrSyntax, "expected a square number")
			}
			return fail(start, text, ErrSyntax, "move ends with a separator")
		}
		num := s[i:j]
		v, err := strconv.Atoi(num)
		if err != nil || v < 1 || v > NumSquares {
			return fail(i, num, ErrSquare, "squares are numbered 1 to 32")
		}
		if n == len(sqs) {
			return fail(start, text, ErrSyntax, "more landing squares than any capture can have")
		}
		sqs[n] = Square(v)
		n++
		if j == end {
			break
		}
		c := s[j]
		if c == 'X' {
			c = 'x'
		}
		if c != '-' && c != 'x' {
			return fail(j, s[j:j+1], ErrSyntax, `squares are separated by "-" (simple move) or "x" (capture)`)
		}
		if sep == 0 {
			sep = c
		} else if c != sep {
			return fail(j, s[j:j+1], ErrSyntax, `a move uses "-" or "x", not both`)
		}
		i = j + 1
	}
	if n < 2 {
		return fail(start, text, ErrSyntax, "a move needs a start and an end square")
	}
	if sep == '-' && n > 2 {
		return fail(start, text, ErrSyntax, `a simple move has two squares; write captures with "x"`)
	}

	var buf [MaxMoves]Move
	legal := p.Legal(buf[:0])
	from, to := sqs[0], sqs[n-1]
	illegal := func(detail string) (Move, error) {
		return fail(start, text, ErrIllegal, "no legal move "+text+" for "+p.side.String()+
			" in "+p.FEN()+"; "+detail)
	}

	if sep == '-' {
		for _, m := range legal {
			if !m.IsCapture() && m.From() == from && m.To() == to {
				return m, nil
			}
		}
		if len(legal) > 0 && legal[0].IsCapture() {
			for _, m := range legal {
				if m.From() == from && m.To() == to {
					return illegal("it is a capture, written " + m.String())
				}
			}
			return illegal("a capture is mandatory: " + moveList(legal))
		}
		return illegal(legalDetail(legal))
	}

	// A capture: the exact path of a legal move first.
	for _, m := range legal {
		if m.IsCapture() && int(m.n)+1 == n && samePath(m, sqs[:n]) {
			return m, nil
		}
	}
	if n == 2 {
		// The short form: start and end only.
		var found []Move
		for _, m := range legal {
			if m.IsCapture() && m.From() == from && m.To() == to {
				found = append(found, m)
			}
		}
		switch len(found) {
		case 1:
			return found[0], nil
		case 0:
		default:
			slices.SortFunc(found, func(a, b Move) int { return strings.Compare(a.String(), b.String()) })
			return fail(start, text, ErrAmbiguous, "legal moves from "+from.String()+" to "+to.String()+
				": "+moveList(found))
		}
	} else if capt, ok := jumpedSet(p, sqs[:n]); ok {
		// Another path for a move that Legal gives by a different path.
		for _, m := range legal {
			if m.IsCapture() && int(m.n)+1 == n && m.From() == from && m.To() == to && m.Captured() == capt {
				return m, nil
			}
		}
	}
	for _, m := range legal {
		if !m.IsCapture() && m.From() == from && m.To() == to {
			return illegal("it is a simple move, written " + m.String())
		}
	}
	return illegal(legalDetail(legal))
}

// legalDetail describes the legal moves for an error message.
func legalDetail(legal []Move) string {
	if len(legal) == 0 {
		return "there is no legal move"
	}
	return "legal moves: " + moveList(legal)
}

// moveList joins the full forms of moves with spaces.
func moveList(ms []Move) string {
	var sb strings.Builder
	for i, m := range ms {
		if i > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(m.String())
	}
	return sb.String()
}

// samePath reports whether path is m's start followed by its landing squares.
func samePath(m Move, path []Square) bool {
	if bitSq[m.from] != path[0] {
		return false
	}
	for i := 0; i < int(m.n); i++ {
		if bitSq[m.path[i]] != path[i+1] {
			return false
		}
	}
	return true
}

// jumpedSet checks that path is a capture path the piece on its first square
// can play in p, jump by jump (own pieces and empty squares are never jumped,
// no piece twice, a man forward and over men only, landing on empty squares,
// a man's move ending where it is crowned), and returns the pieces it jumps.
func jumpedSet(p Position, path []Square) (SquareSet, bool) {
	from := path[0]
	pc := p.At(from)
	if pc == Empty || pc.Color() != p.side {
		return 0, false
	}
	var capt SquareSet
	for i := 1; i < len(path); i++ {
		a, b := path[i-1], path[i]
		dr, df := b.Row()-a.Row(), b.File()-a.File()
		if (dr != 2 && dr != -2) || (df != 2 && df != -2) {
			return 0, false
		}
		if !pc.IsKing() {
			if (p.side == White) != (dr < 0) {
				return 0, false
			}
			if i < len(path)-1 && ((p.side == White && b.Row() == 0) || (p.side == Black && b.Row() == 7)) {
				return 0, false
			}
		}
		over := squareAt(a.Row()+dr/2, a.File()+df/2)
		op := p.At(over)
		if op == Empty || op.Color() == p.side || capt.Has(over) || (!pc.IsKing() && op.IsKing()) {
			return 0, false
		}
		if b != from && p.At(b) != Empty {
			return 0, false
		}
		capt |= 1 << (over - 1)
	}
	return capt, true
}

// squareAt returns the playable square at row r and file f (both 0..7).
func squareAt(r, f int) Square {
	return Square(4*r + f/2 + 1)
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }
