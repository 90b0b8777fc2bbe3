package infer_test

import (
	"slices"
	"strings"
	"testing"

	"dama/internal/deps"
)

// TestNoGorgonia checks the layering of the model packages with the go
// tool: the network description, inference and the engine link no
// Gorgonia, and the imports run one way only (model <- infer <- learn).
func TestNoGorgonia(t *testing.T) {
	for _, c := range []struct {
		pkg       string
		forbidden []string // import path prefixes that must not be among its dependencies
	}{
		{"dama/model", []string{"gorgonia.org", "dama/model/infer", "dama/model/learn"}},
		{"dama/model/infer", []string{"gorgonia.org", "dama/model/learn"}},
		{"dama/engine", []string{"gorgonia.org", "dama/model/learn"}},
		{"dama/web", []string{"gorgonia.org", "dama/model/learn", "dama/train", "github.com/chromedp"}}, // the web view reads, it does not train; chromedp is for its tests only
	} {
		all := deps.Of(t, c.pkg)
		if len(all) == 0 || all[len(all)-1] != c.pkg {
			t.Fatalf("go list -deps %s does not end with the package itself: %q", c.pkg, all)
		}
		for _, d := range all {
			for _, f := range c.forbidden {
				if d == f || strings.HasPrefix(d, f+"/") {
					t.Errorf("%s depends on %s", c.pkg, d)
				}
			}
		}
	}
	// The check can fail: training does link Gorgonia.
	if !slices.ContainsFunc(deps.Of(t, "dama/model/learn"), func(d string) bool { return strings.HasPrefix(d, "gorgonia.org/") }) {
		t.Error("go list -deps dama/model/learn lists no gorgonia.org package")
	}
}
