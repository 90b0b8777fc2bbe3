package selfplay

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dama/configs"
	"dama/internal/evaltest"
)

// Settings: the documented defaults without a configuration, a preset's
// section and run.seed with one, the overrides over either, and a bad
// value refused naming its key.
func TestSettings(t *testing.T) {
	def, err := Settings("", 0, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if def.SelfPlay.Parallel != configs.Default().SelfPlay.Parallel || def.Seed != 0 {
		t.Errorf("defaults: parallel %d seed %d, want %d and 0", def.Parallel, def.Seed, configs.Default().SelfPlay.Parallel)
	}
	seed := uint64(7)
	over, err := Settings("", 3, 50, &seed)
	if err != nil {
		t.Fatal(err)
	}
	if over.Parallel != 3 || over.Visits != 50 || over.Seed != 7 {
		t.Errorf("overrides: parallel %d visits %d seed %d, want 3 50 7", over.Parallel, over.Visits, over.Seed)
	}
	preset, err := configs.Load("workstation", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	ws, err := Settings("workstation", 0, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ws.Visits != preset.SelfPlay.Visits || ws.Seed != uint64(preset.Run.Seed) {
		t.Errorf("the preset: visits %d seed %d, want %d %d", ws.Visits, ws.Seed, preset.SelfPlay.Visits, preset.Run.Seed)
	}
	if _, err := Settings("", 0, 1<<30, nil); err == nil || !strings.Contains(err.Error(), "selfplay.visits") {
		t.Errorf("visits out of range: got %v, want an error naming selfplay.visits", err)
	}
	if _, err := Settings(filepath.Join(t.TempDir(), "none.yaml"), 0, 0, nil); err == nil || !strings.HasPrefix(err.Error(), "--config ") {
		t.Errorf("a missing file: got %v, want an error naming --config", err)
	}
}

// WriteFolder writes the games in chunks and sums them up in one line;
// interrupted, it keeps the games played and says so; a game that fails is
// the error.
func TestWriteFolder(t *testing.T) {
	cfg := testConfig(1, func(c *Config) { c.Visits, c.MaxPlies, c.Parallel = 8, 40, 2 })
	dir := t.TempDir()
	var bar bytes.Buffer
	sum, err := WriteFolder(context.Background(), evaltest.Material{}, cfg, FolderOptions{Dir: dir, Worker: "w", PerChunk: 2, Games: 5, Progress: &bar})
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"+FileExt))
	if sum.Written != 5 || sum.Files != 3 || len(files) != 3 || sum.Games != 5 || sum.Interrupted {
		t.Errorf("got %+v and %d files, want 5 games in 3 files", sum, len(files))
	}
	if line := sum.String(); !strings.HasPrefix(line, "selfplay: 5 games in 3 files in "+dir+", ") {
		t.Errorf("summary %q", line)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	sum, err = WriteFolder(ctx, evaltest.Material{}, cfg, FolderOptions{Dir: t.TempDir(), Worker: "w", PerChunk: 2, Games: 5})
	if err != nil || !sum.Interrupted || !strings.HasPrefix(sum.String(), "selfplay (interrupted): ") {
		t.Errorf("cancelled: %v, %q; want an interrupted summary", err, sum.String())
	}
	// The evaluator fails after 2,000 evaluations: more than two games at
	// once can take unfinished (40 plies of at most 8 visits and a root
	// each), so at least one game was played whole before, whatever the
	// scheduling (200 failed under the race detector, both games unfinished).
	failed := t.TempDir()
	_, err = WriteFolder(context.Background(), &failingEval{n: 2000}, cfg, FolderOptions{Dir: failed, Worker: "w", PerChunk: 1, Games: 1000})
	if !errors.Is(err, errEval) {
		t.Errorf("a failing evaluator: got %v, want its error", err)
	}
	if entries, _ := os.ReadDir(failed); len(entries) == 0 {
		t.Error("a failing evaluator: the games played before were not written")
	}
}

// Queries gives a query for every ply of every game of a folder's chunks,
// and none for a folder without chunks.
func TestQueries(t *testing.T) {
	cfg := testConfig(2, func(c *Config) { c.Visits, c.MaxPlies, c.Parallel = 8, 30, 2 })
	dir := t.TempDir()
	sum, err := WriteFolder(context.Background(), evaltest.Material{}, cfg, FolderOptions{Dir: dir, Worker: "w", PerChunk: 2, Games: 3})
	if err != nil {
		t.Fatal(err)
	}
	qs, games, err := Queries(dir)
	if err != nil || games != 3 || len(qs) != sum.Positions {
		t.Errorf("got %d queries of %d games (%v), want %d of 3", len(qs), games, err, sum.Positions)
	}
	if qs, games, err := Queries(t.TempDir()); err != nil || games != 0 || len(qs) != 0 {
		t.Errorf("an empty folder: %d queries, %d games, %v", len(qs), games, err)
	}
}

// AddFlags binds dama selfplay's flags with their defaults, --backend's
// help after the meaning given.
func TestAddFlags(t *testing.T) {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	f := AddFlags(fs, "the backend")
	if f.Chunk != 100 || f.Cache != 1<<16 || f.Games != 0 || f.Worker != "" || !strings.HasPrefix(fs.Lookup("backend").Usage, "the backend (default auto") {
		t.Errorf("defaults %+v, --backend %q", f, fs.Lookup("backend").Usage)
	}
	err := fs.Parse([]string{"--model", "random", "--games", "3", "--out", "d", "--chunk-pdn", "--seed", "5", "--eval-batch", "8", "--worker", "w"})
	if err != nil || f.Model != "random" || f.Games != 3 || f.Out != "d" || !f.ChunkPDN || f.Seed != 5 || f.EvalBatch != 8 || f.Worker != "w" {
		t.Errorf("parsed %+v, %v", f, err)
	}
}

// OpenModel opens --model's network, a run folder's best too, with the
// digest of its checkpoint's bytes; a missing model is an error.
func TestFlagsOpenModel(t *testing.T) {
	const sample = "../model/testdata/sample-v1.ckpt"
	data, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	f := &Flags{Model: sample, Cache: 16}
	ev, digest, err := f.OpenModel(testConfig(0, nil))
	if err != nil {
		t.Fatal(err)
	}
	ev.Close()
	if digest != ModelDigest(data) {
		t.Errorf("digest %s, want the file's %s", digest, ModelDigest(data))
	}
	f.Model = filepath.Join(t.TempDir(), "none.ckpt")
	if _, _, err := f.OpenModel(testConfig(0, nil)); err == nil {
		t.Error("a missing model opened")
	}
}
