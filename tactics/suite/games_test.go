package suite

import (
	"context"
	"fmt"
	"os"
	"testing"

	"dama/rules"
)

// TestBuilderGames builds from a committed match: the positions found
// come after the base suite's, each FEN once, no more than Most are
// added, Done counts them, a suite of other depths is refused, and a
// cancelled build finds nothing.
func TestBuilderGames(t *testing.T) {
	text, err := os.ReadFile("../../arena/tactics/games/shipped64-classic5.pdn")
	if err != nil {
		t.Fatal(err)
	}
	var games []Game
	for i, g := range rules.ReadPDNGames(string(text)) {
		if g.Err == nil {
			games = append(games, Game{Name: fmt.Sprintf("game %d", i+1), Record: g.Record})
		}
	}
	b, err := NewBuilder(BuildOptions{ProvingDepth: 6, ShallowDepth: 2, ScreenDepth: 6})
	if err != nil {
		t.Fatal(err)
	}
	base := puzzleSuite()
	base.ProvingDepth, base.ShallowDepth, base.ScreenDepth, base.MinGain, base.MinMargin = 6, 2, 6, b.Options().MinGain, b.Options().MinMargin
	if err := b.CanExtend(base, "base"); err != nil {
		t.Fatal(err)
	}
	calls, last := 0, 0
	s, err := b.Games(context.Background(), games, GamesOptions{Base: base, Parallel: 2, Most: 3, Done: func(_ string, found, total int) {
		calls++
		last = total
	}})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(base.Positions); len(s.Positions) != n+3 || s.Positions[0].FEN != base.Positions[0].FEN || s.ProvingDepth != 6 {
		t.Fatalf("%d positions (depth %d), want the %d of the base first and 3 more", len(s.Positions), s.ProvingDepth, n)
	}
	seen := map[string]bool{}
	for _, p := range s.Positions {
		if seen[p.FEN] {
			t.Errorf("%s twice", p.FEN)
		}
		seen[p.FEN] = true
	}
	if calls == 0 || last < len(s.Positions) {
		t.Errorf("Done called %d times, last total %d, for %d positions", calls, last, len(s.Positions))
	}
	other := *base
	other.ProvingDepth = 7
	if err := b.CanExtend(&other, "other"); err == nil {
		t.Error("a suite of proving depth 7 extended by a build of depth 6")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if s, err := b.Games(ctx, games, GamesOptions{}); err != context.Canceled || s != nil {
		t.Errorf("cancelled: %v positions, err %v; want context.Canceled", s, err)
	}
}
