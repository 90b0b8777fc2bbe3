package rules

import (
	"math/bits"
	"strconv"
)

// Color is a side: White or Black.
type Color uint8

// The two sides. White moves first and towards lower square numbers.
const (
	White Color = 0
	Black Color = 1
)

// Opponent returns the other side.
func (c Color) Opponent() Color { return c ^ 1 }

// String returns "white" or "black".
func (c Color) String() string {
	if c == White {
		return "white"
	}
	return "black"
}

// Piece is the content of a square.
type Piece uint8

// The contents of a square.
const (
	Empty Piece = iota
	WhiteMan
	WhiteKing
	BlackMan
	BlackKing
)

// Color returns the owner of a non-empty piece.
func (p Piece) Color() Color {
	if p >= BlackMan {
		return Black
	}
	return White
}

// IsKing reports whether the piece is a king.
func (p Piece) IsKing() bool { return p == WhiteKing || p == BlackKing }

// Square is a playable square in FID numbering, 1..32. The zero Square is
// not a square; it is used for "none".
type Square uint8

// NumSquares is the number of playable squares.
const NumSquares = 32

// Valid reports whether s is one of the 32 playable squares.
func (s Square) Valid() bool { return s >= 1 && s <= NumSquares }

// Row returns the board row of s, 0 for Black's back row (squares 1..4) to 7
// for White's back row (squares 29..32).
func (s Square) Row() int { return int(s-1) / 4 }

// File returns the column of s on the 8x8 board, 0 (a) to 7 (h).
func (s Square) File() int {
	r := s.Row()
	return 2*(int(s-1)%4) + (r & 1)
}

// Coord returns the algebraic name of s seen from White, e.g. "a8" for 1.
func (s Square) Coord() string {
	return string([]byte{byte('a' + s.File()), byte('8' - s.Row())})
}

// String returns the FID number of the square.
func (s Square) String() string { return strconv.Itoa(int(s)) }

// SquareSet is a set of squares: bit s-1 stands for square s.
type SquareSet uint32

// Has reports whether s is in the set.
func (ss SquareSet) Has(s Square) bool { return s.Valid() && ss&(1<<(s-1)) != 0 }

// Len returns the number of squares in the set.
func (ss SquareSet) Len() int { return bits.OnesCount32(uint32(ss)) }

// Squares returns the squares of the set in increasing order.
func (ss SquareSet) Squares() []Square {
	out := make([]Square, 0, ss.Len())
	for x := uint32(ss); x != 0; x &= x - 1 {
		out = append(out, Square(bits.TrailingZeros32(x)+1))
	}
	return out
}

// The internal layout: square index i = s-1 at row r = i/4, file f, sits at
// bit (9r+f)/2 of a uint64. Bits 4, 13, 22 and 31 are "ghost" squares that
// are never occupied, so steps are shifts by 4 or 5 and jumps by 8 or 10,
// and a step off the board lands on a ghost or outside the 36 bits.
const (
	boardMask uint64 = 0xF_7FBF_DFEF // the 32 playable bits
	row0Mask  uint64 = 0xF           // squares 1..4, where White promotes
	row7Mask  uint64 = 0xF << 32     // squares 29..32, where Black promotes
)

var (
	sqBit   [NumSquares + 1]uint8 // FID square -> bit
	bitSq   [64]Square            // bit -> FID square (0 for ghosts)
	zobrist [5][64]uint64         // [piece][bit]
	zSide   uint64                // xored in when Black is to move
)

func init() {
	for s := Square(1); s <= NumSquares; s++ {
		b := (9*s.Row() + s.File()) / 2
		sqBit[s] = uint8(b)
		bitSq[b] = s
	}
	var m uint64
	for s := Square(1); s <= NumSquares; s++ {
		m |= 1 << sqBit[s]
	}
	if m != boardMask {
		panic("rules: board mask does not match the layout")
	}
	// splitmix64 with a fixed seed: hashes are the same in every run.
	x := uint64(0x9E3779B97F4A7C15)
	next := func() uint64 {
		x += 0x9E3779B97F4A7C15
		z := x
		z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
		z = (z ^ (z >> 27)) * 0x94D049BB133111EB
		return z ^ (z >> 31)
	}
	for p := WhiteMan; p <= BlackKing; p++ {
		for b := 0; b < 36; b++ {
			zobrist[p][b] = next()
		}
	}
	zSide = next()
}

// toSet converts internal bits to a SquareSet.
func toSet(x uint64) SquareSet {
	return SquareSet(x&0xF | (x>>1)&0xFF0 | (x>>2)&0xFF000 | (x>>3)&0xFF00000 | (x>>4)&0xF0000000)
}

// Position is a board and the side to move. It is a small comparable value:
// two positions are == exactly when they have the same pieces on the same
// squares and the same side to move. The zero Position is an empty board
// with White to move.
type Position struct {
	white, black, kings uint64
	hash                uint64
	side                Color
}

// Start returns the initial position: Black men on 1..12, White men on
// 21..32, White to move.
func Start() Position {
	var p Position
	for s := Square(1); s <= 12; s++ {
		p.put(s, BlackMan)
	}
	for s := Square(21); s <= 32; s++ {
		p.put(s, WhiteMan)
	}
	return p
}

