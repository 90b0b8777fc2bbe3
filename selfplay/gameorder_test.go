package selfplay

import (
	"reflect"
	"testing"
)

// Games finishing in any order are written in the order of their indices,
// so a generation's chunks do not depend on timing; games held when the run
// stops are kept, in order (issue 19, item 6: two runs of one config and
// seed wrote games in the order they finished and trained differently).
func TestGameOrder(t *testing.T) {
	const base = 7
	game := func(i int) *Game { return &Game{Seed: GameSeed(base, i)} }
	var got []uint64
	o := newGameOrder(base, 10, 6, func(g *Game) error { got = append(got, g.Seed); return nil })
	for _, i := range []int{12, 10, 13, 11, 15} {
		if err := o.add(game(i)); err != nil {
			t.Fatal(err)
		}
	}
	if len(got) != 4 {
		t.Errorf("%d games written before game 14 finished, want 4 (10..13)", len(got))
	}
	if err := o.flush(); err != nil {
		t.Fatal(err)
	}
	var want []uint64
	for _, i := range []int{10, 11, 12, 13, 15} {
		want = append(want, GameSeed(base, i))
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("games written in the order %v, want %v", got, want)
	}
}
