package selfplay_test

import (
	"slices"
	"strings"
	"testing"

	"dama/internal/deps"
)

// TestSelfPlayLinksNoArena checks with the go tool that self-play, the
// search and the hybrids it runs link neither the arena (matches, the
// ladder, its players) nor the engine (docs/architecture.md): the
// tactics suite, which scores any arena player, is package tactics/suite,
// apart from the hybrids. The reference engine, arena/classic, is allowed:
// the verifying hybrid searches with it, and it imports only rules.
func TestSelfPlayLinksNoArena(t *testing.T) {
	// forbidden reports whether d is one of the packages self-play must
	// not link: dama/arena itself (not arena/classic), dama/engine and
	// its subpackages, and the suite.
	forbidden := func(d string) bool {
		return d == "dama/arena" || d == "dama/engine" || strings.HasPrefix(d, "dama/engine/") || d == "dama/tactics/suite"
	}
	for _, pkg := range []string{"dama/selfplay", "dama/mcts", "dama/tactics"} {
		for _, d := range deps.Of(t, pkg) {
			if forbidden(d) {
				t.Errorf("%s depends on %s", pkg, d)
			}
		}
	}
	// The check can fail: the suite does link the arena and the engine.
	suite := deps.Of(t, "dama/tactics/suite")
	for _, want := range []string{"dama/arena", "dama/engine"} {
		if !slices.Contains(suite, want) {
			t.Errorf("go list -deps dama/tactics/suite lists no %s: the check above shows nothing", want)
		}
	}
}
