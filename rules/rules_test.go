package rules

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// One test per rule of the FID regulation as summarised in RULES.md: a
// position in, the exact set of legal moves out. Each case is written for
// White and checked again, mirrored, for Black: Flip turns the board (square
// s becomes 33-s) and swaps the colours.

func mustFEN(t testing.TB, fen string) Position {
	t.Helper()
	p, err := ParseFEN(fen)
	if err != nil {
		t.Fatalf("ParseFEN(%q): %v", fen, err)
	}
	return p
}

// legalStrings returns the full notation of p's legal moves, sorted.
func legalStrings(p Position) []string {
	var out []string
	for _, m := range p.Legal(nil) {
		out = append(out, m.String())
	}
	slices.Sort(out)
	return out
}

// mirror rewrites a move in full notation with every square s as 33-s.
func mirror(move string) string {
	var sb strings.Builder
	num := 0
	inNum := false
	flush := func() {
		if inNum {
			sb.WriteString(strconv.Itoa(33 - num))
		}
		num, inNum = 0, false
	}
	for _, c := range move {
		if c >= '0' && c <= '9' {
			num = num*10 + int(c-'0')
			inNum = true
			continue
		}
		flush()
		sb.WriteRune(c)
	}
	flush()
	return sb.String()
}

type legalCase struct {
	name string
	fen  string   // White to move
	want []string // full notation
}

// checkLegal checks the legal moves of each case for White, then of its
// mirror image for Black.
func checkLegal(t *testing.T, cases []legalCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := mustFEN(t, c.fen)
			want := slices.Sorted(slices.Values(c.want))
			if got := legalStrings(p); !slices.Equal(got, want) {
				t.Errorf("white: Legal(%s) = %v, want %v", c.fen, got, want)
			}
			q := p.Flip()
			if q.Side() != Black {
				t.Fatalf("Flip(%s).Side() = %v, want black", c.fen, q.Side())
			}
			var wantB []string
			for _, m := range c.want {
				wantB = append(wantB, mirror(m))
			}
			slices.Sort(wantB)
			if got := legalStrings(q); !slices.Equal(got, wantB) {
				t.Errorf("black: Legal(%s) = %v, want %v", q.FEN(), got, wantB)
			}
		})
	}
}

func TestMirrorHelper(t *testing.T) {
	if got, want := mirror("31x22x13x6"), "2x11x20x27"; got != want {
		t.Errorf("mirror = %q, want %q", got, want)
	}
	p := mustFEN(t, "W:WK21,31:B10,18,27")
	if got, want := p.Flip().FEN(), "B:W6,15,23:B2,K12"; got != want {
		t.Errorf("Flip(%s) = %s, want %s", p.FEN(), got, want)
	}
}

// Moves: "A man steps one square diagonally forward to an empty square."
func TestRuleManStepsForwardOnly(t *testing.T) {
	checkLegal(t, []legalCase{
		{"centre", "W:W22:B", []string{"22-18", "22-19"}},
		{"edge", "W:W17:B", []string{"17-13"}},
		{"never backwards", "W:W14:B", []string{"14-10", "14-11"}},
		{"not onto own pieces", "W:W22,18,19:B", []string{"18-13", "18-14", "19-14", "19-15"}},
		{"not onto enemy pieces", "W:W22:B18,19,13,15", nil},
		{"first move", StartFEN, []string{"21-17", "21-18", "22-18", "22-19", "23-19", "23-20", "24-20"}},
	})
}

// Moves: "A king steps one square diagonally in any of the 4 directions.
// Kings are NOT flying."
func TestRuleKingStepsOneSquare(t *testing.T) {
	checkLegal(t, []legalCase{
		{"four directions", "W:WK18:B", []string{"18-13", "18-14", "18-21", "18-22"}},
		{"corner", "W:WK29:B", []string{"29-25", "29-26"}},
		{"not flying on an empty diagonal", "W:WK32:B", []string{"32-28"}},
		{"no capture from a distance", "W:WK29:B22", []string{"29-25", "29-26"}},
		{"blocked by own pieces", "W:WK18,13,14,21:B", []string{"13-9", "13-10", "14-10", "14-11", "18-22", "21-17"}},
	})
}

