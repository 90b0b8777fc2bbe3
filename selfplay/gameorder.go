package selfplay

import "slices"

// gameOrder passes the games of a Run on in the order of their indices,
// whatever the order they finish in, so that a Worker's chunks, and so the
// replay window and the training of a run that plays its own games, do
// not depend on timing.
type gameOrder struct {
	index   map[uint64]int // a game's index by its seed
	pending map[int]*Game
	next    int
	write   func(*Game) error
}

// newGameOrder orders the games first..first+games-1 of a run with base
// seed base (GameSeed) for write.
func newGameOrder(base uint64, first, games int, write func(*Game) error) *gameOrder {
	o := &gameOrder{index: make(map[uint64]int, games), pending: map[int]*Game{}, next: first, write: write}
	for i := first; i < first+games; i++ {
		o.index[GameSeed(base, i)] = i
	}
	return o
}

// add takes a finished game and writes the games now next in order.
func (o *gameOrder) add(g *Game) error {
	i, ok := o.index[g.Seed]
	if !ok {
		return o.write(g) // not a game of the run: no place in the order
	}
	o.pending[i] = g
	for {
		g, ok := o.pending[o.next]
		if !ok {
			return nil
		}
		delete(o.pending, o.next)
		o.next++
		if err := o.write(g); err != nil {
			return err
		}
	}
}

// flush writes the games still held (a run stopped before an earlier game
// finished), in index order: every finished game is kept.
func (o *gameOrder) flush() error {
	keys := make([]int, 0, len(o.pending))
	for i := range o.pending {
		keys = append(keys, i)
	}
	slices.Sort(keys)
	for _, i := range keys {
		g := o.pending[i]
		delete(o.pending, i)
		if err := o.write(g); err != nil {
			return err
		}
	}
	return nil
}
