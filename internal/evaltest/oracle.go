package evaltest

import (
	"testing"

	"dama/rules"
)

// Position parses fen (rules.ParseFEN) for a test, failing it on an
// error.
func Position(t testing.TB, fen string) rules.Position {
	t.Helper()
	p, err := rules.ParseFEN(fen)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// ForcedWin reports whether the side to move in g can force a win (the
// opponent left without a move) within plies, by plain minimax over the
// rules: an oracle independent of every searcher. g is left as it was.
func ForcedWin(g *rules.Game, plies int) bool {
	return plies > 0 && anyMove(g, func(o rules.Outcome) bool {
		return o.Reason == rules.NoMoves || (!o.Over() && ForcedLoss(g, plies-1))
	})
}

// ForcedLoss reports whether the side to move in g loses within plies
// whatever it plays. g is left as it was.
func ForcedLoss(g *rules.Game, plies int) bool {
	return plies > 0 && !anyMove(g, func(o rules.Outcome) bool {
		return o.Over() || !ForcedWin(g, plies-1) // a move that escapes
	})
}

// anyMove reports whether some legal move of g satisfies f, called with
// the move played and the outcome after it; g is left as it was.
func anyMove(g *rules.Game, f func(rules.Outcome) bool) bool {
	for _, m := range g.Legal(nil) {
		g.PlayUnchecked(m)
		ok := f(g.Outcome())
		g.Undo()
		if ok {
			return true
		}
	}
	return false
}

// WinningMoves returns the moves of the side to move in g after which the
// opponent loses within plies, in generation order. g is left as it was.
func WinningMoves(g *rules.Game, plies int) []string {
	var winners []string
	for _, m := range g.Legal(nil) {
		g.PlayUnchecked(m)
		if ForcedLoss(g, plies) {
			winners = append(winners, m.String())
		}
		g.Undo()
	}
	return winners
}

// WinIn3 are puzzles for searchers: White gives a man, Black must take
// it, and White's reply takes every Black piece, a win in 3 plies by one
// move only (Win; WinningMoves(g, 4) confirms it is the only one).
var WinIn3 = []struct{ FEN, Win string }{
	{"W:W18,20,28:B10,16", "28-23"},
	{"W:W13,14,22:B6,9", "22-18"},
	{"W:W12,14,19:B6,8", "19-15"},
}
