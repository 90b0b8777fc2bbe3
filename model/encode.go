package model

import (
	"fmt"

	"dama/rules"
)

// The input encoding. A position is always encoded from the point of view of
// the side to move: for Black the board is turned by 180 degrees (square s
// becomes 33-s) and the colours are swapped, exactly as rules.Position.Flip
// does, so the network always sees "own" pieces moving up the board
// (towards square 1).
//
// The 32 playable squares are packed into an 8x4 image: square s (in the
// mover's frame) sits at row (s-1)/4 and column (s-1)%4. The input is NHWC
// float32: Rows x Cols x NumPlanes values per position, the planes of one
// square contiguous. Because the board's dark squares shift by one file from
// row to row, the two diagonal neighbours of a square in the row above or
// below sit at columns c-1 and c on even rows and at c and c+1 on odd rows;
// a 3x3 window always covers them, and the parity plane tells the network
// which of the three columns are the diagonal ones.
//
// Plane order (part of the model format; changing it changes FormatVersion):
//
//	0 PlaneOwnMen       1 on squares holding a man of the side to move
//	1 PlaneOwnKings     1 on squares holding a king of the side to move
//	2 PlaneOppMen       1 on squares holding an opponent man
//	3 PlaneOppKings     1 on squares holding an opponent king
//	4 PlaneRepeated1    constant: 1 if the position occurred before (Repetitions >= 1)
//	5 PlaneRepeated2    constant: 1 if it occurred twice before (Repetitions >= 2)
//	6 PlaneQuiet        constant: QuietPlies/80, progress of the 40-move counter
//	7 PlaneEvenRow      1 on even rows (0, 2, 4, 6) of the mover's frame
//	8 PlaneOnes         constant 1 (marks the board inside the zero padding)
const (
	PlaneOwnMen = iota
	PlaneOwnKings
	PlaneOppMen
	PlaneOppKings
	PlaneRepeated1
	PlaneRepeated2
	PlaneQuiet
	PlaneEvenRow
	PlaneOnes
	NumPlanes // number of input planes
)

// Board image and output sizes.
const (
	Rows       = 8                   // image height
	Cols       = 4                   // image width
	Squares    = Rows * Cols         // pixels per plane, one per playable square
	InputSize  = Squares * NumPlanes // float32 values per encoded position
	PolicySize = Squares * Squares   // policy logits: (from, to) pairs in the mover's frame
	ValueSize  = 3                   // value logits: win, draw, loss of the side to move
)

// Encode writes the input planes of pos (with its history counters) into
// dst, which must have length InputSize, in NHWC order. Repetitions is
// clamped to 0..2 and quietPlies to 0..rules.QuietLimit.
func Encode(dst []float32, pos rules.Position, repetitions, quietPlies int) {
	_ = dst[InputSize-1]
	if pos.Side() == rules.Black {
		pos = pos.Flip()
	}
	quietPlies = min(max(quietPlies, 0), rules.QuietLimit)
	var rep1, rep2 float32
	if repetitions >= 1 {
		rep1 = 1
	}
	if repetitions >= 2 {
		rep2 = 1
	}
	quiet := float32(quietPlies) / rules.QuietLimit
	for i := 0; i < Squares; i++ {
		px := dst[i*NumPlanes : (i+1)*NumPlanes : (i+1)*NumPlanes]
		for k := range px {
			px[k] = 0
		}
		switch pos.At(rules.Square(i + 1)) {
		case rules.WhiteMan:
			px[PlaneOwnMen] = 1
		case rules.WhiteKing:
			px[PlaneOwnKings] = 1
		case rules.BlackMan:
			px[PlaneOppMen] = 1
		case rules.BlackKing:
			px[PlaneOppKings] = 1
		}
		px[PlaneRepeated1] = rep1
		px[PlaneRepeated2] = rep2
		px[PlaneQuiet] = quiet
		if (i/Cols)%2 == 0 {
			px[PlaneEvenRow] = 1
		}
		px[PlaneOnes] = 1
	}
}

// The policy. Logit (from-1)*32 + (to-1) stands for the moves from square
// from to square to, both in the mover's frame (for Black, s becomes 33-s).
// A simple move has its own index. Captures with the same start and end but
// different captured sets share one index: the network gives them the same
// prior (the softmax over the legal moves' logits counts the shared logit
// once per move), and in a training target their visit shares add up (see
// PolicyTarget). measureSharing reports how rare this is.

// PolicyIndex returns the policy logit index of move m in position pos.
func PolicyIndex(pos rules.Position, m rules.Move) int {
	from, to := int(m.From()), int(m.To())
	if pos.Side() == rules.Black {
		from, to = rules.NumSquares+1-from, rules.NumSquares+1-to
	}
	return (from-1)*Squares + (to - 1)
}

// PolicyTarget writes the 1024-entry training target for the legal moves of
// pos and their target probabilities into dst (length PolicySize): moves
// that share an index add up. It also fills mask (length PolicySize, may be
// nil) with 0 at legal indices and illegal elsewhere.
func PolicyTarget(dst, mask []float32, pos rules.Position, legal []rules.Move, probs []float32, illegal float32) error {
	if len(probs) != len(legal) {
		return fmt.Errorf("model: %d policy targets for %d legal moves", len(probs), len(legal))
	}
	_ = dst[PolicySize-1]
	for i := range dst[:PolicySize] {
		dst[i] = 0
	}
	if mask != nil {
		_ = mask[PolicySize-1]
		for i := range mask[:PolicySize] {
			mask[i] = illegal
		}
	}
	for i, m := range legal {
		k := PolicyIndex(pos, m)
		dst[k] += probs[i]
		if mask != nil {
			mask[k] = 0
		}
	}
	return nil
}
