package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dama/configs"
	"dama/model"
	"dama/rules"
	"dama/runfolder"
	"dama/selfplay"
)

// sampleRun copies the committed sample run into a temporary folder with
// the generation 0 checkpoint its games name (written again, seeded) in
// accepted/.
func sampleRun(t *testing.T) string {
	t.Helper()
	const sample = "../../runfolder/testdata/run-2026-12-01"
	dir := filepath.Join(t.TempDir(), "run")
	if err := os.CopyFS(dir, os.DirFS(sample)); err != nil {
		t.Fatal(err)
	}
	cfg, err := configs.Load(filepath.Join(dir, runfolder.ConfigFile), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	mc, err := model.Preset(cfg.Model.Preset)
	if err != nil {
		t.Fatal(err)
	}
	ck := &model.Checkpoint{Net: model.NewSeededNetwork(mc, 1)}
	if err := os.MkdirAll(filepath.Join(dir, runfolder.AcceptedDir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := ck.Save(filepath.Join(dir, runfolder.AcceptedDir, runfolder.CandidateName(0))); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestGamesCheck: dama games check passes the committed samples with a
// one-line summary (exit 0), and names the first problem of a chunk with
// a flipped result or of another run's settings (exit 1).
func TestGamesCheck(t *testing.T) {
	code, out, errs := runCmd(t, "games", "check", "../../selfplay/testdata")
	if code != 0 || out != "4 chunks, 15 games, 1085 positions: all pass the trainer's check (format, legality and results)\n" {
		t.Errorf("the committed samples: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	run := sampleRun(t)
	chunk := filepath.Join(run, runfolder.GamesDir, "chunk-main-000000.dgames")
	code, out, errs = runCmd(t, "games", "check", filepath.Join(run, runfolder.GamesDir), "--run", run)
	if code != 0 || !strings.HasPrefix(out, "1 chunks, 4 games") || !strings.Contains(out, "(run "+run+")") {
		t.Errorf("the sample run's chunk with --run: exit %d, stdout %q, stderr %q", code, out, errs)
	}

	h, games, err := selfplay.ReadFile(chunk)
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(t.TempDir(), "chunk-other-000000.dgames")
	h.ConfigDigest = selfplay.Config{SelfPlay: configs.Default().SelfPlay}.Digest()
	if err := selfplay.WriteFile(other, h, games); err != nil {
		t.Fatal(err)
	}
	code, _, errs = runCmd(t, "games", "check", "--run", run, other)
	if code != 1 || !strings.Contains(errs, "chunk chunk-other-000000.dgames: config digest") {
		t.Errorf("another run's settings: exit %d, stderr %q", code, errs)
	}
	// Without --run the header is not checked.
	if code, _, errs = runCmd(t, "games", "check", other); code != 0 {
		t.Errorf("another run's settings without --run: exit %d, stderr %q", code, errs)
	}

	// A chunk of the run copied under a new name is a replay; a search
	// beyond the run's visits is refused (issue 47, points 1 and 4).
	data, err := os.ReadFile(chunk)
	if err != nil {
		t.Fatal(err)
	}
	replay := filepath.Join(run, runfolder.GamesDir, "chunk-copy-000000.dgames")
	if err := os.WriteFile(replay, data, 0o644); err != nil {
		t.Fatal(err)
	}
	// A folder is checked through: each failing chunk's line on stdout,
	// the count as the error.
	code, out, errs = runCmd(t, "games", "check", "--run", run, filepath.Join(run, runfolder.GamesDir))
	if code != 1 || !strings.Contains(out, "chunk chunk-copy-000000.dgames: game 0: has seed") || !strings.Contains(out, "replay") || !strings.Contains(errs, "1 of 2 chunks fail") {
		t.Errorf("a copy of the run's chunk: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if err := os.Remove(replay); err != nil {
		t.Fatal(err)
	}
	hh, huge, err := selfplay.ReadFile(chunk)
	if err != nil {
		t.Fatal(err)
	}
	for i := range huge[0].Plies {
		if p := &huge[0].Plies[i]; p.Full {
			p.Visits[0] = 4294967295
			break
		}
	}
	ckpt, err := os.ReadFile(filepath.Join(run, runfolder.AcceptedDir, runfolder.CandidateName(0)))
	if err != nil {
		t.Fatal(err)
	}
	hh.ModelDigest = selfplay.ModelDigest(ckpt) // as this version writes it
	visits := filepath.Join(t.TempDir(), "chunk-visits-000000.dgames")
	if err := selfplay.WriteFile(visits, hh, huge); err != nil {
		t.Fatal(err)
	}
	code, _, errs = runCmd(t, "games", "check", "--run", run, visits)
	if code != 1 || !strings.Contains(errs, "visits in all for a full search") {
		t.Errorf("4294967295 visits: exit %d, stderr %q", code, errs)
	}

	evil := filepath.Join(t.TempDir(), "chunk-evil-000000.dgames")
	i := -1
	for j, g := range games {
		if w, ok := g.Result.Winner(); ok {
			g.Result, i = rules.WinFor(w.Opponent()), j
			break
		}
	}
	if i < 0 {
		t.Fatal("no won game in the sample")
	}
	if err := selfplay.WriteFile(evil, h, games); err != nil {
		t.Fatal(err)
	}
	code, out, errs = runCmd(t, "games", "check", evil)
	want := "dama games: selfplay: chunk chunk-evil-000000.dgames: game " + string(rune('0'+i)) + ", ply "
	if code != 1 || out != "" || !strings.HasPrefix(errs, want) || !strings.Contains(errs, "records") || strings.Count(errs, "\n") != 1 {
		t.Errorf("a flipped result: exit %d, stdout %q, stderr %q, want one line starting %q", code, out, errs, want)
	}
	// A folder is checked through: each failing chunk named, the good
	// ones counted (issue 47: it stopped at the first bad chunk).
	dir := t.TempDir()
	for _, f := range []string{chunk, evil} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "chunk-junk-000000.dgames"), []byte("not a chunk"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs = runCmd(t, "games", "check", dir)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 1 || len(lines) != 2 || !strings.HasPrefix(lines[0], "chunk-evil-000000.dgames: ") || !strings.HasPrefix(lines[1], "chunk-junk-000000.dgames: ") ||
		!strings.HasPrefix(errs, "dama games: 2 of 3 chunks fail the trainer's check") || !strings.Contains(errs, "the other 1 chunks (4 games") {
		t.Errorf("a folder with two bad chunks: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	for _, args := range [][]string{{"games"}, {"games", "list"}, {"games", "check"}, {"games", "check", evil, evil}, {"games", "check", filepath.Join(run, "nothing")}} {
		if code, _, errs := runCmd(t, args...); code == 0 || errs == "" {
			t.Errorf("%q: exit %d, stderr %q", args, code, errs)
		}
	}
}
