package runfolder

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A run folder, or its best file, stands for the best model wherever a
// model is expected (issue 13, point 3).
func TestResolveModel(t *testing.T) {
	dir := t.TempDir()
	run, err := Open(filepath.Join(dir, "run"))
	if err != nil {
		t.Fatal(err)
	}
	ck := run.Path(AcceptedDir, CandidateName(3))
	if err := os.WriteFile(ck, []byte("checkpoint"), 0o644); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "plain.ckpt")
	if err := os.WriteFile(other, []byte("checkpoint"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ResolveModel(run.Dir); err == nil || !strings.Contains(err.Error(), "no best model") {
		t.Errorf("run without best: err %v", err)
	}
	if err := run.SetBest(filepath.Join(AcceptedDir, CandidateName(3))); err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{run.Dir, run.Path(BestFile), ck} {
		if got, err := ResolveModel(in); err != nil || got != ck {
			t.Errorf("ResolveModel(%s) = %s, %v; want %s", in, got, err, ck)
		}
	}
	if got, err := ResolveModel(other); err != nil || got != other {
		t.Errorf("ResolveModel(%s) = %s, %v", other, got, err)
	}
	for _, tc := range []struct{ best, want string }{
		{"accepted/0009.ckpt", "does not exist"},
		{"../../etc/passwd", "bad best model name"},
		{"", "bad best model name"},
	} {
		if err := os.WriteFile(run.Path(BestFile), []byte(tc.best+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ResolveModel(run.Dir); err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), BestFile) {
			t.Errorf("best %q: err %v, want one naming the best file and %q", tc.best, err, tc.want)
		}
	}
}
