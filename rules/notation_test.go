package rules

import (
	"fmt"
	"strings"
	"testing"
)

func TestParseMove(t *testing.T) {
	const known = "W:WK21,31:B10,18,27"
	const twoWays = "W:W26:B21,13,22,14" // 26x17x10 and 26x19x10
	cases := []struct {
		fen, in string
		want    string // full notation of the move, or "" for an error
		err     error
		off     int    // error offset
		tok     string // error token
		detail  string // a substring of the error's Detail
	}{
		{fen: StartFEN, in: "22-18", want: "22-18"},
		{fen: StartFEN, in: " 22-18\n", want: "22-18"},
		{fen: "B" + StartFEN[1:], in: "9-13", want: "9-13"},
		{fen: known, in: "31x22x13x6", want: "31x22x13x6"},
		{fen: known, in: "31x6", want: "31x22x13x6"},
		{fen: known, in: "31X22X13X6", want: "31x22x13x6"},
		{fen: twoWays, in: "26x17x10", want: "26x17x10"},
		{fen: twoWays, in: "26x19x10", want: "26x19x10"},
		{fen: "W:WK26:B13,14,21,22", in: "26x19x10x17x26", want: ""}, // either path; checked in rules_test

		{fen: StartFEN, in: "", err: ErrSyntax, detail: "empty"},
		{fen: StartFEN, in: "22", err: ErrSyntax, tok: "22"},
		{fen: StartFEN, in: "22-", err: ErrSyntax},
		{fen: StartFEN, in: "-18", err: ErrSyntax, off: 0, tok: "-"},
		{fen: StartFEN, in: "22-18-14", err: ErrSyntax, detail: "two squares"},
		{fen: StartFEN, in: "22-18x14", err: ErrSyntax, off: 5, tok: "x"},
		{fen: StartFEN, in: "22_18", err: ErrSyntax, off: 2, tok: "_"},
		{fen: StartFEN, in: "a-b", err: ErrSyntax, off: 0, tok: "a"},
		{fen: StartFEN, in: "1x2x3x4x5x6x7x8x9x10x11x12x13x14", err: ErrSyntax},
		{fen: StartFEN, in: "22-33", err: ErrSquare, off: 3, tok: "33"},
		{fen: StartFEN, in: " 0-5", err: ErrSquare, off: 1, tok: "0"},
		{fen: StartFEN, in: "22-180000000000000000000000", err: ErrSquare, off: 3},
		{fen: StartFEN, in: "22-17", err: ErrIllegal, tok: "22-17", detail: "legal moves: "},
		{fen: StartFEN, in: "22x18", err: ErrIllegal, detail: "simple move, written 22-18"},
		{fen: StartFEN, in: "18-14", err: ErrIllegal},
		{fen: known, in: "21-17", err: ErrIllegal, detail: "a capture is mandatory: 31x22x13x6"},
		{fen: known, in: "31-6", err: ErrIllegal},
		{fen: known, in: "31x22", err: ErrIllegal},
		{fen: known, in: "31x22x13", err: ErrIllegal},
		{fen: known, in: "31x13x6", err: ErrIllegal},
		{fen: known, in: "21x14x5", err: ErrIllegal},
		{fen: "W:W22:B18", in: "22-13", err: ErrIllegal, detail: "it is a capture, written 22x13"},
		{fen: "B:WK29:B", in: "1-5", err: ErrIllegal, detail: "there is no legal move"},
		{fen: twoWays, in: "26x10", err: ErrAmbiguous, tok: "26x10", detail: "26x17x10 26x19x10"},
	}
	for _, c := range cases {
		p := mustFEN(t, c.fen)
		m, err := ParseMove(p, c.in)
		if c.err == nil {
			if err != nil {
				t.Errorf("ParseMove(%s, %q): %v", c.fen, c.in, err)
			} else if c.want != "" && m.String() != c.want {
				t.Errorf("ParseMove(%s, %q) = %s, want %s", c.fen, c.in, m, c.want)
			}
			continue
		}
		call := fmt.Sprintf("ParseMove(%s, %q)", c.fen, c.in)
		if !checkParseErrorIs(t, err, call, "move", c.err, c.off, c.tok, c.detail) {
			continue
		}
		if c.err == ErrIllegal && !strings.Contains(err.Error(), strings.TrimSpace(c.in)) {
			t.Errorf("ParseMove(%s, %q): error %q does not name the move", c.fen, c.in, err)
		}
	}
}
