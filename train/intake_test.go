package train

import (
	"os"
	"strings"
	"testing"

	"dama/rules"
	"dama/runfolder"
	"dama/selfplay"
)

// TestIntakeQuarantinesFlippedResult: a chunk of the games folder whose
// result was flipped (checksum recomputed, every move legal) goes to
// quarantine/ with its reason and one log line, and no plan can take it;
// an honest chunk beside it is taken. The committed sample run's chunk
// passes the same check with that run's settings.
func TestIntakeQuarantinesFlippedResult(t *testing.T) {
	_, run, cfg := copySampleRun(t)
	check := selfplay.RunChecker(cfg.SelfPlay, run.Path(runfolder.AcceptedDir))
	sample := run.Path(runfolder.GamesDir, "chunk-main-000000.dgames")
	h, games, err := check.CheckFile(sample)
	if err != nil {
		t.Fatalf("the committed sample chunk: %v", err)
	}
	if err := selfplay.WriteFile(run.Path(runfolder.GamesDir, "chunk-good-000000.dgames"), h, games); err != nil {
		t.Fatal(err)
	}
	flipped := false
	for _, g := range games {
		switch g.Result {
		case rules.WhiteWins:
			g.Result, flipped = rules.BlackWins, true
		case rules.BlackWins:
			g.Result, flipped = rules.WhiteWins, true
		}
		if flipped {
			break
		}
	}
	if !flipped {
		t.Fatal("the sample holds no won game")
	}
	if err := selfplay.WriteFile(run.Path(runfolder.GamesDir, "chunk-evil-000000.dgames"), h, games); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	l := &loop{cfg: cfg, run: run, log: &log, counts: map[string]runfolder.ChunkInfo{}, check: check}
	fresh, err := l.unconsumed(map[string]bool{"chunk-main-000000.dgames": true})
	if err != nil {
		t.Fatal(err)
	}
	if len(fresh) != 1 || fresh[0].Name != "chunk-good-000000.dgames" {
		t.Errorf("taken %+v, want the good chunk only", fresh)
	}
	if _, err := os.Stat(run.Path(runfolder.GamesDir, "chunk-evil-000000.dgames")); !os.IsNotExist(err) {
		t.Errorf("the flipped chunk is still in games/: %v", err)
	}
	why, err := os.ReadFile(run.Path(runfolder.QuarantineDir, "chunk-evil-000000.dgames.why"))
	if err != nil || !strings.Contains(string(why), "records") {
		t.Errorf("quarantine reason %q, err %v", why, err)
	}
	if _, err := os.Stat(run.Path(runfolder.QuarantineDir, "chunk-evil-000000.dgames")); err != nil {
		t.Errorf("the flipped chunk is not in quarantine/: %v", err)
	}
	if n := strings.Count(log.String(), "\n"); n != 1 || !strings.Contains(log.String(), "quarantined chunk-evil-000000.dgames") {
		t.Errorf("log %q, want one line", log.String())
	}
	// A model digest the run does not know is refused too.
	h.ModelDigest = "sha256:0123"
	if err := check.Check("c", h, games); err == nil || !strings.Contains(err.Error(), "not one of the run's models") {
		t.Errorf("a chunk of a model not in accepted/: err %v", err)
	}
}
