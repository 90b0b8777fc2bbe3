package arena

import (
	"fmt"
	"math/rand/v2"

	"dama/rules"
)

// randomOpenings returns n distinct positions reached by playing plies uniformly
// random moves from the start, drawn reproducibly from rng. Only sane
// positions are kept: the game is not over, neither side is more than one
// piece ahead, and both sides have a legal move. It fails when n distinct
// positions cannot be found (few plies, large n).
func randomOpenings(n, plies int, rng *rand.Rand) ([]rules.Position, error) {
	switch {
	case n < 0:
		return nil, fmt.Errorf("arena: openings: n = %d: want n >= 0", n)
	case plies < 0:
		return nil, fmt.Errorf("arena: openings: plies = %d: want plies >= 0", plies)
	case rng == nil && n > 0:
		return nil, fmt.Errorf("arena: openings: nil rng")
	}
	out := make([]rules.Position, 0, n)
	seen := make(map[rules.Position]bool, n)
	buf := make([]rules.Move, 0, rules.MaxMoves)
	attempts := 100*n + 1000
	for try := 0; len(out) < n && try < attempts; try++ {
		g := rules.NewGame(rules.Start())
		ok := true
		for i := 0; i < plies; i++ {
			buf = g.Legal(buf)
			if len(buf) == 0 {
				ok = false
				break
			}
			g.PlayUnchecked(buf[rng.IntN(len(buf))])
		}
		p := g.Position()
		if !ok || seen[p] || !saneOpening(g) {
			continue
		}
		seen[p] = true
		out = append(out, p)
	}
	if len(out) < n {
		return nil, fmt.Errorf("arena: openings: found only %d distinct sane positions after %d random plies, want %d (use more plies)", len(out), plies, n)
	}
	return out, nil
}

// saneOpening reports whether the game is open, material is within one
// piece, and both sides could move.
func saneOpening(g *rules.Game) bool {
	if g.Outcome().Over() {
		return false
	}
	p := g.Position()
	wm, wk := p.Count(rules.White)
	bm, bk := p.Count(rules.Black)
	if d := (wm + wk) - (bm + bk); d > 1 || d < -1 {
		return false
	}
	var board [rules.NumSquares]rules.Piece
	for s := rules.Square(1); s <= rules.NumSquares; s++ {
		board[s-1] = p.At(s)
	}
	return rules.NewPosition(board, p.Side().Opponent()).HasMoves()
}
