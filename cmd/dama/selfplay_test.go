package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dama/configs"
	"dama/rules"
	"dama/selfplay"
)

func TestSelfplayCommand(t *testing.T) {
	dir := t.TempDir()
	cfgFile := writeText(t, filepath.Join(dir, "sp.yaml"), "selfplay:\n  visits: 50\n  max_plies: 60\n  cheap_visits: 4\nrun:\n  seed: 9\n")
	out := filepath.Join(dir, "games")
	code, stdout, errs := runCmd(t, "selfplay", "--model", "random", "--games", "5", "--out", out,
		"--config", cfgFile, "--visits", "12", "--parallel", "2", "--chunk", "2", "--chunk-pdn", "--quiet", "--worker", "t")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	if !strings.Contains(stdout, "selfplay: 5 games in 3 files") {
		t.Errorf("summary %q", stdout)
	}
	files, err := selfplay.Chunks(out)
	if err != nil || len(files) != 3 {
		t.Fatalf("chunks %v, err %v", files, err)
	}
	n := 0
	for _, f := range files {
		h, games, err := selfplay.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		want := selfplay.Config{SelfPlay: configs.Default().SelfPlay, Seed: 9}
		want.Visits, want.MaxPlies, want.CheapVisits, want.Parallel = 12, 60, 4, 2
		if h.Model != "random" || h.ConfigDigest != want.Digest() {
			t.Errorf("%s: header %+v, want model random and the digest of %+v", f, h, want)
		}
		for _, g := range games {
			n++
			if len(g.Plies) > 60 {
				t.Errorf("a game of %d plies, beyond the config's cap", len(g.Plies))
			}
		}
		pdn, err := os.ReadFile(strings.TrimSuffix(f, selfplay.FileExt) + ".pdn")
		if err != nil {
			t.Fatal(err)
		}
		if recs, err := rules.ParsePDN(string(pdn)); err != nil || len(recs) != len(games) {
			t.Errorf("%s PDN: %d games, err %v", f, len(recs), err)
		}
	}
	if n != 5 {
		t.Errorf("%d games in the files, want 5", n)
	}

	for _, args := range [][]string{
		{"selfplay", "--games", "1", "--out", out},
		{"selfplay", "--model", "random", "--games", "0", "--out", out},
		{"selfplay", "--model", "random", "--games", "1"},
		{"selfplay", "--model", filepath.Join(dir, "missing.ckpt"), "--games", "1", "--out", out},
		{"selfplay", "--model", "random", "--games", "1", "--out", out, "--config", cfgFile + ".missing"},
	} {
		if code, _, errs := runCmd(t, args...); code != 1 || !strings.HasPrefix(errs, "dama selfplay: ") {
			t.Errorf("%v: exit %d, stderr %q, want a one-line error", args, code, errs)
		}
	}
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("selfplay:\n  visit: 50\n"), 0o644)
	if code, _, errs := runCmd(t, "selfplay", "--model", "random", "--games", "1", "--out", out, "--config", bad); code != 1 || !strings.Contains(errs, "visit") {
		t.Errorf("unknown config key: exit %d, stderr %q", code, errs)
	}
}

// TestSelfplayConfigOff checks that dama selfplay --config reads a run
// configuration as dama train does: fpu_reduction 0 means no reduction
// (it used to mean the default 0.25), and the settings are validated by
// package configs.
func TestSelfplayConfigOff(t *testing.T) {
	dir := t.TempDir()
	cfgFile := writeText(t, filepath.Join(dir, "sp.yaml"), "selfplay:\n  fpu_reduction: 0\n  max_plies: 20\n")
	out := filepath.Join(dir, "games")
	code, _, errs := runCmd(t, "selfplay", "--model", "random", "--games", "1", "--out", out,
		"--config", cfgFile, "--visits", "8", "--parallel", "1", "--seed", "3", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	files, err := selfplay.Chunks(out)
	if err != nil || len(files) != 1 {
		t.Fatalf("chunks %v, err %v", files, err)
	}
	h, _, err := selfplay.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := configs.Load(cfgFile, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.SelfPlay.Visits, cfg.SelfPlay.Parallel = 8, 1
	if trainer := (selfplay.Config{SelfPlay: cfg.SelfPlay, Seed: 3}); h.ConfigDigest != trainer.Digest() {
		t.Errorf("digest %s, want the trainer's %s for the same configuration", h.ConfigDigest, trainer.Digest())
	}
	// The digest of these settings (fpu_reduction none), as the versions
	// before configs.SelfPlay became self-play's own settings wrote it.
	const off = "23182b358453a4afc5ad30435d8b0486187dec4beb01d52d2bb3eec887d5b1e9"
	if h.ConfigDigest != off {
		t.Errorf("digest %s, want that of fpu_reduction none %s", h.ConfigDigest, off)
	}

	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("selfplay:\n  fpu_reduction: 5\n"), 0o644)
	if code, _, errs := runCmd(t, "selfplay", "--model", "random", "--games", "1", "--out", out, "--config", bad); code != 1 || !strings.Contains(errs, "selfplay.fpu_reduction") {
		t.Errorf("fpu_reduction out of range: exit %d, stderr %q", code, errs)
	}
}

// writeText writes text to the file path and returns path; an error fails t.
func writeText(t *testing.T, path, text string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSelfplayHybrids: dama selfplay --config with selfplay.hybrids plays
// with them: the chunk carries the digest of the settings with the
// hybrids, and searches prove roots, which only the Minimax oracle does
// here (a uniform evaluator, no solver, no tables). The verifier ab is a
// one-line error naming the key.
func TestSelfplayHybrids(t *testing.T) {
	dir := t.TempDir()
	cfgFile := writeText(t, filepath.Join(dir, "sp.yaml"), "selfplay:\n  hybrids: mm4,cmb3,ip3\n  max_plies: 120\n")
	out := filepath.Join(dir, "games")
	code, _, errs := runCmd(t, "selfplay", "--model", "random", "--games", "2", "--out", out,
		"--config", cfgFile, "--visits", "8", "--parallel", "2", "--seed", "3", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	files, err := selfplay.Chunks(out)
	if err != nil || len(files) != 1 {
		t.Fatalf("chunks %v, err %v", files, err)
	}
	h, games, err := selfplay.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := configs.Load(cfgFile, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.SelfPlay.Visits, cfg.SelfPlay.Parallel = 8, 2
	want := selfplay.Config{SelfPlay: cfg.SelfPlay, Seed: 3}
	without := want
	without.Hybrids = ""
	if h.ConfigDigest != want.Digest() || h.ConfigDigest == without.Digest() {
		t.Errorf("digest %s, want %s with the hybrids (%s without)", h.ConfigDigest, want.Digest(), without.Digest())
	}
	proven := 0
	for _, g := range games {
		for _, p := range g.Plies {
			if p.WDL == [3]float32{1, 0, 0} || p.WDL == [3]float32{0, 0, 1} {
				proven++
			}
		}
	}
	if proven == 0 {
		t.Errorf("no search of %d games proved its root", len(games))
	}

	bad := writeText(t, filepath.Join(dir, "ab.yaml"), "selfplay:\n  hybrids: mm4,ab12\n")
	code, _, errs = runCmd(t, "selfplay", "--model", "random", "--games", "1", "--out", out, "--config", bad)
	if code != 1 || !strings.Contains(errs, `selfplay.hybrids = "mm4,ab12": want mm[DEPTH], cmb[DEPTH] and ip[DEPTH] only: ab was removed`) || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
		t.Errorf("selfplay.hybrids with ab: exit %d, stderr %q, want a one-line error naming the key", code, errs)
	}
}
