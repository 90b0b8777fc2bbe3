package suite

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// projectSuite is the project's suite, from this package's folder.
const projectSuite = "../../arena/tactics/suite.json"

// TestProjectSuite: the committed suite reads, has at least 100
// positions, each with one best move that wins at least a man and beats
// every other move by a man at the proving depth, the shallow search's
// move another, a source game in a committed PDN file, and an audit of
// its forced wins (Builder.Audit). Without
// -short, the first positions are proven again.
func TestProjectSuite(t *testing.T) {
	s, err := Read(projectSuite)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Positions) < 100 {
		t.Errorf("%d positions, want at least 100", len(s.Positions))
	}
	if s.AuditDepth <= s.ProvingDepth {
		t.Errorf("audit depth %d: the suite's forced wins are not audited above the proving depth %d (dama tactics --audit)", s.AuditDepth, s.ProvingDepth)
	}
	for i, p := range s.Positions {
		if len(p.Best) != 1 || p.Depth != s.ProvingDepth || p.Gain < s.MinGain || p.Score-p.Second < s.MinMargin || p.Shallow == p.Best[0] {
			t.Errorf("position %d: %+v does not meet the suite's rules", i+1, p)
		}
		file, _, ok := strings.Cut(p.Source, " game ")
		if !ok {
			t.Errorf("position %d: source %q names no game", i+1, p.Source)
		} else if _, err := os.Stat(filepath.Join("../..", file)); err != nil {
			t.Errorf("position %d: source %v", i+1, err)
		}
	}
	if testing.Short() {
		return
	}
	b, err := NewBuilder(BuildOptions{ProvingDepth: s.ProvingDepth, ShallowDepth: s.ShallowDepth, ScreenDepth: s.ScreenDepth, MinGain: s.MinGain, MinMargin: s.MinMargin})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range s.Positions[:2] {
		pos, _, err := p.Parsed()
		if err != nil {
			t.Fatal(err)
		}
		got, ok, err := b.Examine(context.Background(), pos, p.Source)
		if err != nil || !ok || got.Best[0] != p.Best[0] || got.Score != p.Score {
			t.Errorf("%s: examined again: %+v, %v, %v; the suite has %+v", p.FEN, got, ok, err, p)
		}
	}
}
