package evaltest

import (
	"slices"
	"testing"

	"dama/rules"
)

func TestOracle(t *testing.T) {
	for _, c := range WinIn3 {
		p, err := rules.ParseFEN(c.FEN)
		if err != nil {
			t.Fatal(err)
		}
		g := rules.NewGame(p)
		if got := WinningMoves(g, 4); !slices.Equal(got, []string{c.Win}) {
			t.Errorf("%s: winning moves %v, want only %s", c.FEN, got, c.Win)
		}
		if !ForcedWin(g, 3) || ForcedWin(g, 2) {
			t.Errorf("%s: ForcedWin within 3 and 2 plies = %v, %v; want true, false", c.FEN, ForcedWin(g, 3), ForcedWin(g, 2))
		}
		if g.Ply() != 0 {
			t.Errorf("%s: the oracle left the game at ply %d", c.FEN, g.Ply())
		}
	}
	// Black's lone man faces White men that take it whatever it plays.
	p, _ := rules.ParseFEN("B:W31,32,23:B19")
	if g := rules.NewGame(p); !ForcedLoss(g, 4) || ForcedLoss(g, 0) {
		t.Errorf("B:W31,32,23:B19: want a forced loss within 4 plies, and none within 0")
	}
}
