package checkerboard

import (
	"errors"
	"fmt"

	"dama/rules"
)

// The values of a square of a Board and of CheckerBoard's color
// arguments: a colour OR-ed with a kind; 0 is a free square.
const (
	Free  = 0
	White = 1 // CB_WHITE: the side on squares 21-32 at the start, which moves first
	Black = 2 // CB_BLACK: the side on squares 1-12 at the start
	Man   = 4 // CB_MAN
	King  = 8 // CB_KING
)

// The results getmove returns: the engine's verdict on the game for the
// side that was to move, where it is proven.
const (
	ResultDraw    = 0 // CB_DRAW
	ResultWin     = 1 // CB_WIN
	ResultLoss    = 2 // CB_LOSS
	ResultUnknown = 3 // CB_UNKNOWN
)

// The bits of getmove's info argument.
const (
	InfoResetMoves = 1 // CB_RESET_MOVES: a new game or position began
	InfoExactTime  = 2 // CB_EXACT_TIME: use exactly maxtime
)

// MaxReply is the size of getmove's str and of enginecommand's reply:
// the most bytes of a line, its terminating NUL included.
const MaxReply = 1024

// Board is CheckerBoard's int board[8][8], indexed [x][y]: x the column
// and y the row, 0..7, each square Free or a colour OR-ed with Man or
// King. Its memory layout is that of the C array (int is 32 bits on the
// platforms CheckerBoard's engines run on).
type Board [8][8]int32

// ErrBoard is wrapped by the errors of a board that is not a position.
var ErrBoard = errors.New("checkerboard: bad board")

// Coord returns the (x, y) of FID square s (1..32) on a Board: y = (s-1)/4,
// x = 2·((s-1)%4) + y%2.
func Coord(s rules.Square) (x, y int) {
	y = int(s-1) / 4
	return 2*(int(s-1)%4) + y%2, y
}

// SquareAt returns the FID square at (x, y), or 0 where (x, y) is off the
// board or a square that is not played on.
func SquareAt(x, y int) rules.Square {
	if x < 0 || x > 7 || y < 0 || y > 7 || x%2 != y%2 {
		return 0
	}
	return rules.Square(1 + 4*y + x/2)
}

// pieceValue is the Board value of each rules.Piece.
var pieceValue = [...]int32{
	rules.Empty:     Free,
	rules.WhiteMan:  White | Man,
	rules.WhiteKing: White | King,
	rules.BlackMan:  Black | Man,
	rules.BlackKing: Black | King,
}

// Value returns the Board value of a piece.
func Value(p rules.Piece) int32 { return pieceValue[p] }

// PieceOf returns the piece of a Board value; ok is false for a value
// that is none.
func PieceOf(v int32) (p rules.Piece, ok bool) {
	for i, pv := range pieceValue {
		if pv == v {
			return rules.Piece(i), true
		}
	}
	return rules.Empty, false
}

// ColorOf returns the side of a color argument (White or Black).
func ColorOf(color int) (rules.Color, error) {
	switch color {
	case White:
		return rules.White, nil
	case Black:
		return rules.Black, nil
	}
	return 0, fmt.Errorf("checkerboard: color %d: want %d (white) or %d (black)", color, White, Black)
}

// ColorValue returns the color argument of a side.
func ColorValue(c rules.Color) int {
	if c == rules.White {
		return White
	}
	return Black
}

// Position reads the board with color to move. An error wrapping
// ErrBoard names the first square that is wrong: a value that is no
// piece, a piece on a square not played on, a man on its last row, or
// more than twelve pieces of a side.
func (b *Board) Position(color int) (rules.Position, error) {
	side, err := ColorOf(color)
	if err != nil {
		return rules.Position{}, err
	}
	var sq [rules.NumSquares]rules.Piece
	for x := range 8 {
		for y := range 8 {
			v := b[x][y]
			s := SquareAt(x, y)
			if s == 0 {
				if v != Free {
					return rules.Position{}, fmt.Errorf("%w: board[%d][%d] = %d on a square not played on", ErrBoard, x, y, v)
				}
				continue
			}
			p, ok := PieceOf(v)
			if !ok {
				return rules.Position{}, fmt.Errorf("%w: board[%d][%d] (square %d) = %d: want 0 or a colour (1 white, 2 black) OR-ed with 4 (man) or 8 (king)", ErrBoard, x, y, s, v)
			}
			if p == rules.WhiteMan && s.Row() == 0 || p == rules.BlackMan && s.Row() == 7 {
				return rules.Position{}, fmt.Errorf("%w: board[%d][%d] (square %d): a %s man on its last row", ErrBoard, x, y, s, p.Color())
			}
			sq[s-1] = p
		}
	}
	p := rules.NewPosition(sq, side)
	if err := rules.CheckPieces(p); err != nil {
		return rules.Position{}, fmt.Errorf("%w: %v", ErrBoard, err)
	}
	return p, nil
}

// BoardOf returns the Board of a position (the side to move is not on it).
func BoardOf(p rules.Position) Board {
	var b Board
	for s := rules.Square(1); s <= rules.NumSquares; s++ {
		x, y := Coord(s)
		b[x][y] = Value(p.At(s))
	}
	return b
}
