package rules

import (
	"math/bits"
	"strings"
)

// maxCaptures is the most pieces one move can capture (all 12 of a side).
const maxCaptures = 12

// MaxMoves bounds the number of legal moves of any position; a slice of this
// capacity handed to Legal is never reallocated.
const MaxMoves = 128

// Move is a legal move: a start and end square, the squares landed on in
// between (for notation), and the set of captured pieces. Two captures with
// the same start, end and captured set lead to the same position; Legal
// returns only one of them.
type Move struct {
	captured uint64             // internal bits of the captured pieces
	from, to uint8              // internal bits
	n        uint8              // pieces captured; 0 for a simple move
	path     [maxCaptures]uint8 // internal bits landed on; path[n-1] == to
}

// From returns the start square.
func (m Move) From() Square { return bitSq[m.from] }

// To returns the end square.
func (m Move) To() Square { return bitSq[m.to] }

// IsCapture reports whether the move captures.
func (m Move) IsCapture() bool { return m.n > 0 }

// NumCaptured returns the number of pieces captured.
func (m Move) NumCaptured() int { return int(m.n) }

// Captured returns the squares of the captured pieces.
func (m Move) Captured() SquareSet { return toSet(m.captured) }

// Path returns every square the piece stands on: the start, each landing
// square of a capture, and the end (for a simple move, start and end).
func (m Move) Path() []Square {
	if m.n == 0 {
		return []Square{bitSq[m.from], bitSq[m.to]}
	}
	out := make([]Square, 0, m.n+1)
	out = append(out, bitSq[m.from])
	for i := 0; i < int(m.n); i++ {
		out = append(out, bitSq[m.path[i]])
	}
	return out
}

// CapturedInOrder returns the captured squares in the order they are jumped.
func (m Move) CapturedInOrder() []Square {
	out := make([]Square, 0, m.n)
	prev := m.from
	for i := 0; i < int(m.n); i++ {
		over := (int(prev) + int(m.path[i])) / 2
		out = append(out, bitSq[over])
		prev = m.path[i]
	}
	return out
}

// String returns the move in full FID notation: "22-18" for a simple move,
// every landing square for a capture ("31x22x13x6").
func (m Move) String() string {
	if m.n == 0 {
		return bitSq[m.from].String() + "-" + bitSq[m.to].String()
	}
	var sb strings.Builder
	sb.WriteString(bitSq[m.from].String())
	for i := 0; i < int(m.n); i++ {
		sb.WriteByte('x')
		sb.WriteString(bitSq[m.path[i]].String())
	}
	return sb.String()
}

// ShortString returns the move with its start and end only ("31x6").
func (m Move) ShortString() string {
	sep := "-"
	if m.n > 0 {
		sep = "x"
	}
	return bitSq[m.from].String() + sep + bitSq[m.to].String()
}

// Legal appends the legal moves of p to dst[:0] and returns it. When a
// capture exists only captures are legal, and among the capture sequences only
// those best by the FID keys, in order: most pieces captured; a king
// capturing rather than a man; most kings captured; a king met earliest.
// It does not allocate when cap(dst) >= MaxMoves.
func (p Position) Legal(dst []Move) []Move {
	dst = dst[:0]
	occ := p.white | p.black
	empty := boardMask &^ occ
	var mine, opp uint64
	if p.side == White {
		mine, opp = p.white, p.black
	} else {
		mine, opp = p.black, p.white
	}
	men := mine &^ p.kings
	kings := mine & p.kings
	oppMen := opp &^ p.kings

	// Pieces that can start a capture.
	var manCap, kingCap uint64
	if p.side == White {
		manCap = ((oppMen<<4)&(empty<<8) | (oppMen<<5)&(empty<<10)) & men
	} else {
		manCap = ((oppMen>>4)&(empty>>8) | (oppMen>>5)&(empty>>10)) & men
	}
	if kings != 0 {
		kingCap = ((opp<<4)&(empty<<8) | (opp<<5)&(empty<<10) |
			(opp>>4)&(empty>>8) | (opp>>5)&(empty>>10)) & kings
	}
	if manCap|kingCap != 0 {
		g := capGen{opp: opp, oppKings: opp & p.kings, white: p.side == White, dst: dst}
		for x := kingCap; x != 0; x &= x - 1 {
			b := uint8(bits.TrailingZeros64(x))
			g.from = b
			g.king = true
			g.empty = empty | 1<<b
			g.king1(b, 0, 0, 0)
		}
		for x := manCap; x != 0; x &= x - 1 {
			b := uint8(bits.TrailingZeros64(x))
			g.from = b
			g.king = false
			g.empty = empty
			g.man(b, 0, 0)
		}
		return g.dst
	}

	if p.side == White {
		dst = appendSteps(dst, (men>>4)&empty, 4)
		dst = appendSteps(dst, (men>>5)&empty, 5)
	} else {
		dst = appendSteps(dst, (men<<4)&empty, -4)
		dst = appendSteps(dst, (men<<5)&empty, -5)
	}
	if kings != 0 {
		dst = appendSteps(dst, (kings>>4)&empty, 4)
		dst = appendSteps(dst, (kings>>5)&empty, 5)
		dst = appendSteps(dst, (kings<<4)&empty, -4)
		dst = appendSteps(dst, (kings<<5)&empty, -5)
	}
	return dst
}

