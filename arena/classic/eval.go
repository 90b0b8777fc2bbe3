package classic

import (
	"math/bits"

	"dama/rules"
)

// Weights are the evaluation's terms, in centi-men. The zero value of a
// field is a real zero (a term turned off); DefaultWeights are the tuned
// values.
type Weights struct {
	Man  int // a man
	King int // a king (kings move one square and men cannot take them)

	// AdvanceMid and AdvanceEnd are paid per row a man has advanced, with
	// all pieces on the board and with none; between, they are mixed by the
	// number of pieces (the phase).
	AdvanceMid, AdvanceEnd int
	// BackRank is paid, in the opening (scaled down with the phase), for a
	// man still on its own back row guarding the promotion squares.
	BackRank int
	// CentreMan and CentreKing are paid for a piece on the eight central
	// squares (ranks 3-6, files c-f).
	CentreMan, CentreKing int
	// KingMobility is paid per empty square next to a king.
	KingMobility int
	// Runaway is paid for a man whose way to the last row no opposing
	// piece can bar (no opposing piece in the cone in front of it, no
	// opposing king anywhere), scaled up as it nears the last row: a man k
	// rows from promotion gets Runaway*(8-k)/8.
	Runaway int
	// Trade is the bonus for trading down when ahead: the material lead,
	// scaled by Trade / (pieces on the board).
	Trade int
	// Corner is paid, in an ending of kings only where the weaker side has
	// fewer kings, and at most two, per step the weak kings stand from the
	// centre and per step the strong side's kings stand closer to them: it
	// drives a lone king to the edge to be caught.
	Corner int
}

// DefaultWeights are the weights the engine plays with unless told
// otherwise. The king's 150 and the runaway's 50 were chosen by matches
// against alphabeta:4 and alphabeta:6 (80 games each): a king of 150 scored
// 72% and 69%, against 61-67% and 61-64% for 120, 180 and 220; a runaway
// bonus of 50 scored 75%, against 70% for none and 69% for 150.
var DefaultWeights = Weights{
	Man:          100,
	King:         150,
	AdvanceMid:   2,
	AdvanceEnd:   6,
	BackRank:     8,
	CentreMan:    5,
	CentreKing:   8,
	KingMobility: 3,
	Runaway:      50,
	Trade:        2,
	Corner:       6,
}

// fullPhase is the number of pieces at the start.
const fullPhase = 24

// Board geometry on SquareSet bits (bit s-1 for square s).
var (
	rowOf, fileOf [rules.NumSquares + 1]int
	centreSet     uint32
	backRow       [2]uint32                       // White's row 7 (29..32), Black's row 0 (1..4)
	neighbours    [rules.NumSquares + 1]uint32    // squares one diagonal step away
	cone          [2][rules.NumSquares + 1]uint32 // squares ahead of a man of that colour that could bar it
)

func init() {
	for s := rules.Square(1); s <= rules.NumSquares; s++ {
		rowOf[s], fileOf[s] = s.Row(), s.File()
	}
	for s := rules.Square(1); s <= rules.NumSquares; s++ {
		r, f := rowOf[s], fileOf[s]
		if r >= 2 && r <= 5 && f >= 2 && f <= 5 {
			centreSet |= bit(s)
		}
		if r == 7 {
			backRow[rules.White] |= bit(s)
		}
		if r == 0 {
			backRow[rules.Black] |= bit(s)
		}
		for t := rules.Square(1); t <= rules.NumSquares; t++ {
			dr, df := rowOf[t]-r, abs(fileOf[t]-f)
			if abs(dr) == 1 && df == 1 {
				neighbours[s] |= bit(t)
			}
			// White men move to lower rows, Black men to higher ones.
			if dr < 0 && df <= -dr {
				cone[rules.White][s] |= bit(t)
			}
			if dr > 0 && df <= dr {
				cone[rules.Black][s] |= bit(t)
			}
		}
	}
}

func bit(s rules.Square) uint32 { return 1 << (s - 1) }

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// sides holds the pieces of both colours as SquareSet bits.
type sides struct {
	men, kings [2]uint32
}

