package tb

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"

	"dama/rules"
)

// Material is a signature: the men and kings of the side to move (Men,
// Kings) and of its opponent (OppMen, OppKings).
type Material struct {
	Men, Kings, OppMen, OppKings int
}

// Pieces returns the number of pieces on the board.
func (m Material) Pieces() int { return m.Men + m.Kings + m.OppMen + m.OppKings }

// Swap returns the signature with the sides exchanged: the material after
// a move that captures nothing and promotes nothing, seen from the new
// side to move.
func (m Material) Swap() Material {
	return Material{Men: m.OppMen, Kings: m.OppKings, OppMen: m.Men, OppKings: m.Kings}
}

// String is the signature's name: the four counts, e.g. "0201".
func (m Material) String() string {
	return fmt.Sprintf("%d%d%d%d", m.Men, m.Kings, m.OppMen, m.OppKings)
}

// Describe returns the signature for people, e.g. "2 kings v 1 king".
func (m Material) Describe() string {
	side := func(men, kings int) string {
		var s string
		add := func(n int, one, many string) {
			if n == 0 {
				return
			}
			if s != "" {
				s += " "
			}
			if n == 1 {
				s += "1 " + one
			} else {
				s += fmt.Sprintf("%d %s", n, many)
			}
		}
		add(men, "man", "men")
		add(kings, "king", "kings")
		return s
	}
	return side(m.Men, m.Kings) + " v " + side(m.OppMen, m.OppKings)
}

// valid reports whether m is a signature the tables hold: both sides have
// a piece and each side's men fit on their 28 squares.
func (m Material) valid() bool {
	return m.Men >= 0 && m.Kings >= 0 && m.OppMen >= 0 && m.OppKings >= 0 &&
		m.Men+m.Kings > 0 && m.OppMen+m.OppKings > 0 && m.Men <= manSquares && m.OppMen <= manSquares &&
		m.Pieces() <= rules.NumSquares
}

// manSquares is the number of squares a man can stand on.
const manSquares = 28

// Size returns the number of index points of m's table, holes included.
func (m Material) Size() int64 {
	men := m.Men + m.OppMen
	return binom(manSquares, m.OppMen) * binom(manSquares, m.Men) *
		binom(rules.NumSquares-men, m.Kings) * binom(rules.NumSquares-men-m.Kings, m.OppKings)
}

// Signatures returns every signature with 2..n pieces, in an order where
// each one comes after the signatures its captures and promotions reach
// (fewer pieces, or as many with fewer men).
func Signatures(n int) []Material {
	var out []Material
	for p := 2; p <= n; p++ {
		for men := 0; men <= p; men++ {
			for a := 0; a <= men; a++ { // a: the side to move's men
				for k := 0; k <= p-men; k++ { // k: the side to move's kings
					m := Material{Men: a, Kings: k, OppMen: men - a, OppKings: p - men - k}
					if m.valid() {
						out = append(out, m)
					}
				}
			}
		}
	}
	return out
}

// compareMaterial orders signatures as Signatures does: by pieces, then
// men, then the side to move's men, then its kings.
func compareMaterial(a, b Material) int {
	key := func(m Material) []int { return []int{m.Pieces(), m.Men + m.OppMen, m.Men, m.Kings} }
	return slices.Compare(key(a), key(b))
}

var binomTable [33][33]int64

func init() {
	for n := 0; n <= 32; n++ {
		binomTable[n][0] = 1
		for k := 1; k <= n; k++ {
			binomTable[n][k] = binomTable[n-1][k-1] + binomTable[n-1][k]
		}
	}
}

// binom returns n choose k (0 when k > n or k < 0).
func binom(n, k int) int64 {
	if k < 0 || k > n || n < 0 {
		return 0
	}
	return binomTable[n][k]
}

// rankSet returns the colex rank of the set x of slots (bit i is slot i)
// among the sets of its size.
func rankSet(x uint32) int64 {
	var r int64
	for i := 1; x != 0; i++ {
		r += binomTable[bits.TrailingZeros32(x)][i]
		x &= x - 1
	}
	return r
}

// unrankSet returns the set of k slots among n of colex rank r.
func unrankSet(r int64, k, n int) uint32 {
	var x uint32
	for i := k; i >= 1; i-- {
		c := i - 1
		for c+1 < n && binomTable[c+1][i] <= r {
			c++
		}
		r -= binomTable[c][i]
		x |= 1 << c
		n = c
	}
	return x
}