// NewPosition builds a position from a piece on each square (index 0 is
// square 1) and the side to move.
func NewPosition(board [NumSquares]Piece, side Color) Position {
	var p Position
	for i, pc := range board {
		if pc != Empty {
			p.put(Square(i+1), pc)
		}
	}
	if side == Black {
		p.side = Black
		p.hash ^= zSide
	}
	return p
}

// put places pc on the empty square s, keeping the hash.
func (p *Position) put(s Square, pc Piece) {
	b := uint64(1) << sqBit[s]
	switch pc {
	case WhiteMan:
		p.white |= b
	case WhiteKing:
		p.white |= b
		p.kings |= b
	case BlackMan:
		p.black |= b
	case BlackKing:
		p.black |= b
		p.kings |= b
	}
	p.hash ^= zobrist[pc][sqBit[s]]
}

// Side returns the side to move.
func (p Position) Side() Color { return p.side }

// Hash returns the Zobrist hash of the position, kept incrementally by Play.
func (p Position) Hash() uint64 { return p.hash }

// At returns the piece on square s (Empty for an invalid square).
func (p Position) At(s Square) Piece {
	if !s.Valid() {
		return Empty
	}
	b := uint64(1) << sqBit[s]
	switch {
	case p.white&b != 0 && p.kings&b != 0:
		return WhiteKing
	case p.white&b != 0:
		return WhiteMan
	case p.black&b != 0 && p.kings&b != 0:
		return BlackKing
	case p.black&b != 0:
		return BlackMan
	}
	return Empty
}

func (p Position) side64(c Color) uint64 {
	if c == White {
		return p.white
	}
	return p.black
}

// Men returns the squares of c's men.
func (p Position) Men(c Color) SquareSet { return toSet(p.side64(c) &^ p.kings) }

// Kings returns the squares of c's kings.
func (p Position) Kings(c Color) SquareSet { return toSet(p.side64(c) & p.kings) }

// Pieces returns the squares of all of c's pieces.
func (p Position) Pieces(c Color) SquareSet { return toSet(p.side64(c)) }

// Count returns the number of c's men and kings.
func (p Position) Count(c Color) (men, kings int) {
	x := p.side64(c)
	return bits.OnesCount64(x &^ p.kings), bits.OnesCount64(x & p.kings)
}

// ComputeHash recomputes the Zobrist hash from scratch. It equals Hash for
// every position reached through this package's API.
func (p Position) ComputeHash() uint64 {
	var h uint64
	for s := Square(1); s <= NumSquares; s++ {
		if pc := p.At(s); pc != Empty {
			h ^= zobrist[pc][sqBit[s]]
		}
	}
	if p.side == Black {
		h ^= zSide
	}
	return h
}

// Flip returns the position seen from the other side: the board turned by
// 180 degrees (square s becomes 33-s), colours swapped, and the other side to
// move. A position and its flip have the same legal moves, mirrored.
func (p Position) Flip() Position {
	var board [NumSquares]Piece
	for s := Square(1); s <= NumSquares; s++ {
		pc := p.At(s)
		switch pc {
		case WhiteMan:
			pc = BlackMan
		case WhiteKing:
			pc = BlackKing
		case BlackMan:
			pc = WhiteMan
		case BlackKing:
			pc = WhiteKing
		}
		board[NumSquares-s] = pc
	}
	return NewPosition(board, p.side.Opponent())
}

// Play returns the position after m, which must be legal in p.
func (p Position) Play(m Move) Position {
	from := uint64(1) << m.from
	to := uint64(1) << m.to
	q := p
	var mine, theirs *uint64
	var man, king Piece
	var oppMan, oppKing Piece
	if p.side == White {
		mine, theirs = &q.white, &q.black
		man, king, oppMan, oppKing = WhiteMan, WhiteKing, BlackMan, BlackKing
	} else {
		mine, theirs = &q.black, &q.white
		man, king, oppMan, oppKing = BlackMan, BlackKing, WhiteMan, WhiteKing
	}
	// from == to when a king's capture loop ends where it started.
	*mine = *mine&^from | to
	if p.kings&from != 0 {
		q.kings = q.kings&^from | to
		q.hash ^= zobrist[king][m.from] ^ zobrist[king][m.to]
	} else if to&(row0Mask|row7Mask) != 0 {
		// A man moves only forward, so reaching a back row is promotion.
		q.kings |= to
		q.hash ^= zobrist[man][m.from] ^ zobrist[king][m.to]
	} else {
		q.hash ^= zobrist[man][m.from] ^ zobrist[man][m.to]
	}
	if c := m.captured; c != 0 {
		*theirs &^= c
		for x := c &^ p.kings; x != 0; x &= x - 1 {
			q.hash ^= zobrist[oppMan][bits.TrailingZeros64(x)]
		}
		for x := c & p.kings; x != 0; x &= x - 1 {
			q.hash ^= zobrist[oppKing][bits.TrailingZeros64(x)]
		}
		q.kings &^= c
	}
	q.side ^= 1
	q.hash ^= zSide
	return q
}
