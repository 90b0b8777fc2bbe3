package train

import (
	"context"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"

	"dama/model"
	"dama/runfolder"
	"dama/selfplay"
)

// fastWorkerRun is a started run folder whose self-play is quick: a tiny
// network, 4 visits, games of at most 30 plies.
func fastWorkerRun(t *testing.T) *runfolder.Run {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	if err := startRun(t, dir, "selfplay.parallel=2", "selfplay.visits=4", "selfplay.max_plies=30",
		"selfplay.eval_batch=2", "selfplay.eval_workers=1"); err != context.Canceled {
		t.Fatalf("fresh run: %v", err)
	}
	return &runfolder.Run{Dir: dir}
}

// TestWorkerLoadsOncePerModel: a run-folder worker playing chunk after
// chunk loads the best model once (it loaded it for every chunk before),
// and again once the best pointer moves; each chunk names the model that
// played it.
func TestWorkerLoadsOncePerModel(t *testing.T) {
	run := fastWorkerRun(t)
	var log strings.Builder
	if err := Worker(context.Background(), WorkerOptions{Dir: run.Dir, Name: "w1", Games: 3, PerChunk: 1, Seed: 2, Log: &log}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "in all 3 games, 3 chunks, 1 model loads") {
		t.Errorf("3 chunks with one best model: want 1 load; log:\n%s", log.String())
	}

	cfg := loadConfig(t, run.Path(runfolder.ConfigFile))
	mc, err := model.Preset("tiny")
	if err != nil {
		t.Fatal(err)
	}
	next := filepath.Join(runfolder.AcceptedDir, runfolder.CandidateName(1))
	if err := (&model.Checkpoint{Net: model.NewNetwork(mc, rand.New(rand.NewSource(9)))}).Save(run.Path(next)); err != nil {
		t.Fatal(err)
	}
	w, err := runWorker(run, cfg.SelfPlay, "w2")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.Games, w.PerChunk = 4, 1
	played := 0
	w.OnGame = func(selfplay.ModelRef, *selfplay.Game) {
		if played++; played == 2 {
			if err := run.SetBest(next); err != nil {
				t.Error(err)
			}
		}
	}
	if err := w.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st := w.Stats(); st.Loads != 2 || st.Chunks != 4 {
		t.Errorf("4 chunks, a promotion after the second: %+v, want 2 loads", st)
	}
	// Each chunk names its model by the SHA-256 of the checkpoint file
	// (issue 20, point 3: the network's config digest and step named any
	// checkpoint of that shape and step), and passes the trainer's check.
	check := selfplay.RunChecker(cfg.SelfPlay, run.SelfPlayHistory, run.Path(runfolder.AcceptedDir))
	for seq, want := range []string{"0000.ckpt", "0000.ckpt", "0001.ckpt", "0001.ckpt"} {
		h, _, err := check.CheckFile(run.Path(runfolder.GamesDir, selfplay.ChunkName("w2", seq)))
		if err != nil || !strings.HasSuffix(h.Model, want) {
			t.Errorf("chunk %d: model %q, %v; want %s", seq, h.Model, err, want)
		}
		if d := fileDigest(t, run.Path(runfolder.AcceptedDir, want)); h.ModelDigest != d || h.Version != selfplay.FormatVersion {
			t.Errorf("chunk %d: version %d, model digest %q; want version %d, %q", seq, h.Version, h.ModelDigest, selfplay.FormatVersion, d)
		}
	}
}
