package card

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sampleRun copies the committed sample run (one generation, whose
// candidate is rejected/0001.ckpt) and writes candidate as that
// candidate's content; it returns the run folder.
func sampleRun(t *testing.T, candidate string) string {
	t.Helper()
	run := filepath.Join(t.TempDir(), "run")
	if err := os.CopyFS(run, os.DirFS("../../runfolder/testdata/run-2026-12-01")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(run, "rejected"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(run, "rejected", "0001.ckpt"), []byte(candidate), 0o644); err != nil {
		t.Fatal(err)
	}
	return run
}

// TestRunPiece: the piece of a run sums its generation records up to the
// one whose candidate the model is (by content, wherever the file is),
// with the run's configuration name and initial model; a model no
// generation trained is refused.
func TestRunPiece(t *testing.T) {
	run := sampleRun(t, "the candidate")
	if err := os.WriteFile(filepath.Join(run, "init"), []byte("0123abcd checkpoints/shipped/dama.ckpt\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	copied := filepath.Join(t.TempDir(), "copy.ckpt")
	if err := os.WriteFile(copied, []byte("the candidate"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := RunPiece(run, copied)
	if err != nil {
		t.Fatal(err)
	}
	// The sample run's generation record: 4 games, 117 positions, 0.206092
	// s of CPU, 0.257073772+0.17969963+0.068155917 s in its stages.
	want := Piece{Run: "run", Config: "quick", Generations: 1, Games: 4, Positions: 117, InitSHA: "0123abcd",
		CPUHours: 0.206092 / 3600, WallHours: (0.257073772 + 0.17969963 + 0.068155917) / 3600}
	if p.Run != want.Run || p.Config != want.Config || p.Generations != 1 || p.RunGenerations != 0 || p.Games != 4 || p.Positions != 117 || p.InitSHA != want.InitSHA ||
		!near(p.CPUHours, want.CPUHours) || !near(p.WallHours, want.WallHours) {
		t.Errorf("piece %+v, want %+v", p, want)
	}
	other := filepath.Join(t.TempDir(), "other.ckpt")
	if err := os.WriteFile(other, []byte("another network"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := RunPiece(run, other); err == nil || !strings.Contains(err.Error(), "no generation trained it") {
		t.Errorf("a model no generation trained: %v", err)
	}
	if _, err := RunPiece(t.TempDir(), copied); err == nil {
		t.Error("a folder without generations: no error")
	}
}

func near(a, b float64) bool { return a-b < 1e-12 && b-a < 1e-12 }

// TestCheckModelOfRun: a model is the run's when a checkpoint in its
// candidates/, accepted/ or rejected/ has its content.
func TestCheckModelOfRun(t *testing.T) {
	run := sampleRun(t, "the candidate")
	dir := t.TempDir()
	mine, stranger := filepath.Join(dir, "mine.ckpt"), filepath.Join(dir, "stranger.ckpt")
	if err := os.WriteFile(mine, []byte("the candidate"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(stranger, []byte("another network"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := CheckModelOfRun(mine, run); err != nil {
		t.Errorf("a copy of the run's candidate: %v", err)
	}
	if err := CheckModelOfRun(stranger, run); err == nil || !strings.Contains(err.Error(), "not a model of run "+run) {
		t.Errorf("another network: %v", err)
	}
	if err := CheckModelOfRun(filepath.Join(dir, "missing.ckpt"), run); err == nil {
		t.Error("a missing model: no error")
	}
}

// TestRunPieceRecipe: the piece lists the changes its run recorded
// (schedule phases and --allow-change) up to its generation, and the card
// prints them under the pieces.
func TestRunPieceRecipe(t *testing.T) {
	run := sampleRun(t, "the candidate")
	changes := `{"version":1,"generation":1,"time":"2026-12-06T00:00:00Z","changes":[{"key":"selfplay.pass_forced","old":"false","new":"true"}]}
{"version":1,"generation":2,"time":"2026-12-06T00:00:00Z","changes":[{"key":"train.lr","old":"0.002","new":"0.0003"}],"phase":1}
`
	if err := os.WriteFile(filepath.Join(run, "config-changes.jsonl"), []byte(changes), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := RunPiece(run, filepath.Join(run, "rejected", "0001.ckpt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Recipe) != 1 || p.Recipe[0] != "generation 1, --allow-change: selfplay.pass_forced=true" {
		t.Errorf("recipe %q, want the one change up to generation 1", p.Recipe)
	}
	p.Recipe = append(p.Recipe, "generation 2, schedule phase 1: train.lr=0.0003 (why)")
	md := Record{Pieces: []Piece{p}}.Markdown()
	if !strings.Contains(md, "How run's settings changed") || !strings.Contains(md, "- generation 2, schedule phase 1: train.lr=0.0003 (why)\n") {
		t.Errorf("the card does not list the recipe:\n%s", md)
	}
}
