package runfolder

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A run folder archived by an earlier dama, before keys such as
// selfplay.backend existed and before the digest, still resumes: the
// missing keys take their defaults. Its sample is committed
// (testdata/config-2026-12-01-legacy.yaml, written at 01:47 that day);
// a hand edit, a dropped original key or foreign content is still
// refused (a changed value alone cannot be told without a digest, as before).
func TestResumeOlderArchive(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "config-2026-12-01-legacy.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	r := &Run{Dir: t.TempDir()}
	write := func(b []byte) {
		t.Helper()
		if err := os.WriteFile(r.Path(ConfigFile), b, 0o644); err != nil {
			t.Fatal(err)
		}
		os.Remove(r.Path(configDigestFile))
	}
	write(data)
	cfg, err := r.ReadArchivedConfig(data)
	if err != nil {
		t.Fatalf("older archive refused: %v", err)
	}
	if cfg.Run.Name != "quick" || cfg.SelfPlay.Visits != 64 || cfg.SelfPlay.Backend != "auto" {
		t.Errorf("older archive read as name %q visits %d backend %q", cfg.Run.Name, cfg.SelfPlay.Visits, cfg.SelfPlay.Backend)
	}
	// Once read, it has a digest and resumes again.
	if _, err := os.Stat(r.Path(configDigestFile)); err != nil {
		t.Errorf("no digest written for the older archive: %v", err)
	}
	if _, err := r.ReadArchivedConfig(data); err != nil {
		t.Errorf("second read: %v", err)
	}
	s := string(data)
	for _, tc := range []struct{ name, content string }{
		{"hand edit", strings.Replace(s, "visits: 64", "visits: 65 # more", 1)},
		{"dropped original key", strings.Replace(s, "    cpuct: 1.5\n", "", 1)},
		{"foreign line", strings.Replace(s, "run:\n", "run:\n    colour: red\n", 1)},
		{"reordered", strings.Replace(strings.Replace(s, "    seed: 1\n", "", 1), "    workers: 2\n", "    workers: 2\n    seed: 1\n", 1)},
		// A key removed since (configs.RemovedAtOff) passes at its off
		// value only.
		{"removed key on", strings.Replace(s, "root_search: puct", "root_search: gumbel", 1)},
	} {
		write([]byte(tc.content))
		if _, err := r.ReadArchivedConfig([]byte(tc.content)); err == nil {
			t.Errorf("%s: accepted", tc.name)
		}
	}
}

// AllowChangeKeys splits each --allow-change into its keys, trimmed, and
// refuses an empty one naming the value; CheckAllowChange refuses an
// unknown key and the model's.
func TestAllowChangeKeys(t *testing.T) {
	keys, err := AllowChangeKeys([]string{"selfplay.visits", " arena.games , train.lr"})
	if err != nil || !slices.Equal(keys, []string{"selfplay.visits", "arena.games", "train.lr"}) {
		t.Errorf("got %q, %v", keys, err)
	}
	if err := CheckAllowChange(keys); err != nil {
		t.Error(err)
	}
	if _, err := AllowChangeKeys([]string{"selfplay.visits,"}); err == nil || !strings.HasPrefix(err.Error(), `--allow-change "selfplay.visits,": want configuration keys`) {
		t.Errorf("an empty key: got %v", err)
	}
	if keys, err := AllowChangeKeys(nil); err != nil || keys != nil {
		t.Errorf("none: got %q, %v", keys, err)
	}
	for _, k := range []string{"selfplay.nope", "model.blocks"} {
		if err := CheckAllowChange([]string{k}); err == nil || !strings.Contains(err.Error(), k) {
			t.Errorf("%s: got %v, want an error naming it", k, err)
		}
	}
}
