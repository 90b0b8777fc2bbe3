package rules

import (
	"fmt"
	"strings"
)

// Char returns the one-letter form of a piece: w and b for men, W and B for
// kings, '.' for an empty square.
func (p Piece) Char() byte {
	return ".wWbB"[p]
}

// Diagram draws the board as text, seen from White, with file letters, rank
// numbers, and on each dark square its FID number and its piece (w/b men,
// W/B kings, '.' empty).
func (p Position) Diagram() string {
	var sb strings.Builder
	const files = "     a     b     c     d     e     f     g     h\n"
	line := "   +" + strings.Repeat("-----+", 8) + "\n"
	sb.WriteString(files)
	sb.WriteString(line)
	for row := 0; row < 8; row++ {
		fmt.Fprintf(&sb, " %d |", 8-row)
		for file := 0; file < 8; file++ {
			if (row+file)%2 == 1 {
				sb.WriteString("     |")
				continue
			}
			s := Square(row*4 + file/2 + 1)
			fmt.Fprintf(&sb, "%2d %c |", s, p.At(s).Char())
		}
		fmt.Fprintf(&sb, " %d\n", 8-row)
		sb.WriteString(line)
	}
	sb.WriteString(files)
	fmt.Fprintf(&sb, "%s to move   %s\n", capitalize(p.side.String()), p.FEN())
	return sb.String()
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
