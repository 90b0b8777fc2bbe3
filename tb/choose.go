package tb

import "dama/rules"

// Choose returns the move to play in g's current position when it is in
// the tables: one that keeps the value at the game's 40-move counter (for
// a win one of least distance, so the win comes within the 40-move rule;
// for a draw one that does not lose; for a loss one that resists longest),
// and none that makes a third repetition unless every such move does
// (but in a lost position a third repetition draws, and is chosen).
// Among those it returns prefer when prefer is one (a search's choice),
// else the first. ok is false when the position is not in the tables, the
// game is over, or the tables cannot say.
func (t *Tables) Choose(g *rules.Game, prefer rules.Move) (m rules.Move, v Value, ok bool) {
	p := g.Position()
	if !t.Has(p) || g.Outcome().Over() {
		return rules.Move{}, Draw, false
	}
	v, best, err := t.Best(p, g.QuietPlies())
	if err != nil || len(best) == 0 {
		return rules.Move{}, Draw, false
	}
	// A move that repeats a position a third time draws at once: keep
	// such moves only if nothing else keeps the value.
	fresh := best[:0:0]
	for _, mv := range best {
		c := rules.Follow(nil, g)
		c.PlayUnchecked(mv.Move)
		if c.Repetitions() < 2 {
			fresh = append(fresh, mv)
		}
	}
	if len(fresh) > 0 {
		best = fresh
	}
	if v == Loss {
		// A lost position is saved by a move that repeats a position a
		// third time, which the tables do not see.
		for _, mv := range p.Legal(nil) {
			c := rules.Follow(nil, g)
			c.PlayUnchecked(mv)
			if c.Repetitions() >= 2 {
				return mv, Draw, true
			}
		}
	}
	for _, mv := range best {
		if mv.Move == prefer {
			return prefer, v, true
		}
	}
	return best[0].Move, v, true
}