// Captures: "A man captures forward only, by jumping an adjacent enemy piece
// to the empty square right behind it."
func TestRuleManCapturesForwardOnly(t *testing.T) {
	checkLegal(t, []legalCase{
		{"forward", "W:W22:B18", []string{"22x13"}},
		{"not backwards", "W:W22:B26,27", []string{"22-18", "22-19"}},
		{"forward, not backwards", "W:W22:B18,26", []string{"22x13"}},
		{"landing square must be empty", "W:W22:B18,13", []string{"22-19"}},
		{"not off the board", "W:W21:B17", []string{"21-18"}},
	})
}

// Captures: "A man may never capture a king (not as the first jump, not
// later in a sequence)."
func TestRuleManCannotCaptureKing(t *testing.T) {
	checkLegal(t, []legalCase{
		{"first jump", "W:W22:BK18", []string{"22-19"}},
		{"later jump", "W:W26:B22,K14", []string{"26x19"}},
		{"later jump, control with a man", "W:W26:B22,14", []string{"26x19x10"}},
	})
}

// Captures: "A king captures in all 4 directions, men and kings alike."
func TestRuleKingCapturesMenAndKings(t *testing.T) {
	checkLegal(t, []legalCase{
		{"man forward", "W:WK22:B18", []string{"22x13"}},
		{"king forward", "W:WK22:BK18", []string{"22x13"}},
		{"man backward", "W:WK22:B26", []string{"22x29"}},
		{"king backward", "W:WK22:BK27", []string{"22x31"}},
		{"all four directions", "W:WK18:B13,14,21,22", []string{"18x11", "18x25", "18x27", "18x9"}},
	})
}

// Captures: "After a jump the same piece keeps capturing while it can; the
// whole sequence is one move."
func TestRuleMultiJumpMustBeCompleted(t *testing.T) {
	checkLegal(t, []legalCase{
		{"man", "W:W26:B22,14", []string{"26x19x10"}},
		{"man, three pieces", "W:W31:B27,18,10", []string{"31x22x13x6"}},
		{"king turning", "W:WK22:B18,10", []string{"22x13x6"}},
		{"king, two branches", "W:WK22:B18,10,19,12", []string{"22x13x6", "22x15x8"}},
	})
}

// Captures: "A piece is never jumped twice."
func TestRuleNeverJumpedTwice(t *testing.T) {
	checkLegal(t, []legalCase{
		// Back over 18 to the empty start square would jump it again.
		{"king back over the same piece", "W:WK22:B18", []string{"22x13"}},
	})
	// A king goes round four pieces and is back on its start square; it
	// stops there rather than jumping the first piece again.
	p := mustFEN(t, "W:WK26:B13,14,21,22")
	for _, q := range []Position{p, p.Flip()} {
		ms := q.Legal(nil)
		start := Square(26)
		if q.Side() == Black {
			start = 33 - start
		}
		if len(ms) != 1 || ms[0].NumCaptured() != 4 || ms[0].From() != start || ms[0].To() != start {
			t.Fatalf("Legal(%s) = %v, want one loop capturing 4 from and to %d", q.FEN(), ms, start)
		}
		if got, want := ms[0].Captured(), q.Pieces(q.Side().Opponent()); got != want {
			t.Errorf("Legal(%s): captured %v, want %v", q.FEN(), got.Squares(), want.Squares())
		}
		if got := q.Play(ms[0]); got.Pieces(q.Side().Opponent()) != 0 || got.At(start) == Empty {
			t.Errorf("after %s in %s: %s, want the king on %d and no black pieces", ms[0], q.FEN(), got.FEN(), start)
		}
	}
}

// Captures: "own pieces are never jumped".
func TestRuleOwnPiecesNeverJumped(t *testing.T) {
	checkLegal(t, []legalCase{
		{"man", "W:W22,18:B", []string{"18-13", "18-14", "22-19"}},
		{"king", "W:WK22,18:B", []string{"18-13", "18-14", "22-19", "22-26", "22-27"}},
		{"own piece ends a sequence", "W:W31,13:B27,18", []string{"31x22"}},
	})
}

