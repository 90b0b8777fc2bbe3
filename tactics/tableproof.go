package tactics

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

// wins reports whether the side to move at pos (at 40-move counter quiet)
// wins within depth plies, by iterative deepening so that a short proof
// costs little.
func (tp *tableProof) wins(pos rules.Position, quiet, depth int, nodes int64) bool {
	tp.nodes = nodes
	for d := 1; d <= depth; d += 2 {
		tp.line = append(tp.line[:0], pos)
		if tp.win(pos, quiet, d) {
			return true
		}
		if tp.nodes <= 0 {
			return false
		}
	}
	return false
}

// loses reports whether the side to move at pos loses within depth plies
// whatever it plays.
func (tp *tableProof) loses(pos rules.Position, quiet, depth int, nodes int64) bool {
	tp.nodes = nodes
	for d := 0; d <= depth; d += 2 {
		tp.line = append(tp.line[:0], pos)
		if tp.lose(pos, quiet, d) {
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

// win reports whether the side to move at pos, last on the line, wins
// within depth plies.
func (tp *tableProof) win(pos rules.Position, quiet, depth int) bool {
	if v, ok := tp.settled(pos, quiet); ok {
		return v == tb.Win
	}
	if depth <= 0 || tp.nodes <= 0 {
		return false
	}
	tp.nodes--
	for _, m := range pos.Legal(nil) {
		if tp.after(pos, m, quiet, depth, tp.lose) {
			return true
		}
	}
	return false
}

// lose reports whether the side to move at pos, last on the line, loses
// within depth plies.
func (tp *tableProof) lose(pos rules.Position, quiet, depth int) bool {
	if v, ok := tp.settled(pos, quiet); ok {
		return v == tb.Loss
	}
	if depth <= 0 || tp.nodes <= 0 {
		return false
	}
	tp.nodes--
	for _, m := range pos.Legal(nil) {
		if !tp.after(pos, m, quiet, depth, tp.win) {
			return false
		}
	}
	return true
}

// after plays m at pos and asks next of the position it leads to, with
// the line extended by it (or begun again after an irreversible move).
func (tp *tableProof) after(pos rules.Position, m rules.Move, quiet, depth int, next func(rules.Position, int, int) bool) bool {
	to := pos.Play(m)
	saved := tp.line
	if pos.Reversible(m) {
		tp.line = append(tp.line, to)
	} else {
		tp.line = []rules.Position{to}
	}
	ok := next(to, rules.QuietAfter(pos, m, quiet), depth-1)
	tp.line = saved
	return ok
}
