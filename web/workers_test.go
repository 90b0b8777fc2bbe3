package web

import (
	"math"
	"os"
	"testing"
	"time"

	"dama/runfolder"
	"dama/selfplay"
)

func TestChunkWorker(t *testing.T) {
	for name, want := range map[string]string{
		"chunk-main-000000.dgames": "main", "chunk-a-b-000012.dgames": "a-b", "chunk-w.1-1234567.dgames": "w.1",
		"chunk-000000.dgames": "", "main-000000.dgames": "", "chunk-main-000000.pdn": "",
	} {
		got, ok := chunkWorker(name)
		if got != want || ok != (want != "") {
			t.Errorf("chunkWorker(%q) = %q, %v; want %q", name, got, ok, want)
		}
	}
}

// Workers are told from the chunk names: games from the plans (consumed
// chunks) or the files (waiting ones), the rate between the first and the
// last chunk's time.
func TestWorkers(t *testing.T) {
	run := testRun(t)
	_, waiting, err := selfplay.ReadFile("../selfplay/testdata/games-v3.dgames")
	if err != nil {
		t.Fatal(err)
	}
	second := run.Path(runfolder.GamesDir, "chunk-w2-000001.dgames")
	copyFile(t, "../selfplay/testdata/games-v3.dgames", second)
	first, err := os.Stat(run.Path(runfolder.GamesDir, "chunk-w2-000000.dgames"))
	if err != nil {
		t.Fatal(err)
	}
	later := first.ModTime().Add(30 * time.Minute)
	if err := os.Chtimes(second, later, later); err != nil {
		t.Fatal(err)
	}
	ws, err := workersOf(run, newGameIndex(run))
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) != 2 || ws[0].Name != "main" || ws[1].Name != "w2" {
		t.Fatalf("workers %+v", ws)
	}
	if m := ws[0]; m.Chunks != 1 || m.Games != 4 || m.Pending != 0 || !math.IsNaN(float64(m.GamesPerHour)) {
		t.Errorf("main %+v: want 1 chunk of 4 games (its plan), no rate", m)
	}
	w := ws[1]
	if w.Chunks != 2 || w.Games != 2*len(waiting) || w.Last != "chunk-w2-000001.dgames" || !w.LastTime.Equal(later) {
		t.Errorf("w2 %+v: want 2 chunks of %d games, the last at %v", w, len(waiting), later)
	}
	// The second chunk's games over the half hour after the first.
	if got, want := float64(w.GamesPerHour), float64(2*len(waiting)); math.Abs(got-want) > 1e-9 {
		t.Errorf("w2 at %v games/h, want %v", got, want)
	}
}
