package checkerboard

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"dama/rules"
)

// The square mapping of CheckerBoard's Italian board, from its formula
// (y = (n-1)/4, x = 2·((n-1)%4) + y%2) worked out by hand for the corners
// and the squares beside them.
func TestCoord(t *testing.T) {
	for _, c := range []struct {
		s    rules.Square
		x, y int
	}{
		{1, 0, 0}, {2, 2, 0}, {4, 6, 0}, {5, 1, 1}, {8, 7, 1}, {9, 0, 2},
		{13, 1, 3}, {18, 2, 4}, {22, 3, 5}, {25, 0, 6}, {28, 6, 6}, {29, 1, 7}, {32, 7, 7},
	} {
		if x, y := Coord(c.s); x != c.x || y != c.y {
			t.Errorf("Coord(%d) = (%d, %d), want (%d, %d)", c.s, x, y, c.x, c.y)
		}
		if s := SquareAt(c.x, c.y); s != c.s {
			t.Errorf("SquareAt(%d, %d) = %d, want %d", c.x, c.y, s, c.s)
		}
	}
	seen := map[[2]int]bool{}
	for s := rules.Square(1); s <= 32; s++ {
		x, y := Coord(s)
		if seen[[2]int{x, y}] {
			t.Errorf("square %d: (%d, %d) taken twice", s, x, y)
		}
		seen[[2]int{x, y}] = true
		if SquareAt(x, y) != s {
			t.Errorf("SquareAt(Coord(%d)) = %d", s, SquareAt(x, y))
		}
		// The board's rows are rules' rows, its columns rules' files.
		if x != s.File() || y != s.Row() {
			t.Errorf("square %d: (%d, %d), rules says file %d row %d", s, x, y, s.File(), s.Row())
		}
	}
	for _, xy := range [][2]int{{1, 0}, {0, 1}, {7, 0}, {0, 7}, {-1, 0}, {8, 8}} {
		if s := SquareAt(xy[0], xy[1]); s != 0 {
			t.Errorf("SquareAt(%d, %d) = %d, want 0 (not played on)", xy[0], xy[1], s)
		}
	}
}

func TestStartBoard(t *testing.T) {
	b := BoardOf(rules.Start())
	// Black men on 1-12 at y 0..2, white men on 21-32 at y 5..7.
	for x := range 8 {
		for y := range 8 {
			want := int32(Free)
			if x%2 == y%2 {
				switch {
				case y <= 2:
					want = Black | Man
				case y >= 5:
					want = White | Man
				}
			}
			if b[x][y] != want {
				t.Errorf("board[%d][%d] = %d, want %d", x, y, b[x][y], want)
			}
		}
	}
	p, err := b.Position(White)
	if err != nil || p != rules.Start() {
		t.Fatalf("Position(White) = %v, %v; want the start", p, err)
	}
	if p, _ := b.Position(Black); p.Side() != rules.Black {
		t.Errorf("Position(Black) has %s to move", p.Side())
	}
}

// randomPositions returns the positions of a few random games.
func randomPositions(r *rand.Rand, games int) []rules.Position {
	var out []rules.Position
	for range games {
		g := rules.NewGame(rules.Start())
		for !g.Outcome().Over() && g.Ply() < 200 {
			out = append(out, g.Position())
			ms := g.Legal(nil)
			g.PlayUnchecked(ms[r.IntN(len(ms))])
		}
	}
	return out
}

func TestBoardRoundTrip(t *testing.T) {
	for _, p := range randomPositions(rand.New(rand.NewPCG(1, 2)), 20) {
		b := BoardOf(p)
		q, err := b.Position(ColorValue(p.Side()))
		if err != nil || q != p {
			t.Fatalf("%s: back as %v, %v", p.FEN(), q, err)
		}
	}
}

func TestBoardErrors(t *testing.T) {
	for _, c := range []struct {
		name  string
		set   func(b *Board)
		color int
		want  string
	}{
		{"value", func(b *Board) { b[3][5] = 3 }, White, "board[3][5] (square 22) = 3"},
		{"colour without kind", func(b *Board) { b[3][5] = White }, White, "square 22"},
		{"light square", func(b *Board) { b[1][0] = White | Man }, White, "board[1][0] = 5 on a square not played on"},
		{"white man on row 0", func(b *Board) { b[2][0] = White | Man }, White, "square 2): a white man on its last row"},
		{"black man on row 7", func(b *Board) { b[3][7] = Black | Man }, White, "square 30): a black man on its last row"},
		{"13 pieces", func(b *Board) { b[0][4] = White | King }, White, "white has 13 pieces"},
		{"color", func(b *Board) {}, 3, "color 3"},
	} {
		b := BoardOf(rules.Start())
		if c.name == "13 pieces" || c.name == "white man on row 0" || c.name == "black man on row 7" {
			b = Board{}
			if c.name == "13 pieces" {
				b = BoardOf(rules.Start())
			}
		}
		c.set(&b)
		_, err := b.Position(c.color)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one with %q", c.name, err, c.want)
		}
		if c.name != "color" && !errors.Is(err, ErrBoard) {
			t.Errorf("%s: %v does not wrap ErrBoard", c.name, err)
		}
	}
}
