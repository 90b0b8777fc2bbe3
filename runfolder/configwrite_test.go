package runfolder

import (
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"dama/configs"
)

// loadQuick returns the quick configuration with a tiny model and sets, and
// its YAML.
func loadQuick(t *testing.T, sets ...string) (*configs.Config, []byte) {
	t.Helper()
	cfg, err := configs.Load("quick", nil, append([]string{"model.preset=tiny"}, sets...))
	if err != nil {
		t.Fatal(err)
	}
	y, err := cfg.YAML()
	if err != nil {
		t.Fatal(err)
	}
	return cfg, y
}

// A kill after any step of archiving a changed configuration (a resume
// that changes run.generations) leaves a run folder that resumes: a worker
// reads the old or the new configuration meanwhile, and the trainer's next
// start with the same request completes the write (issue 20, point 4: a
// kill between config.yaml and config.sha256 refused the run for good).
func TestWriteConfigKilledAtEachStep(t *testing.T) {
	old, yOld := loadQuick(t)
	want, yNew := loadQuick(t, "run.generations=7")
	killed := errors.New("killed")
	defer func() { configWriteStep = nil }()
	for step := 1; step <= 3; step++ {
		r := &Run{Dir: t.TempDir()}
		if err := r.WriteConfig(yOld); err != nil {
			t.Fatal(err)
		}
		configWriteStep = func(s int) error {
			if s == step {
				return killed
			}
			return nil
		}
		err := r.ResumeConfig(old, want, yNew, io.Discard, nil)
		configWriteStep = nil
		if !errors.Is(err, killed) {
			t.Fatalf("step %d: the write was not stopped: %v", step, err)
		}
		if c, err := r.Config(); err != nil || (c.Run.Generations != old.Run.Generations && c.Run.Generations != 7) {
			t.Errorf("step %d: a worker reading the interrupted archive: %v", step, err)
		}
		data, err := os.ReadFile(r.Path(ConfigFile))
		if err != nil {
			t.Fatal(err)
		}
		prev, err := r.ReadArchivedConfig(data)
		if err != nil {
			t.Fatalf("killed after step %d: resume refused: %v", step, err)
		}
		if err := r.ResumeConfig(prev, want, yNew, io.Discard, nil); err != nil {
			t.Fatalf("killed after step %d: resume: %v", step, err)
		}
		data, err = os.ReadFile(r.Path(ConfigFile))
		if err != nil || string(data) != string(yNew) {
			t.Errorf("step %d: the archive is not the new configuration (%v)", step, err)
		}
		if _, err := r.ReadArchivedConfig(data); err != nil {
			t.Errorf("step %d: the next start: %v", step, err)
		}
		if _, err := os.Stat(r.Path(configPendingFile)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("step %d: a pending digest left behind (%v)", step, err)
		}
		if c, err := r.Config(); err != nil || c.Run.Generations != 7 {
			t.Errorf("step %d: a worker reads %v", step, err)
		}
	}
	// A new run killed after writing config.yaml: its pending digest
	// vouches for it.
	r := &Run{Dir: t.TempDir()}
	configWriteStep = func(s int) error {
		if s == 2 {
			return killed
		}
		return nil
	}
	if err := r.WriteConfig(yOld); !errors.Is(err, killed) {
		t.Fatalf("first archive not stopped: %v", err)
	}
	configWriteStep = nil
	if _, err := r.ReadArchivedConfig(yOld); err != nil {
		t.Errorf("new run killed before its digest: %v", err)
	}
	if _, err := os.Stat(r.Path(configDigestFile)); err != nil {
		t.Errorf("the digest was not completed: %v", err)
	}
}

// A worker's read of the configuration refuses a config.yaml its digest
// does not vouch for, naming the file, and waits (os.ErrNotExist) for one
// that has no digest yet (issue 20, point 4: workers played with an
// emptied or edited config).
func TestConfigChecksDigest(t *testing.T) {
	_, y := loadQuick(t)
	r := &Run{Dir: t.TempDir()}
	if _, err := r.Config(); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("no config.yaml: %v, want os.ErrNotExist", err)
	}
	if err := r.WriteConfig(y); err != nil {
		t.Fatal(err)
	}
	if c, err := r.Config(); err != nil || c.Run.Name != "quick" {
		t.Fatalf("intact archive: %v", err)
	}
	for _, tc := range []struct{ name, content string }{
		{"emptied", ""},
		{"edited", strings.Replace(string(y), "visits:", "visits: 2 #", 1)},
	} {
		if err := os.WriteFile(r.Path(ConfigFile), []byte(tc.content), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := r.Config()
		if err == nil || !strings.HasPrefix(err.Error(), "runfolder: ") || !strings.Contains(err.Error(), r.Path(ConfigFile)) || !strings.Contains(err.Error(), configDigestFile) {
			t.Errorf("%s config.yaml: %v, want a refusal naming the file and its digest", tc.name, err)
		}
	}
	if err := os.Remove(r.Path(configDigestFile)); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Config(); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("no digest: %v, want os.ErrNotExist", err)
	}
}
