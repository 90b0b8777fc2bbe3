package train

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dama/configs"
	"dama/runfolder"
)

// TestTrainOptions checks the mapping of the training section: set values
// pass unchanged.
func TestTrainOptions(t *testing.T) {
	c := configs.Default().Train
	o := trainOptions(c)
	if o.Batch != c.Batch || o.LR != c.LR || o.Momentum != c.Momentum || o.DecaySteps != c.LRDecaySteps || o.TotalSteps != c.LRDecaySteps {
		t.Errorf("train options %+v from %+v", o, c)
	}
}

// LoadConfig takes --config, else the run folder's archived
// configuration, else the quick preset; the folder defaults to
// checkpoints/RUN.NAME; a bad self-play setting is refused.
func TestLoadConfig(t *testing.T) {
	cfg, dir, err := LoadConfig("", "", nil, nil)
	if err != nil || cfg.Run.Name != "quick" || dir != filepath.Join("checkpoints", "quick") {
		t.Fatalf("no config, no folder: %v, %q, %v", cfg.Run.Name, dir, err)
	}
	run := t.TempDir()
	if err := os.WriteFile(filepath.Join(run, runfolder.ConfigFile), []byte("run:\n  name: archived\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if cfg, dir, err = LoadConfig("", run, nil, nil); err != nil || cfg.Run.Name != "archived" || dir != run {
		t.Errorf("the archived config: %v, %q, %v", cfg, dir, err)
	}
	if cfg, _, err = LoadConfig("workstation", run, nil, []string{"selfplay.visits=600"}); err != nil || cfg.Run.Name != "workstation" || cfg.SelfPlay.Visits != 600 {
		t.Errorf("--config over the archived: %v, %v", cfg, err)
	}
	if _, _, err = LoadConfig("quick", "", nil, []string{"selfplay.hybrids=zz9"}); err == nil || !strings.Contains(err.Error(), "selfplay.hybrids") {
		t.Errorf("bad hybrids: got %v, want an error naming selfplay.hybrids", err)
	}
}
