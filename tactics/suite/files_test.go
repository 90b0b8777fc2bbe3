package suite

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// BuildFiles reads the PDN files, writes the suite with a line that counts
// it, and with add keeps the positions already there; AuditFile writes the
// audited suite and says what it found.
func TestBuildFilesAndAuditFile(t *testing.T) {
	const games = "../../arena/tactics/games/shipped64-classic5.pdn"
	out := filepath.Join(t.TempDir(), "suite.json")
	opt := BuildOptions{ProvingDepth: 6, ShallowDepth: 2, ScreenDepth: 6}
	var w bytes.Buffer
	ctx := context.Background()
	if err := BuildFiles(ctx, &w, []string{games}, out, opt, GamesOptions{Parallel: 2, Most: 2}, false); err != nil {
		t.Fatal(err)
	}
	first, err := Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Positions) != 2 || first.ProvingDepth != 6 {
		t.Fatalf("%d positions of depth %d, want 2 of depth 6", len(first.Positions), first.ProvingDepth)
	}
	lines := strings.Split(strings.TrimSpace(w.String()), "\n")
	if !strings.HasPrefix(lines[0], games+": ") || !strings.HasPrefix(lines[len(lines)-1], out+": 2 positions from ") {
		t.Errorf("got %q, want the file's count first and the suite's last", w.String())
	}
	w.Reset()
	if err := BuildFiles(ctx, &w, []string{games}, out, opt, GamesOptions{Parallel: 2, Most: 2}, true); err != nil {
		t.Fatal(err)
	}
	more, err := Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(more.Positions) != 4 || more.Positions[0].FEN != first.Positions[0].FEN || more.Positions[1].FEN != first.Positions[1].FEN {
		t.Errorf("with add: %d positions, want the 2 there first and 2 more", len(more.Positions))
	}
	opt.ProvingDepth = 7
	if err := BuildFiles(ctx, &w, []string{games}, out, opt, GamesOptions{Parallel: 2, Most: 2}, true); err == nil || !strings.HasPrefix(err.Error(), "--append: ") {
		t.Errorf("add to a suite of other depths: got %v, want an --append error", err)
	}

	audited := filepath.Join(t.TempDir(), "audited.json")
	w.Reset()
	if err := AuditFile(ctx, &w, out, audited, 8, 1<<14, nil, 2); err != nil {
		t.Fatal(err)
	}
	s, err := Read(audited)
	if err != nil {
		t.Fatal(err)
	}
	if s.AuditDepth != 8 || len(s.Positions) != 4 || !strings.HasPrefix(w.String(), audited+": ") || !strings.Contains(w.String(), "of 4 positions have another move proven to win at depth 8") {
		t.Errorf("audit depth %d, %d positions, line %q", s.AuditDepth, len(s.Positions), w.String())
	}
	if err := AuditFile(ctx, &w, out, audited, 6, 1<<14, nil, 2); err == nil || !strings.HasPrefix(err.Error(), out+": ") {
		t.Errorf("an audit no deeper than the proving depth: got %v, want an error naming %s", err, out)
	}
}
