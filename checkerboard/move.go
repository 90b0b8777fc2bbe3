package checkerboard

import (
	"fmt"

	"dama/rules"
)

// Coor is CheckerBoard's struct coor: a square's (x, y) on a Board.
type Coor struct{ X, Y int32 }

// MaxPath is the length of a Move's Path, Del and DelPiece.
const MaxPath = 12

// Move is CheckerBoard's struct CBmove, field by field with its memory
// layout (CheckerBoard's int is 32 bits): Jumps pieces captured; OldPiece the piece that leaves From and
// NewPiece the one that lands on To (a king where a man promotes);
// Path[1..Jumps-1] the squares landed on between From and To; Del[i] and
// DelPiece[i], for i < Jumps, the squares of the captured pieces, in the
// order they are jumped, and those pieces.
type Move struct {
	Jumps, NewPiece, OldPiece int32
	From, To                  Coor
	Path                      [MaxPath]Coor
	Del                       [MaxPath]Coor
	DelPiece                  [MaxPath]int32
}

// coor returns the Coor of square s.
func coor(s rules.Square) Coor {
	x, y := Coord(s)
	return Coor{int32(x), int32(y)}
}

// MoveOf describes m, a legal move of p, as a CBmove. Besides what
// CheckerBoard reads, Path[0] is From and Path[Jumps] is To (Path[1] for
// a step; none for a capture of 12), so that the path can be read whole from Path alone.
func MoveOf(p rules.Position, m rules.Move) Move {
	path := m.Path() // from, the landing squares, to
	old := p.At(m.From())
	nw := p.Play(m).At(m.To())
	cm := Move{
		Jumps:    int32(m.NumCaptured()),
		OldPiece: Value(old),
		NewPiece: Value(nw),
		From:     coor(m.From()),
		To:       coor(m.To()),
	}
	for i, s := range path[:min(len(path), MaxPath)] {
		cm.Path[i] = coor(s)
	}
	for i, s := range m.CapturedInOrder() {
		cm.Del[i] = coor(s)
		cm.DelPiece[i] = Value(p.At(s))
	}
	return cm
}

// String writes the move as the squares it names: "22-18", or a capture
// with its landing squares and captured pieces, "31x22x13 (del 27,18)".
func (m Move) String() string {
	sq := func(c Coor) string { return fmt.Sprint(SquareAt(int(c.X), int(c.Y))) }
	if m.Jumps == 0 {
		return sq(m.From) + "-" + sq(m.To)
	}
	s := sq(m.From)
	for i := 1; i < int(m.Jumps) && i < MaxPath; i++ {
		s += "x" + sq(m.Path[i])
	}
	s += "x" + sq(m.To) + " (del"
	for i := 0; i < int(m.Jumps) && i < MaxPath; i++ {
		if i > 0 {
			s += ","
		} else {
			s += " "
		}
		s += sq(m.Del[i])
	}
	return s + ")"
}
