package suite

import (
	"dama/rules"
	"dama/tb"
)

// tableProof proves wins with the endgame tables at its leaves: an AND-OR
// search, depth plies deep, in which a position the tables hold has their
// exact value at its 40-move counter and a side without a move has lost.
// It proves the wins that end in a table position, however long the
// tables' own win is, where a search that must reach the end of the game
// proves only the short ones. A position that occurs a third time on the
// line is a draw (the line starts a fresh game, as players are scored),
// so no proof leans on a repetition. Searches stop after nodes positions:
// then what is unproven is not a win.
type tableProof struct {
	t     *tb.Tables
	nodes int64
	line  []rules.Position // positions since the last irreversible move
}

// proves reports whether pos (at 40-move counter quiet) is a win or a
// loss (want) for the side to move within depth plies, by iterative
// deepening so that a short proof costs little.
func (tp *tableProof) proves(pos rules.Position, quiet, depth int, nodes int64, want tb.Value) bool {
	tp.nodes = nodes
	d := 0 // a loss is proven at even depths, a win at odd ones
	if want == tb.Win {
		d = 1
	}
	for ; d <= depth; d += 2 {
		tp.line = append(tp.line[:0], pos)
		if tp.prove(pos, quiet, d, want) {
			return true
		}
		if tp.nodes <= 0 {
			return false
		}
	}
	return false
}

// settled returns the value of pos for the side to move where the rules
// or the tables give it (ok false where neither does).
func (tp *tableProof) settled(pos rules.Position, quiet int) (v tb.Value, ok bool) {
	switch {
	case !pos.HasMoves():
		return tb.Loss, true
	case tp.repeated(pos) >= 3 || quiet >= rules.QuietLimit:
		return tb.Draw, true
	case tp.t.Has(pos):
		e, err := tp.t.Probe(pos)
		if err != nil {
			return tb.Draw, false
		}
		return e.Under(quiet), true
	}
	return tb.Draw, false
}

// repeated counts pos on the line.
func (tp *tableProof) repeated(pos rules.Position) int {
	n := 0
	for _, p := range tp.line {
		if p == pos {
			n++
		}
	}
	return n
}

// prove reports whether the side to move at pos, last on the line, has
// the result want (a win or a loss) within depth plies: a win when some
// move leads to a proven loss for the opponent, a loss when every move
// leads to a proven win.
func (tp *tableProof) prove(pos rules.Position, quiet, depth int, want tb.Value) bool {
	if v, ok := tp.settled(pos, quiet); ok {
		return v == want
	}
	if depth <= 0 || tp.nodes <= 0 {
		return false
	}
	tp.nodes--
	some := want == tb.Win // one move decides a win; every move a loss
	for _, m := range pos.Legal(nil) {
		if tp.after(pos, m, quiet, depth, -want) == some {
			return some
		}
	}
	return !some
}

// after plays m at pos and proves want of the position it leads to, with
// the line extended by it (or begun again after an irreversible move).
func (tp *tableProof) after(pos rules.Position, m rules.Move, quiet, depth int, want tb.Value) bool {
	to := pos.Play(m)
	saved := tp.line
	if pos.Reversible(m) {
		tp.line = append(tp.line, to)
	} else {
		tp.line = []rules.Position{to}
	}
	ok := tp.prove(to, rules.QuietAfter(pos, m, quiet), depth-1, want)
	tp.line = saved
	return ok
}
