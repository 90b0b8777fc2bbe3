package player

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dama/checkerboard"
)

// TestCheckerBoardSpec: "cb:PATH.so[@tS]" is a player of matches, a
// CheckerBoard library driven by package checkerboard.
func TestCheckerBoardSpec(t *testing.T) {
	lib := filepath.Join(t.TempDir(), "libengine.so")
	if err := os.WriteFile(lib, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Parse("cb:"+lib+"@t0.2", Env{})
	if err != nil {
		t.Fatal(err)
	}
	if s.IsNetwork() || s.IsHub() || s.String() != "cb:"+lib+"@t0.2" {
		t.Errorf("spec %+v", s)
	}
	p, err := s.Player(Env{})
	if err != nil {
		t.Fatal(err)
	}
	cb, ok := p.(*checkerboard.Player)
	if !ok || cb.Library != lib || cb.MoveTime.Seconds() != 0.2 {
		t.Errorf("player %#v", p)
	}
	if _, err := Parse("cb:/no/such/lib.so", Env{}); err == nil || !strings.Contains(err.Error(), "no library file") {
		t.Errorf("a missing library: %v", err)
	}
}