func split(p rules.Position) sides {
	return sides{
		men:   [2]uint32{uint32(p.Men(rules.White)), uint32(p.Men(rules.Black))},
		kings: [2]uint32{uint32(p.Kings(rules.White)), uint32(p.Kings(rules.Black))},
	}
}

// Evaluate scores p for the side to move, in centi-men, with weights w.
func (w *Weights) Evaluate(p rules.Position) int {
	b := split(p)
	us := p.Side()
	them := us.Opponent()
	nMen := [2]int{bits.OnesCount32(b.men[0]), bits.OnesCount32(b.men[1])}
	nKings := [2]int{bits.OnesCount32(b.kings[0]), bits.OnesCount32(b.kings[1])}
	pieces := nMen[0] + nMen[1] + nKings[0] + nKings[1]
	phase := min(pieces, fullPhase)

	material := [2]int{
		w.Man*nMen[0] + w.King*nKings[0],
		w.Man*nMen[1] + w.King*nKings[1],
	}
	v := material[us] - material[them]
	v += w.positional(&b, us, phase) - w.positional(&b, them, phase)

	// Trading down when ahead: the same lead counts more with fewer pieces.
	if lead := material[us] - material[them]; lead != 0 && pieces > 0 {
		v += lead * w.Trade / pieces
	}
	return w.endgame(&b, us, nMen, nKings, v)
}

// positional sums the terms other than material for colour c.
func (w *Weights) positional(b *sides, c rules.Color, phase int) int {
	opp := c.Opponent()
	oppAll := b.men[opp] | b.kings[opp]
	empty := ^(b.men[0] | b.men[1] | b.kings[0] | b.kings[1])
	v := 0
	advMul := w.AdvanceMid*phase + w.AdvanceEnd*(fullPhase-phase)
	adv := 0
	for x := b.men[c]; x != 0; x &= x - 1 {
		s := rules.Square(bits.TrailingZeros32(x) + 1)
		togo := rowOf[s] // White promotes on row 0
		if c == rules.Black {
			togo = 7 - rowOf[s]
		}
		adv += 7 - togo
		if b.kings[opp] == 0 && cone[c][s]&oppAll == 0 {
			v += w.Runaway * (8 - togo) / 8
		}
	}
	v += adv * advMul / fullPhase
	v += w.BackRank * bits.OnesCount32(b.men[c]&backRow[c]) * phase / fullPhase
	v += w.CentreMan*bits.OnesCount32(b.men[c]&centreSet) + w.CentreKing*bits.OnesCount32(b.kings[c]&centreSet)
	for x := b.kings[c]; x != 0; x &= x - 1 {
		s := rules.Square(bits.TrailingZeros32(x) + 1)
		v += w.KingMobility * bits.OnesCount32(neighbours[s]&empty)
	}
	return v
}

// endgame applies the known endgame rules to the score v of the side to
// move us.
func (w *Weights) endgame(b *sides, us rules.Color, nMen, nKings [2]int, v int) int {
	them := us.Opponent()
	if nMen[0]+nMen[1] != 0 {
		return v
	}
	// Kings only.
	k, o := nKings[us], nKings[them]
	switch {
	case k == o:
		// Equal kings cannot force anything: one king against one is a
		// dead draw, more against as many nearly so.
		if k == 1 {
			return v / 16
		}
		return v / 4
	case k > o && o <= 2:
		return v + w.corner(b, us, them)
	case o > k && k <= 2:
		return v - w.corner(b, them, us)
	}
	return v
}

// corner rewards strong for the weak kings' distance from the centre and
// for its kings' closeness to them.
func (w *Weights) corner(b *sides, strong, weak rules.Color) int {
	v := 0
	for x := b.kings[weak]; x != 0; x &= x - 1 {
		s := rules.Square(bits.TrailingZeros32(x) + 1)
		r, f := rowOf[s], fileOf[s]
		v += w.Corner * (max(abs(2*r-7), abs(2*f-7)) / 2)
		for y := b.kings[strong]; y != 0; y &= y - 1 {
			t := rules.Square(bits.TrailingZeros32(y) + 1)
			v -= w.Corner * max(abs(rowOf[t]-r), abs(fileOf[t]-f)) / 2
		}
	}
	return v
}
