package engine

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"dama/rules"
)

// The Hub text formats.
//
// A position is one character for the side to move ('W' or 'B') and one per
// square in FID order 1..32: 'w' and 'b' men, 'W' and 'B' kings, 'e' empty.
// The start position is "Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww".
//
// A move is "22-18" for a simple move; a capture is its start, its end and
// then every captured square, all joined by 'x' ("from x to x captured x
// captured ..."), e.g. "31x6x27x18x10" for the capture 31x22x13x6 that
// takes the pieces on 27, 18 and 10. This is Scan's Hub form; it names the
// captured pieces rather than the landing squares, so it identifies a move
// even where two capture paths have the same ends.

// ErrHub is wrapped by the errors of the Hub format parsers.
var ErrHub = errors.New("hub")

// FormatHubPosition returns p in Hub form.
func FormatHubPosition(p rules.Position) string {
	var sb strings.Builder
	sb.Grow(1 + rules.NumSquares)
	if p.Side() == rules.White {
		sb.WriteByte('W')
	} else {
		sb.WriteByte('B')
	}
	for s := rules.Square(1); s <= rules.NumSquares; s++ {
		sb.WriteByte("ewWbB"[p.At(s)])
	}
	return sb.String()
}

// ParseHubPosition reads a position in Hub form.
func ParseHubPosition(s string) (rules.Position, error) {
	if len(s) != 1+rules.NumSquares {
		return rules.Position{}, fmt.Errorf("%w: position %q has %d characters, want 33 (side to move and 32 squares)", ErrHub, s, len(s))
	}
	var side rules.Color
	switch s[0] {
	case 'W', 'w':
		side = rules.White
	case 'B', 'b':
		side = rules.Black
	default:
		return rules.Position{}, fmt.Errorf("%w: position %q: side to move %q is not W or B", ErrHub, s, s[0])
	}
	var board [rules.NumSquares]rules.Piece
	for i := 0; i < rules.NumSquares; i++ {
		switch s[1+i] {
		case 'e', '.':
			board[i] = rules.Empty
		case 'w':
			board[i] = rules.WhiteMan
		case 'W':
			board[i] = rules.WhiteKing
		case 'b':
			board[i] = rules.BlackMan
		case 'B':
			board[i] = rules.BlackKing
		default:
			return rules.Position{}, fmt.Errorf("%w: position %q: square %d holds %q, want one of w, b, W, B, e", ErrHub, s, i+1, s[1+i])
		}
		sq := rules.Square(i + 1)
		if (board[i] == rules.WhiteMan && sq.Row() == 0) || (board[i] == rules.BlackMan && sq.Row() == 7) {
			return rules.Position{}, fmt.Errorf("%w: position %q: a man on square %d would already have been crowned", ErrHub, s, sq)
		}
	}
	p := rules.NewPosition(board, side)
	if err := rules.CheckPieces(p); err != nil {
		return rules.Position{}, fmt.Errorf("%w: position %q: %v", ErrHub, s, err)
	}
	return p, nil
}

// FormatHubMove returns m in Hub form: "22-18", or "from x to x captured..."
// with the captured squares in the order they are jumped.
func FormatHubMove(m rules.Move) string {
	if !m.IsCapture() {
		return m.String()
	}
	var sb strings.Builder
	sb.WriteString(m.From().String())
	sb.WriteByte('x')
	sb.WriteString(m.To().String())
	for _, c := range m.CapturedInOrder() {
		sb.WriteByte('x')
		sb.WriteString(c.String())
	}
	return sb.String()
}

