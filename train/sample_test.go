package train

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dama/configs"
	"dama/model"
	"dama/runfolder"
)

// A run folder written before the run folder code moved out of package
// train resumes: the committed sample (one tiny generation, see
// runfolder/testdata; its checkpoints are written here, seeded) goes on
// to generation 2, which consumes none of generation 1's games (issue 11,
// point 4).
func TestSampleRunResumes(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a tiny network for one generation")
	}
	dir, run, cfg := copySampleRun(t, "run.generations=2")
	var log strings.Builder
	if err := Loop(context.Background(), Options{Config: cfg, Dir: dir, SelfPlay: true, Revision: "test", Log: &log}); err != nil {
		t.Fatalf("resuming the sample: %v\n%s", err, log.String())
	}
	if !strings.Contains(log.String(), "resuming "+dir+" at generation 2") || !strings.Contains(log.String(), "gen 2: games") {
		t.Errorf("log:\n%s", log.String())
	}
	rec, err := run.ReadRecord(2)
	if err != nil {
		t.Fatal(err)
	}
	if rec.TotalGames != 4+rec.Games || len(rec.Chunks) == 0 {
		t.Errorf("generation 2 record %+v", rec)
	}
	for _, c := range rec.Chunks {
		if c == "chunk-main-000000.dgames" {
			t.Errorf("generation 2 consumed generation 1's chunk again")
		}
	}
}

// copySampleRun copies the committed sample run (one generation) to a
// temporary folder, writes its checkpoints (seeded) and returns it with its
// archived configuration, sets applied.
func copySampleRun(t *testing.T, sets ...string) (string, *runfolder.Run, *configs.Config) {
	t.Helper()
	const sample = "../runfolder/testdata/run-2026-12-01"
	dir := filepath.Join(t.TempDir(), "run")
	if err := os.CopyFS(dir, os.DirFS(sample)); err != nil {
		t.Fatal(err)
	}
	run, err := runfolder.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg := loadConfig(t, run.Path(runfolder.ConfigFile), sets...)
	mc, err := modelConfig(cfg.Model)
	if err != nil {
		t.Fatal(err)
	}
	for gen, sub := range []string{runfolder.AcceptedDir, runfolder.RejectedDir} {
		ck := &model.Checkpoint{Net: model.NewSeededNetwork(mc, int64(gen+1))}
		if err := ck.Save(run.Path(sub, runfolder.CandidateName(gen))); err != nil {
			t.Fatal(err)
		}
	}
	return dir, run, cfg
}

// Started again after its last generation, a run says it is complete and
// how to extend it, and does no work (issue 19, item 6: it said "resuming
// ... at generation 2" of a one-generation run).
func TestCompleteRunDoesNoWork(t *testing.T) {
	dir, run, cfg := copySampleRun(t, "run.generations=1")
	var log strings.Builder
	if err := Loop(context.Background(), Options{Config: cfg, Dir: dir, SelfPlay: true, Revision: "test", Log: &log}); err != nil {
		t.Fatalf("Loop on a complete run: %v\n%s", err, log.String())
	}
	out := log.String()
	if strings.Contains(out, "resuming") || !strings.Contains(out, "is complete: run.generations = 1 and generation 1 is done") || !strings.Contains(out, "--set run.generations=N") {
		t.Errorf("log of a complete run:\n%s", out)
	}
	if got := run.NextGeneration(); got != 2 {
		t.Errorf("next generation %d after re-running a complete run, want 2 (nothing done)", got)
	}
	games, err := os.ReadDir(run.Path(runfolder.GamesDir))
	if err != nil || len(games) != 1 {
		t.Errorf("games folder holds %d files (%v), want the sample's one chunk", len(games), err)
	}
}