// compress returns the bits of x at the places where free has a one, packed
// to the low end (the ordinal of each square of x among the free squares).
func compress(x, free uint32) uint32 {
	var out uint32
	for y := x; y != 0; y &= y - 1 {
		b := y & -y
		out |= 1 << bits.OnesCount32(free&(b-1))
	}
	return out
}

// expand is the inverse of compress: slot i goes to the i-th one of free.
func expand(x, free uint32) uint32 {
	var out uint32
	for i := 0; free != 0; i++ {
		b := free & -free
		if x&(1<<i) != 0 {
			out |= b
		}
		free &^= b
	}
	return out
}

// sides is a position seen from its side to move: the squares (bit s-1 for
// square s) of its men and kings and of the opponent's, with the side to
// move playing White's direction (towards square 1).
type sides struct {
	men, kings, oppMen, oppKings uint32
}

// sidesOf returns p seen from its side to move: for Black to move, the
// flip (square s becomes 33-s, reversing the bits).
func sidesOf(p rules.Position) sides {
	if p.Side() == rules.White {
		return sides{uint32(p.Men(rules.White)), uint32(p.Kings(rules.White)), uint32(p.Men(rules.Black)), uint32(p.Kings(rules.Black))}
	}
	return sides{bits.Reverse32(uint32(p.Men(rules.Black))), bits.Reverse32(uint32(p.Kings(rules.Black))),
		bits.Reverse32(uint32(p.Men(rules.White))), bits.Reverse32(uint32(p.Kings(rules.White)))}
}

func (s sides) material() Material {
	return Material{bits.OnesCount32(s.men), bits.OnesCount32(s.kings), bits.OnesCount32(s.oppMen), bits.OnesCount32(s.oppKings)}
}

// index returns the index of s in the table of its material m.
func (s sides) index(m Material) int64 {
	const manMask = 1<<manSquares - 1
	men := s.men | s.oppMen
	free := ^men
	freeK := free &^ s.kings
	i := rankSet(s.oppMen & manMask)
	i = i*binom(manSquares, m.Men) + rankSet(s.men>>4)
	i = i*binom(rules.NumSquares-m.Men-m.OppMen, m.Kings) + rankSet(compress(s.kings, free))
	return i*binom(rules.NumSquares-m.Men-m.OppMen-m.Kings, m.OppKings) + rankSet(compress(s.oppKings, freeK))
}

// unindex returns the position of index i of m's table, White to move,
// and false for a hole (men of both sides on one square).
func unindex(m Material, i int64) (rules.Position, bool) {
	s, ok := unindexSides(m, i)
	if !ok {
		return rules.Position{}, false
	}
	return s.position(), true
}

// unindexSides returns the sides of index i of m's table and false for a
// hole.
func unindexSides(m Material, i int64) (sides, bool) {
	nm := rules.NumSquares - m.Men - m.OppMen
	nk := binom(nm-m.Kings, m.OppKings)
	ok := i % nk
	i /= nk
	nwk := binom(nm, m.Kings)
	wk := i % nwk
	i /= nwk
	nwm := binom(manSquares, m.Men)
	wm := i % nwm
	i /= nwm
	var s sides
	s.oppMen = unrankSet(i, m.OppMen, manSquares)
	s.men = unrankSet(wm, m.Men, manSquares) << 4
	if s.men&s.oppMen != 0 {
		return s, false
	}
	free := ^(s.men | s.oppMen)
	s.kings = expand(unrankSet(wk, m.Kings, nm), free)
	s.oppKings = expand(unrankSet(ok, m.OppKings, nm-m.Kings), free&^s.kings)
	return s, true
}

// position returns s as a position with White to move.
func (s sides) position() rules.Position {
	var board [rules.NumSquares]rules.Piece
	put := func(x uint32, pc rules.Piece) {
		for ; x != 0; x &= x - 1 {
			board[bits.TrailingZeros32(x)] = pc
		}
	}
	put(s.men, rules.WhiteMan)
	put(s.kings, rules.WhiteKing)
	put(s.oppMen, rules.BlackMan)
	put(s.oppKings, rules.BlackKing)
	return rules.NewPosition(board, rules.White)
}

// RandomPosition returns a position of material m drawn uniformly from its
// table's index (holes redrawn), with the side of m's first counts to
// move, as White or, flipped, as Black at random.
func RandomPosition(r *rand.Rand, m Material) rules.Position {
	for {
		if p, ok := unindex(m, r.Int64N(m.Size())); ok {
			if r.IntN(2) == 1 {
				p = p.Flip()
			}
			return p
		}
	}
}
