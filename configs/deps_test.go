package configs

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImportsNoDama: configs is the bottom layer (docs/architecture.md):
// it imports no package of dama, so that its users do not link the search
// and the engines with it. A key in another package's syntax is checked
// there (selfplay.hybrids: selfplay.ValidateSettings).
func TestImportsNoDama(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go tool not found:", err)
	}
	out, err := exec.Command("go", "list", "-f", `{{join .Imports " "}}`, "dama/configs").Output()
	if err != nil {
		t.Fatalf("go list dama/configs: %v", err)
	}
	imports := strings.Fields(string(out))
	if len(imports) == 0 {
		t.Fatal("go list lists no import of dama/configs")
	}
	for _, p := range imports {
		if p == "dama" || strings.HasPrefix(p, "dama/") {
			t.Errorf("configs imports %s", p)
		}
	}
}
