package selfplay_test

import (
	"errors"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestSelfPlayLinksNoArena checks with the go tool that self-play, the
// search and the hybrids it runs link neither the arena (matches, the
// ladder, its players) nor the engine (docs/architecture.md): the
// tactics suite, which scores any arena player, is package tactics/suite,
// apart from the hybrids. The reference engine, arena/classic, is allowed:
// the verifying hybrid searches with it, and it imports only rules.
func TestSelfPlayLinksNoArena(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go tool not found:", err)
	}
	deps := func(pkg string) []string {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		if err != nil {
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				t.Fatalf("go list -deps %s: %v: %s", pkg, err, ee.Stderr)
			}
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		all := strings.Fields(string(out))
		if len(all) == 0 || all[len(all)-1] != pkg {
			t.Fatalf("go list -deps %s does not end with the package itself: %q", pkg, all)
		}
		return all
	}
	// forbidden reports whether d is one of the packages self-play must
	// not link: dama/arena itself (not arena/classic), dama/engine and
	// its subpackages, and the suite.
	forbidden := func(d string) bool {
		return d == "dama/arena" || d == "dama/engine" || strings.HasPrefix(d, "dama/engine/") || d == "dama/tactics/suite"
	}
	for _, pkg := range []string{"dama/selfplay", "dama/mcts", "dama/tactics"} {
		for _, d := range deps(pkg) {
			if forbidden(d) {
				t.Errorf("%s depends on %s", pkg, d)
			}
		}
	}
	// The check can fail: the suite does link the arena and the engine.
	suite := deps("dama/tactics/suite")
	for _, want := range []string{"dama/arena", "dama/engine"} {
		if !slices.Contains(suite, want) {
			t.Errorf("go list -deps dama/tactics/suite lists no %s: the check above shows nothing", want)
		}
	}
}
