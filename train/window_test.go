package train

import (
	"math"
	"os"
	"testing"

	"dama/runfolder"
	"dama/selfplay"
)

// The trainer decodes each chunk once: the scan that counts a new chunk's
// games and positions keeps its samples for the window, which therefore
// fills even once the files are gone; a chunk not scanned by this process
// (an earlier generation's, after a restart) is read from its file
// (issue 11, point 5).
func TestWindowDecodesChunkOnce(t *testing.T) {
	cfg := loadConfig(t, "quick")
	run := tempRun(t)
	sample, err := os.ReadFile("../selfplay/testdata/games-v1.dgames")
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"chunk-a-000000.dgames", "chunk-a-000001.dgames"}
	for _, name := range names {
		if err := runfolder.WriteFileAtomic(run.Path(runfolder.GamesDir, name), sample); err != nil {
			t.Fatal(err)
		}
	}

	l := &loop{cfg: cfg, run: run, counts: map[string]runfolder.ChunkInfo{}, held: selfplay.NewGameIndex()}
	fresh, err := l.unconsumed(nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(fresh) != 2 || fresh[0].Positions == 0 {
		t.Fatalf("scan found %+v, want two chunks with positions", fresh)
	}
	for _, name := range names {
		if err := os.Remove(run.Path(runfolder.GamesDir, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.fillWindow(fresh, math.MaxInt); err != nil {
		t.Fatalf("window reread a scanned chunk: %v", err)
	}
	if got, want := l.win.Len(), 2*fresh[0].Positions; got != want || l.win.Chunks() != 2 {
		t.Errorf("window holds %d samples in %d chunks, want %d in 2", got, l.win.Chunks(), want)
	}
	if len(l.scanned) != 0 {
		t.Errorf("%d scanned chunks kept after the window took them", len(l.scanned))
	}

	// A restarted trainer has scanned nothing: it reads the files.
	for _, name := range names {
		if err := runfolder.WriteFileAtomic(run.Path(runfolder.GamesDir, name), sample); err != nil {
			t.Fatal(err)
		}
	}
	r := &loop{cfg: cfg, run: run, counts: map[string]runfolder.ChunkInfo{}, held: selfplay.NewGameIndex()}
	if err := r.fillWindow(fresh[1:], math.MaxInt); err != nil {
		t.Fatal(err)
	}
	if r.win.Len() != fresh[1].Positions {
		t.Errorf("restarted window holds %d samples, want %d", r.win.Len(), fresh[1].Positions)
	}
}