// appendSteps adds a simple move to each square of to, coming from to+delta.
func appendSteps(dst []Move, to uint64, delta int) []Move {
	for ; to != 0; to &= to - 1 {
		t := bits.TrailingZeros64(to)
		dst = append(dst, Move{from: uint8(t + delta), to: uint8(t)})
	}
	return dst
}

// capGen walks capture sequences depth first and keeps the best ones.
type capGen struct {
	opp, oppKings uint64
	empty         uint64 // empty squares; the moving piece's start counts as empty
	white         bool   // White to move (men capture towards lower bits)
	king          bool   // the moving piece is a king
	from          uint8
	best          uint32 // key of the moves in dst; 0 before the first
	dst           []Move
	path          [maxCaptures]uint8
}

// The jump deltas in internal bits: over = b+d, land = b+2d.
var kingDirs = [4]int{-4, -5, 4, 5}

// man continues a man's capture from b, having captured cap (n pieces).
// Men jump forward over men only; reaching the last row ends the move.
func (g *capGen) man(b uint8, cap uint64, n int) {
	found := false
	for i := 0; i < 2; i++ {
		d := 4 + i
		if g.white {
			d = -d
		}
		over, land := int(b)+d, int(b)+2*d
		if over < 0 || land < 0 || land > 63 {
			continue
		}
		ob, lb := uint64(1)<<over, uint64(1)<<land
		if g.opp&^g.oppKings&^cap&ob == 0 || g.empty&lb == 0 {
			continue
		}
		found = true
		g.path[n] = uint8(land)
		if lb&(row0Mask|row7Mask) != 0 {
			g.emit(cap|ob, n+1)
		} else {
			g.man(uint8(land), cap|ob, n+1)
		}
	}
	if !found && n > 0 {
		g.emit(cap, n)
	}
}

// king1 continues a king's capture from b. order has bit 15-i set when the
// i-th captured piece is a king.
func (g *capGen) king1(b uint8, cap uint64, n int, order uint32) {
	found := false
	for _, d := range kingDirs {
		over, land := int(b)+d, int(b)+2*d
		if over < 0 || land < 0 || land > 63 {
			continue
		}
		ob, lb := uint64(1)<<over, uint64(1)<<land
		if g.opp&^cap&ob == 0 || g.empty&lb == 0 {
			continue
		}
		found = true
		g.path[n] = uint8(land)
		o := order
		if g.oppKings&ob != 0 {
			o |= 1 << (15 - n)
		}
		g.king1(uint8(land), cap|ob, n+1, o)
	}
	if !found && n > 0 {
		g.emitKing(cap, n, order)
	}
}

func (g *capGen) emit(cap uint64, n int) {
	g.add(uint32(n)<<24, cap, n)
}

func (g *capGen) emitKing(cap uint64, n int, order uint32) {
	nk := uint32(bits.OnesCount64(cap & g.oppKings))
	g.add(uint32(n)<<24|1<<23|nk<<16|order, cap, n)
}

// add records a complete sequence with priority key. A better key drops
// what was kept; an equal key adds the move unless one with the same start,
// end and captured set is already there.
func (g *capGen) add(key uint32, cap uint64, n int) {
	if key < g.best {
		return
	}
	to := g.path[n-1]
	if key > g.best {
		g.best = key
		g.dst = g.dst[:0]
	} else {
		for i := range g.dst {
			if q := &g.dst[i]; q.from == g.from && q.to == to && q.captured == cap {
				return
			}
		}
	}
	m := Move{captured: cap, from: g.from, to: to, n: uint8(n)}
	copy(m.path[:n], g.path[:n])
	g.dst = append(g.dst, m)
}
