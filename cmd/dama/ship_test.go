package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dama/checkpoints/card"
	"dama/model"
	"dama/player"
)

// shipTestRun returns a run folder to ship from without training: the
// committed sample run (one generation record) with a tiny network as its
// initial and best model, accepted/0000.ckpt, and another as generation
// 1's rejected candidate (shipTestCandidate), the one to ship.
func shipTestRun(t *testing.T) string {
	t.Helper()
	run := filepath.Join(t.TempDir(), "run")
	if err := os.CopyFS(run, os.DirFS("../../runfolder/testdata/run-2026-12-01")); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(tinyCheckpoint(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(run, "accepted"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(run, "accepted", "0000.ckpt"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := model.Preset("tiny")
	if err != nil {
		t.Fatal(err)
	}
	cand := shipTestCandidate(run)
	if err := os.MkdirAll(filepath.Dir(cand), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := (&model.Checkpoint{Net: model.NewSeededNetwork(cfg, 3), Step: 43}).Save(cand); err != nil {
		t.Fatal(err)
	}
	return run
}

// shipTestCandidate is the candidate of generation 1 of a shipTestRun.
func shipTestCandidate(run string) string { return filepath.Join(run, "rejected", "0001.ckpt") }

// shipArgs are the flags of a quick dama ship: no ladder, no match.
func shipArgs(run, out string, extra ...string) []string {
	return append([]string{"ship", "--run", run, "--out", out, "--ladder-games", "0", "--revision", "test"}, extra...)
}

// A bad --backend fails before any work, naming the valid backends (issue
// 20, item 6: ship without a ladder or match shipped anyway, selfplay with
// --model random played its games).
func TestBackendCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	run := shipTestRun(t)
	for _, args := range [][]string{
		shipArgs(run, filepath.Join(dir, "shipped"), "--backend", "bogus"),
		shipArgs(run, filepath.Join(dir, "shipped"), "--backend", "bogus", "--match", "random", "--match-games", "2"),
		{"selfplay", "--model", "random", "--games", "1", "--out", filepath.Join(dir, "games"), "--backend", "bogus"},
		{"arena", "--a", "random", "--b", "random", "--games", "2", "--backend", "bogus"},
		{"ladder", "show", "--backend", "bogus"},
	} {
		code, out, errs := runCmd(t, args...)
		if code != 1 || !strings.Contains(errs, `--backend: infer: unknown backend "bogus" (valid: auto, `) || strings.Count(strings.TrimSpace(errs), "\n") != 0 || out != "" {
			t.Errorf("dama %s: exit %d, stdout %q, stderr %q; want a one-line error naming the valid backends, nothing done", strings.Join(args, " "), code, out, errs)
		}
	}
	if names, _ := os.ReadDir(dir); len(names) != 0 {
		t.Errorf("the failed commands wrote %v", names)
	}
}

// dama ship --model takes only a model the run trained: the card's totals
// come from the run's records (issue 20, item 6: any network was shipped
// with another run's games and CPU time).
func TestShipModelOfRun(t *testing.T) {
	run := shipTestRun(t)
	dir := t.TempDir()
	cfg, err := model.Preset("tiny")
	if err != nil {
		t.Fatal(err)
	}
	stranger := filepath.Join(dir, "stranger.ckpt")
	if err := (&model.Checkpoint{Net: model.NewSeededNetwork(cfg, 2), Step: 42}).Save(stranger); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "shipped")
	code, so, errs := runCmd(t, shipArgs(run, out, "--model", stranger)...)
	if code != 1 || !strings.Contains(errs, "--model "+stranger+": not a model of run "+run) || strings.Count(strings.TrimSpace(errs), "\n") != 0 || so != "" {
		t.Errorf("ship --model of another network: exit %d, stdout %q, stderr %q; want a one-line refusal", code, so, errs)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("the refused ship created %s (%v)", out, err)
	}
	// A copy of the run's model elsewhere is the run's model, and counts
	// as the generation that trained it.
	data, err := os.ReadFile(shipTestCandidate(run))
	if err != nil {
		t.Fatal(err)
	}
	copied := filepath.Join(dir, "copy.ckpt")
	if err := os.WriteFile(copied, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, so, errs := runCmd(t, shipArgs(run, out, "--model", copied)...); code != 0 {
		t.Errorf("ship --model of a copy of the run's candidate: exit %d, stdout %q, stderr %q", code, so, errs)
	}
	// Its initial model, which no generation trained, is refused.
	if code, _, errs := runCmd(t, shipArgs(run, filepath.Join(dir, "shipped2"))...); code != 1 || !strings.Contains(errs, "no generation trained it") {
		t.Errorf("ship of the run's initial model (its best): exit %d, stderr %q; want a refusal", code, errs)
	}
}

// dama ship writes its four files all or nothing: a second ship whose card
// cannot be written (a folder stands at MODEL.md) fails before any game and
// leaves the first ship's files as they were, with no temporary file
// behind (issue 20, item 6: dama.ckpt, dama.onnx and model.json were
// replaced, then MODEL.md failed).
func TestShipAllOrNothing(t *testing.T) {
	run := shipTestRun(t)
	other := shipTestCandidate(run)
	out := filepath.Join(t.TempDir(), "shipped")
	if code, so, errs := runCmd(t, shipArgs(run, out, "--model", other)...); code != 0 {
		t.Fatalf("first ship: exit %d, stdout %q, stderr %q", code, so, errs)
	}
	cardPath := filepath.Join(out, "MODEL.md")
	if err := os.Remove(cardPath); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(cardPath, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	shipped := []string{"dama.ckpt", "dama.onnx", "model.json"}
	before := map[string][]byte{}
	for _, name := range shipped {
		var err error
		if before[name], err = os.ReadFile(filepath.Join(out, name)); err != nil {
			t.Fatal(err)
		}
	}
	code, so, errs := runCmd(t, shipArgs(run, out, "--model", other, "--revision", "second", "--match", "random", "--match-games", "2", "--visits", "2")...)
	if code != 1 || !strings.Contains(errs, "writing "+cardPath+": it is a folder") || strings.Count(strings.TrimSpace(errs), "\n") != 0 || so != "" {
		t.Errorf("ship with a folder at MODEL.md: exit %d, stdout %q, stderr %q; want a one-line error before any game", code, so, errs)
	}
	for _, name := range shipped {
		if b, err := os.ReadFile(filepath.Join(out, name)); err != nil || !bytes.Equal(b, before[name]) {
			t.Errorf("%s was replaced by the failed ship (%v)", name, err)
		}
	}
	if ents, _ := os.ReadDir(out); len(ents) != len(shipped)+1 {
		t.Errorf("the failed ship left %d entries in %s, want the %d there before", len(ents), out, len(shipped)+1)
	}
}

// A bad --match player fails before any work (it was parsed after the
// ladder, with dama.ckpt and dama.onnx written).
func TestShipMatchCheckedFirst(t *testing.T) {
	out := filepath.Join(t.TempDir(), "shipped")
	code, so, errs := runCmd(t, shipArgs(shipTestRun(t), out, "--match", "minimax:3")...)
	if code != 1 || !strings.Contains(errs, `--match: arena: unknown player "minimax:3"`) || strings.Count(strings.TrimSpace(errs), "\n") != 0 || so != "" {
		t.Errorf("ship --match minimax:3: exit %d, stdout %q, stderr %q; want a one-line error", code, so, errs)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("the refused ship created %s (%v)", out, err)
	}
}

// dama ship --rewrite-card writes MODEL.md again from model.json
// (checkpoints/card.Rewrite) and says so; a record it cannot read fails
// with one line.
func TestShipRewriteCard(t *testing.T) {
	out := t.TempDir()
	rec := card.Record{Version: card.Version, ModelSHA: "abc", Ratings: []card.Rating{{Run: "p1", Ladder: "l1", Visits: 800, Elo: 1236}}}
	js, _ := json.Marshal(rec)
	if err := os.WriteFile(filepath.Join(out, "model.json"), js, 0o644); err != nil {
		t.Fatal(err)
	}
	code, so, errs := runCmd(t, "ship", "rewrite-card", "--out", out)
	if want := "wrote " + filepath.Join(out, "MODEL.md") + " from " + filepath.Join(out, "model.json") + "\n"; code != 0 || so != want {
		t.Fatalf("--rewrite-card: exit %d, stdout %q, stderr %q; want %q", code, so, errs, want)
	}
	if b, err := os.ReadFile(filepath.Join(out, "MODEL.md")); err != nil || string(b) != rec.Markdown() {
		t.Errorf("MODEL.md %q (%v), want the record's card", b, err)
	}
	rec.Version = 9
	js, _ = json.Marshal(rec)
	if err := os.WriteFile(filepath.Join(out, "model.json"), js, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runCmd(t, "ship", "rewrite-card", "--out", out); code != 1 || !strings.Contains(errs, "version 9") || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
		t.Errorf("--rewrite-card of a version 9 record: exit %d, stderr %q", code, errs)
	}
}

// The card's line to reproduce a rating names dama ladder's default
// visits where the record has no rating: the two constants agree.
func TestLadderVisitsDefault(t *testing.T) {
	if player.LadderDefault().Visits != card.LadderVisits {
		t.Errorf("dama ladder --visits defaults to %d, the card to %d", player.LadderDefault().Visits, card.LadderVisits)
	}
}
