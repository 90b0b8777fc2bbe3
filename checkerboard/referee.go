package checkerboard

import (
	"errors"
	"fmt"

	"dama/rules"
)

// ErrAnswer is wrapped by the errors of Check: an engine's answer that is
// not a legal move, or whose CBmove does not describe it.
var ErrAnswer = errors.New("checkerboard: wrong answer")

// Check is the referee of an engine's answer to getmove in p: it returns
// the legal move of p after which the board is after, and checks that mv
// describes that move as CheckerBoard reads a CBmove: OldPiece leaves
// From; each captured piece DelPiece[i] stands on Del[i] and is jumped
// from the square before (From, then Path[i]) to the next (Path[i+1],
// and To after the last), the captured set being the move's; NewPiece
// lands on To; a step goes one square. Path[0] and Path[Jumps], which
// CheckerBoard does not read, are not checked, nor which of several paths
// joining the same squares over the same pieces the engine names.
func Check(p rules.Position, after Board, mv Move) (rules.Move, error) {
	var found []rules.Move
	for _, m := range p.Legal(nil) {
		if BoardOf(p.Play(m)) == after {
			found = append(found, m)
		}
	}
	if len(found) != 1 {
		return rules.Move{}, fmt.Errorf("%w: in %s the board returned is the position after %d legal moves, want 1", ErrAnswer, p.FEN(), len(found))
	}
	m := found[0]
	fail := func(format string, a ...any) (rules.Move, error) {
		return m, fmt.Errorf("%w: %s in %s: the CBmove %s", ErrAnswer, m, p.FEN(), fmt.Sprintf(format, a...))
	}
	at := func(c Coor) rules.Square { return SquareAt(int(c.X), int(c.Y)) }
	if int(mv.Jumps) != m.NumCaptured() {
		return fail("has %d jumps, the move captures %d", mv.Jumps, m.NumCaptured())
	}
	if at(mv.From) != m.From() || at(mv.To) != m.To() {
		return fail("goes from %v to %v (squares %d, %d)", mv.From, mv.To, at(mv.From), at(mv.To))
	}
	if mv.OldPiece != Value(p.At(m.From())) || mv.NewPiece != Value(p.Play(m).At(m.To())) {
		return fail("moves piece %d and lands %d, want %d and %d", mv.OldPiece, mv.NewPiece, Value(p.At(m.From())), Value(p.Play(m).At(m.To())))
	}
	if mv.Jumps == 0 {
		if dx, dy := mv.To.X-mv.From.X, mv.To.Y-mv.From.Y; dx*dx != 1 || dy*dy != 1 {
			return fail("steps from %v to %v", mv.From, mv.To)
		}
		return m, nil
	}
	var del rules.SquareSet
	for i := range int(mv.Jumps) {
		d := at(mv.Del[i])
		if d == 0 || del.Has(d) {
			return fail("captures on %v (del[%d]): not a square, or twice", mv.Del[i], i)
		}
		del |= 1 << (d - 1)
		if mv.DelPiece[i] != Value(p.At(d)) {
			return fail("says delpiece[%d] = %d on square %d, which holds %d", i, mv.DelPiece[i], d, Value(p.At(d)))
		}
		prev, next := mv.From, mv.To
		if i > 0 {
			prev = mv.Path[i]
		}
		if i < int(mv.Jumps)-1 {
			next = mv.Path[i+1]
		}
		if prev.X+next.X != 2*mv.Del[i].X || prev.Y+next.Y != 2*mv.Del[i].Y || (prev.X-next.X)*(prev.X-next.X) != 4 || (prev.Y-next.Y)*(prev.Y-next.Y) != 4 || at(next) == 0 {
			return fail("jumps from %v to %v, not over del[%d] %v", prev, next, i, mv.Del[i])
		}
	}
	if del != m.Captured() {
		return fail("captures %v, the move %v", del.Squares(), m.Captured().Squares())
	}
	return m, nil
}