// Promotion: "A man that reaches the last row (by a step or by a capture)
// becomes a king and the move ends there, even if further jumps would be
// possible."
func TestRulePromotion(t *testing.T) {
	checkLegal(t, []legalCase{
		{"by a step", "W:W5:B", []string{"5-1", "5-2"}},
		{"by a capture", "W:W10:B6", []string{"10x3"}},
		{"capture ends on the last row", "W:W10:B6,7", []string{"10x3"}},
		{"control: a king goes on", "W:WK10:B6,7", []string{"10x3x12"}},
		{"after two jumps", "W:W18:B14,6,7", []string{"18x11x2", "18x11x4"}},
	})
	for _, c := range []struct{ fen, move string }{
		{"W:W5:B", "5-1"},
		{"W:W10:B6,7", "10x3"},
		{"W:W18:B14,6,7", "18x11x2"},
	} {
		for _, black := range []bool{false, true} {
			p := mustFEN(t, c.fen)
			mv := c.move
			if black {
				p, mv = p.Flip(), mirror(mv)
			}
			m, err := ParseMove(p, mv)
			if err != nil {
				t.Fatalf("ParseMove(%s, %s): %v", p.FEN(), mv, err)
			}
			q := p.Play(m)
			if got := q.At(m.To()); !got.IsKing() || got.Color() != p.Side() {
				t.Errorf("after %s in %s: piece on %d is %v, want a %v king", mv, p.FEN(), m.To(), got, p.Side())
			}
		}
	}
}

// Captures: "Capturing is mandatory. When a capture exists, no simple move
// is legal."
func TestRuleCaptureMandatory(t *testing.T) {
	checkLegal(t, []legalCase{
		{"man", "W:W22,31:B18", []string{"22x13"}},
		{"king must capture backwards", "W:WK22,21:B26", []string{"22x29"}},
		{"two men may capture", "W:W22,24,31:B18,20", []string{"22x13", "24x15"}},
	})
}

// Priority key 1: "the most pieces captured (men and kings count the same)".
func TestRulePriorityMostPieces(t *testing.T) {
	checkLegal(t, []legalCase{
		{"men", "W:W22,28:B18,23,15", []string{"28x19x12"}},
		// The known position: the man takes three, the king only two.
		{"before king rather than man", "W:WK21,31:B10,18,27", []string{"31x22x13x6"}},
		{"two men before one king", "W:WK22:BK18,27,28", []string{"22x31x24"}},
	})
}

// Priority key 2: "then, capture with a king rather than with a man".
func TestRulePriorityKingRatherThanMan(t *testing.T) {
	checkLegal(t, []legalCase{
		// 30x21 takes one man like the king's captures; the king must take.
		{"king and man take one man each", "W:WK22,30:B19,26", []string{"22x15", "22x29"}},
	})
}

// Priority key 3: "then, the most kings captured".
func TestRulePriorityMostKings(t *testing.T) {
	checkLegal(t, []legalCase{
		{"one piece", "W:WK22:B18,K26", []string{"22x29"}},
		// Three pieces each: 2x11x18x9 takes man, king, king; 19x10x3x12
		// takes king, man, man and meets a king first, but key 3 comes
		// before key 4. 2x11x18x27 takes only one king.
		{"before king met earliest", "W:WK2,K19:B4,6,7,K13,K14,22,K30", []string{"2x11x18x9"}},
	})
}

// Priority key 4: "then, the sequence that meets a king earliest".
func TestRulePriorityKingEarliest(t *testing.T) {
	checkLegal(t, []legalCase{
		// Both take the man on 19 and the king on 27; 30x23x14 meets the
		// king first.
		{"first piece", "W:WK15,K30:B19,K27", []string{"30x23x14"}},
		// Both take two kings and a man, both start with a king: the second
		// piece decides (king, king, man beats king, man, king).
		{"second piece", "W:WK4,K18:BK7,15,K22,K23,K24", []string{"18x27x20x11"}},
	})
}

// "What is still tied after the four keys is the player's free choice", and
// two sequences with the same start, end and captured set are one move.
func TestRuleTiesAndDuplicates(t *testing.T) {
	checkLegal(t, []legalCase{
		{"free choice", "W:WK18:B13,14,21,22", []string{"18x11", "18x25", "18x27", "18x9"}},
	})
	// The loop round four men can be run both ways: one move.
	p := mustFEN(t, "W:WK26:B13,14,21,22")
	ms := p.Legal(nil)
	if len(ms) != 1 {
		t.Fatalf("Legal(%s) = %v, want one move", p.FEN(), ms)
	}
	for _, s := range []string{"26x17x10x19x26", "26x19x10x17x26"} {
		m, err := ParseMove(p, s)
		if err != nil {
			t.Errorf("ParseMove(%s, %s): %v", p.FEN(), s, err)
			continue
		}
		if m != ms[0] {
			t.Errorf("ParseMove(%s, %s) = %v, want %v", p.FEN(), s, m, ms[0])
		}
	}
}