// ParseHubMove returns the legal move of p that s names. s is read in Hub
// form first (captured squares in any order; "from x to" alone when only
// one legal capture joins them) and, failing that, in FID notation
// (rules.ParseMove), so a GUI sending landing squares is understood too.
func ParseHubMove(p rules.Position, s string) (rules.Move, error) {
	s = strings.TrimSpace(s)
	legal := p.Legal(nil)
	if strings.ContainsAny(s, "xX") {
		parts := strings.FieldsFunc(s, func(r rune) bool { return r == 'x' || r == 'X' })
		if len(parts) >= 2 {
			sq := make([]rules.Square, 0, len(parts))
			ok := true
			for _, f := range parts {
				v, err := strconv.Atoi(f)
				if err != nil || v < 1 || v > rules.NumSquares {
					ok = false
					break
				}
				sq = append(sq, rules.Square(v))
			}
			if ok {
				var caps rules.SquareSet
				for _, c := range sq[2:] {
					caps |= 1 << (c - 1)
				}
				var found []rules.Move
				for _, m := range legal {
					if m.IsCapture() && m.From() == sq[0] && m.To() == sq[1] &&
						(len(sq) == 2 || (m.Captured() == caps && m.NumCaptured() == len(sq)-2)) {
						found = append(found, m)
					}
				}
				if len(found) == 1 {
					return found[0], nil
				}
				if len(found) > 1 {
					var names []string
					for _, m := range found {
						names = append(names, FormatHubMove(m))
					}
					return rules.Move{}, fmt.Errorf("%w: move %q is ambiguous in %s: %s", ErrHub, s, p.FEN(), strings.Join(names, ", "))
				}
			}
		}
	}
	m, err := rules.ParseMove(p, s)
	if err != nil {
		return rules.Move{}, fmt.Errorf("%w: move %q in %s: %w", ErrHub, s, p.FEN(), err)
	}
	return m, nil
}

// HubLine is one line of the protocol: a command and its arguments in
// order. A flag argument has an empty value and HasValue false.
type HubLine struct {
	Command string
	Args    []HubArg
}

// HubArg is one argument of a HubLine.
type HubArg struct {
	Name, Value string
	HasValue    bool
}

// Get returns the value of the named argument.
func (l HubLine) Get(name string) (string, bool) {
	for _, a := range l.Args {
		if a.Name == name {
			return a.Value, true
		}
	}
	return "", false
}

// ParseHubLine splits a line "command name=value name="quoted value" flag".
// Values are quoted with double quotes when they hold a space or '=' or
// are empty; inside quotes a backslash escapes the next character.
func ParseHubLine(s string) (HubLine, error) {
	var l HubLine
	i := 0
	skip := func() {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n') {
			i++
		}
	}
	word := func() string {
		j := i
		for i < len(s) && s[i] != ' ' && s[i] != '\t' && s[i] != '=' && s[i] != '\r' && s[i] != '\n' {
			i++
		}
		return s[j:i]
	}
	skip()
	l.Command = word()
	if i < len(s) && s[i] == '=' {
		return l, fmt.Errorf("%w: line %q: a command cannot have a value", ErrHub, s)
	}
	for {
		skip()
		if i >= len(s) {
			return l, nil
		}
		a := HubArg{Name: word()}
		if a.Name == "" {
			return l, fmt.Errorf("%w: line %q: argument without a name at offset %d", ErrHub, s, i)
		}
		if i < len(s) && s[i] == '=' {
			i++
			a.HasValue = true
			if i < len(s) && s[i] == '"' {
				i++
				var sb strings.Builder
				closed := false
				for i < len(s) {
					c := s[i]
					i++
					if c == '\\' && i < len(s) {
						sb.WriteByte(s[i])
						i++
						continue
					}
					if c == '"' {
						closed = true
						break
					}
					sb.WriteByte(c)
				}
				if !closed {
					return l, fmt.Errorf("%w: line %q: unterminated quoted value of %s", ErrHub, s, a.Name)
				}
				a.Value = sb.String()
			} else {
				a.Value = word()
			}
		}
		l.Args = append(l.Args, a)
	}
}

// String formats the line, quoting values that need it.
func (l HubLine) String() string {
	var sb strings.Builder
	sb.WriteString(l.Command)
	for _, a := range l.Args {
		sb.WriteByte(' ')
		sb.WriteString(a.Name)
		if a.HasValue {
			sb.WriteByte('=')
			sb.WriteString(quoteHub(a.Value))
		}
	}
	return sb.String()
}

func quoteHub(v string) string {
	if v != "" && !strings.ContainsAny(v, " \t=\"\\") {
		return v
	}
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(v) + `"`
}

// hubLine builds a HubLine from a command and alternating argument names
// and values.
func hubLine(cmd string, kv ...string) HubLine {
	l := HubLine{Command: cmd}
	for i := 0; i+1 < len(kv); i += 2 {
		l.Args = append(l.Args, HubArg{Name: kv[i], Value: kv[i+1], HasValue: true})
	}
	return l
}
