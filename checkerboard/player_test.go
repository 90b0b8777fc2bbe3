package checkerboard

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParsePlayer(t *testing.T) {
	lib := filepath.Join(t.TempDir(), "libx.so")
	if err := os.WriteFile(lib, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		spec string
		time time.Duration
		err  string
	}{
		{"cb:" + lib, DefaultMoveTime, ""},
		{"cb:" + lib + "@t0.25", 250 * time.Millisecond, ""},
		{"cb:" + lib + "@t100ms", 100 * time.Millisecond, ""},
		{"cb:" + lib + "@tlots", 0, "want t0.25"},
		{"cb:/no/such/lib.so", 0, `no library file "/no/such/lib.so"`},
		{"cb:" + filepath.Dir(lib), 0, "no library file"},
		{lib, 0, "want cb:PATH[@tSECONDS]"},
	} {
		p, err := ParsePlayer(c.spec)
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want %q", c.spec, err, c.err)
			}
		case err != nil:
			t.Errorf("%s: %v", c.spec, err)
		case p.Library != lib || p.MoveTime != c.time || p.Name() != c.spec:
			t.Errorf("%s: %+v", c.spec, p)
		}
	}
}

// A file that is no library: the harness says so and StartHarness fails
// with it, as a player's game start does.
func TestStartHarnessBadLibrary(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("no gcc to build the harness:", err)
	}
	dir := t.TempDir()
	bin, lib := filepath.Join(dir, "harness"), filepath.Join(dir, "libx.so")
	if err := os.WriteFile(lib, []byte("not a library"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := BuildHarness(context.Background(), "gcc", bin, "-ldl", "-lpthread"); err != nil {
		t.Fatal(err)
	}
	if h, err := StartHarness(context.Background(), nil, nil, bin, lib); err == nil {
		h.Close()
		t.Fatal("StartHarness on a file that is no library: no error")
	}
	p := &Player{Library: lib, MoveTime: time.Millisecond, Harness: bin}
	if _, err := p.Start(context.Background(), nil, nil); err == nil || !strings.Contains(err.Error(), "libx.so") {
		t.Errorf("Start: %v, want an error naming the library", err)
	}
}
