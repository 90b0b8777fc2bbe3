// Package deps lists what a package of dama links, for the tests that hold
// the layering of docs/architecture.md (self-play links neither the arena
// nor the engine; inference links no Gorgonia). It asks the go tool, so a
// test that uses it skips where the tool is missing.
package deps

import (
	"errors"
	"os/exec"
	"strings"
	"testing"
)

// Of returns the packages pkg links, itself last (go list -deps); it skips
// t where the go tool is missing and fails it where the tool fails.
func Of(t testing.TB, pkg string) []string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go tool not found:", err)
	}
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