// The known position of RULES.md: W:WK21,31:B10,18,27 has exactly one move.
func TestKnownPosition(t *testing.T) {
	p := mustFEN(t, "W:WK21,31:B10,18,27")
	ms := p.Legal(nil)
	if len(ms) != 1 || ms[0].String() != "31x22x13x6" {
		t.Fatalf("Legal(%s) = %v, want [31x22x13x6]", p.FEN(), ms)
	}
	m := ms[0]
	if got, want := m.Path(), []Square{31, 22, 13, 6}; !slices.Equal(got, want) {
		t.Errorf("Path = %v, want %v", got, want)
	}
	if got, want := m.CapturedInOrder(), []Square{27, 18, 10}; !slices.Equal(got, want) {
		t.Errorf("CapturedInOrder = %v, want %v", got, want)
	}
	if got, want := m.ShortString(), "31x6"; got != want {
		t.Errorf("ShortString = %q, want %q", got, want)
	}
	if got, want := p.Play(m).FEN(), "B:W6,K21:B"; got != want {
		t.Errorf("after 31x22x13x6: %s, want %s", got, want)
	}
}

// Board and notation: "square 1 is a8 (top left), 4 is g8, 5 is b7, 8 is h7,
// ..., 29 is b1, 32 is h1 (bottom right). White moves towards lower numbers."
func TestRuleBoardNumbering(t *testing.T) {
	for _, c := range []struct {
		s     Square
		coord string
	}{{1, "a8"}, {4, "g8"}, {5, "b7"}, {8, "h7"}, {9, "a6"}, {13, "b5"}, {29, "b1"}, {32, "h1"}} {
		if got := c.s.Coord(); got != c.coord {
			t.Errorf("Square(%d).Coord() = %s, want %s", c.s, got, c.coord)
		}
	}
	// Every square is dark: a1, file 0 rank 0, is light, so file+rank is odd.
	for s := Square(1); s <= NumSquares; s++ {
		if rank := 7 - s.Row(); (s.File()+rank)%2 != 1 {
			t.Errorf("square %d (%s) is a light square", s, s.Coord())
		}
	}
}

// "Start: Black men on 1..12, White men on 21..32, White to move", and the
// PDN FEN form "W:W21,22,K31:B1,2,K10".
func TestRuleStartAndFEN(t *testing.T) {
	p := Start()
	for s := Square(1); s <= NumSquares; s++ {
		want := Empty
		switch {
		case s <= 12:
			want = BlackMan
		case s >= 21:
			want = WhiteMan
		}
		if got := p.At(s); got != want {
			t.Errorf("Start().At(%d) = %v, want %v", s, got, want)
		}
	}
	if p.Side() != White || p.FEN() != "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12" {
		t.Errorf("Start() = %s", p.FEN())
	}
	q := mustFEN(t, "W:W21,22,K31:B1,2,K10")
	for s, want := range map[Square]Piece{21: WhiteMan, 22: WhiteMan, 31: WhiteKing, 1: BlackMan, 2: BlackMan, 10: BlackKing, 11: Empty} {
		if got := q.At(s); got != want {
			t.Errorf("At(%d) = %v, want %v", s, got, want)
		}
	}
}

// A side has at most 12 pieces: FEN (and so PDN's [FEN] tag, perft and
// moves) refuses more, naming the side (issue 13, point 13).
func TestFENPieceCount(t *testing.T) {
	for _, tc := range []struct{ fen, want string }{
		{"W:W20-32:B1-12", "white has 13 pieces"},
		{"B:W21-32:B1-12,14", "black has 13 pieces"},
		{"W:WK1-16:BK17-32", "16 pieces"},
	} {
		_, err := ParseFEN(tc.fen)
		if !errors.Is(err, ErrPosition) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseFEN(%q) error %v, want ErrPosition saying %q", tc.fen, err, tc.want)
		}
	}
	if _, err := ParseFEN("W:W21-32:BK1-12"); err != nil {
		t.Errorf("12 pieces a side refused: %v", err)
	}
	if err := CheckPieces(Start()); err != nil {
		t.Errorf("CheckPieces(start) = %v", err)
	}
}
