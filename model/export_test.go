package model

import "dama/rules"

// DecodePayload gives the external tests the payload parser, which the
// checksum would otherwise shield from almost every input.
var DecodePayload = decodePayload

// IndexSquares and MeasureSharing give the external tests the policy
// index's inverse and its sharing measure.
var (
	IndexSquares   = indexSquares
	MeasureSharing = measureSharing
)

// indexSquares returns the start and end squares, in the real board's
// numbering, of the moves of pos with policy index idx.
func indexSquares(pos rules.Position, idx int) (from, to rules.Square) {
	f, t := idx/Squares+1, idx%Squares+1
	if pos.Side() == rules.Black {
		f, t = rules.NumSquares+1-f, rules.NumSquares+1-t
	}
	return rules.Square(f), rules.Square(t)
}

// sharingStats counts policy index sharing over a set of positions.
type sharingStats struct {
	Positions       int // positions examined
	Moves           int // legal moves examined
	SharedPositions int // positions where at least two legal moves share an index
	SharedMoves     int // legal moves that share their index with another
}

// PositionShare returns the fraction of positions with a shared index.
func (s sharingStats) PositionShare() float64 { return frac(s.SharedPositions, s.Positions) }

// MoveShare returns the fraction of legal moves that share their index.
func (s sharingStats) MoveShare() float64 { return frac(s.SharedMoves, s.Moves) }

func frac(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// measureSharing counts how often legal moves of the given positions share
// a policy index.
func measureSharing(positions []rules.Position) sharingStats {
	var st sharingStats
	moves := make([]rules.Move, 0, rules.MaxMoves)
	count := make(map[int]int, rules.MaxMoves)
	for _, p := range positions {
		moves = p.Legal(moves)
		clear(count)
		for _, m := range moves {
			count[PolicyIndex(p, m)]++
		}
		shared := 0
		for _, n := range count {
			if n > 1 {
				shared += n
			}
		}
		st.Positions++
		st.Moves += len(moves)
		st.SharedMoves += shared
		if shared > 0 {
			st.SharedPositions++
		}
	}
	return st
}
