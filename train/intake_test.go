package train

import (
	"os"
	"slices"
	"strings"
	"testing"

	"dama/configs"
	"dama/model"
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
	check := selfplay.RunChecker(cfg.SelfPlay, run.SelfPlayHistory, run.Path(runfolder.AcceptedDir))
	sample := run.Path(runfolder.GamesDir, "chunk-main-000000.dgames")
	h, games, err := check.CheckFile(sample)
	if err != nil {
		t.Fatalf("the committed sample chunk: %v", err)
	}
	h.ModelDigest = fileDigest(t, run.Path(runfolder.AcceptedDir, runfolder.CandidateName(0))) // as this version writes it
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
	l := &loop{cfg: cfg, run: run, log: &log, counts: map[string]runfolder.ChunkInfo{}, check: check, held: selfplay.NewGameIndex()}
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

// TestIntakeAcceptsChunksOfPastConfig: a run resumed with a new
// selfplay.pass_forced or resign_threshold (--allow-change, recorded in
// config-changes.jsonl) still takes a chunk written under the old setting
// (the committed sample's, waiting in games/ or from a worker still on the
// old configuration) and still quarantines a forged one: a result flipped
// under the old setting, or a config digest the run never had (issue 20,
// point 3: such honest chunks were quarantined).
func TestIntakeAcceptsChunksOfPastConfig(t *testing.T) {
	for _, change := range []string{"selfplay.pass_forced=true", "selfplay.resign_threshold=0.05"} {
		key, _, _ := strings.Cut(change, "=")
		_, run, old := copySampleRun(t)
		cfg := loadConfig(t, run.Path(runfolder.ConfigFile), change)
		var log strings.Builder
		l := &loop{opt: Options{AllowChange: []string{key}}, cfg: cfg, run: run, log: &log, counts: map[string]runfolder.ChunkInfo{}, held: selfplay.NewGameIndex(),
			check: selfplay.RunChecker(cfg.SelfPlay, run.SelfPlayHistory, run.Path(runfolder.AcceptedDir))}
		if err := l.archive(); err != nil {
			t.Fatal(err)
		}
		if ch, err := run.ReadChanges(); err != nil || len(ch) != 1 || ch[0].Generation != 2 {
			t.Fatalf("%s: changes %+v, %v; want one from generation 2", key, ch, err)
		}
		h, games, err := selfplay.ReadFile(run.Path(runfolder.GamesDir, "chunk-main-000000.dgames"))
		if err != nil {
			t.Fatal(err)
		}
		h.ModelDigest = fileDigest(t, run.Path(runfolder.AcceptedDir, runfolder.CandidateName(0)))
		if err := (&selfplay.Checker{Settings: []configs.SelfPlay{cfg.SelfPlay}}).Check("c", h, games); err == nil {
			t.Fatalf("%s: the old chunk passes the new setting alone; the test shows nothing", key)
		}
		if err := selfplay.WriteFile(run.Path(runfolder.GamesDir, "chunk-old-000000.dgames"), h, games); err != nil {
			t.Fatal(err)
		}
		never := old.SelfPlay
		never.Visits++
		forged := h
		forged.ConfigDigest = selfplay.Config{SelfPlay: never, Seed: 1}.Digest()
		if err := selfplay.WriteFile(run.Path(runfolder.GamesDir, "chunk-forged-000000.dgames"), forged, games); err != nil {
			t.Fatal(err)
		}
		flipped := append([]*selfplay.Game(nil), games...)
		for i, g := range games {
			if g.Result == rules.WhiteWins || g.Result == rules.BlackWins {
				bad := *g
				bad.Result = rules.WhiteWins
				if g.Result == rules.WhiteWins {
					bad.Result = rules.BlackWins
				}
				flipped[i] = &bad
				break
			}
		}
		if err := selfplay.WriteFile(run.Path(runfolder.GamesDir, "chunk-flipped-000000.dgames"), h, flipped); err != nil {
			t.Fatal(err)
		}
		fresh, err := l.unconsumed(map[string]bool{"chunk-main-000000.dgames": true})
		if err != nil {
			t.Fatal(err)
		}
		if len(fresh) != 1 || fresh[0].Name != "chunk-old-000000.dgames" {
			t.Errorf("%s: taken %+v, want the chunk of the old setting only", key, fresh)
		}
		for _, name := range []string{"chunk-forged-000000.dgames", "chunk-flipped-000000.dgames"} {
			if _, err := os.Stat(run.Path(runfolder.QuarantineDir, name)); err != nil {
				t.Errorf("%s: %s is not in quarantine/: %v", key, name, err)
			}
		}
		if !strings.Contains(log.String(), "config digest") || !strings.Contains(log.String(), "records") {
			t.Errorf("%s: log %q, want the reasons of both", key, log.String())
		}
	}
}

// fileDigest returns selfplay.ModelDigest of the file at path.
func fileDigest(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return selfplay.ModelDigest(data)
}

// TestIntakeRefusesModelNotAccepted: a chunk naming its model by the
// SHA-256 of a checkpoint that is not in accepted/ (the sample run's
// rejected/0001.ckpt, of the same network shape and step as
// accepted/0000.ckpt) is quarantined, and so is one of this format version
// naming its model by the network's config digest and step, which both
// checkpoints share; the committed sample chunk, of an older version in
// that form, still passes, so older run folders resume (issue 20, point 3).
func TestIntakeRefusesModelNotAccepted(t *testing.T) {
	_, run, cfg := copySampleRun(t)
	check := selfplay.RunChecker(cfg.SelfPlay, run.SelfPlayHistory, run.Path(runfolder.AcceptedDir))
	h, games, err := check.CheckFile(run.Path(runfolder.GamesDir, "chunk-main-000000.dgames"))
	if err != nil {
		t.Fatalf("the committed sample chunk (version %d, model digest %q): %v", h.Version, h.ModelDigest, err)
	}
	accepted, rejected := run.Path(runfolder.AcceptedDir, runfolder.CandidateName(0)), run.Path(runfolder.RejectedDir, runfolder.CandidateName(1))
	a, err := model.Load(accepted)
	if err != nil {
		t.Fatal(err)
	}
	r, err := model.Load(rejected)
	if err != nil {
		t.Fatal(err)
	}
	legacy := a.Net.Config.Digest() + "/0"
	if r.Net.Config.Digest() != a.Net.Config.Digest() || r.Step != a.Step || h.ModelDigest != legacy {
		t.Fatalf("the rejected checkpoint is not of the accepted one's shape and step, or the sample's digest %q is not %q", h.ModelDigest, legacy)
	}
	for name, digest := range map[string]string{
		"chunk-honest-000000.dgames":   fileDigest(t, accepted),
		"chunk-rejected-000000.dgames": fileDigest(t, rejected),
		"chunk-shape-000000.dgames":    legacy,
	} {
		hd := h
		hd.ModelDigest = digest
		if err := selfplay.WriteFile(run.Path(runfolder.GamesDir, name), hd, games); err != nil {
			t.Fatal(err)
		}
	}
	var log strings.Builder
	l := &loop{cfg: cfg, run: run, log: &log, counts: map[string]runfolder.ChunkInfo{}, check: check, held: selfplay.NewGameIndex()}
	fresh, err := l.unconsumed(nil)
	if err != nil {
		t.Fatal(err)
	}
	var taken []string
	for _, c := range fresh {
		taken = append(taken, c.Name)
	}
	if want := []string{"chunk-honest-000000.dgames", "chunk-main-000000.dgames"}; !slices.Equal(taken, want) {
		t.Errorf("taken %v, want %v", taken, want)
	}
	for name, msg := range map[string]string{
		"chunk-rejected-000000.dgames": "not one of the run's models",
		"chunk-shape-000000.dgames":    "SHA-256 of the checkpoint file",
	} {
		why, err := os.ReadFile(run.Path(runfolder.QuarantineDir, name+".why"))
		if err != nil || !strings.Contains(string(why), msg) {
			t.Errorf("%s: quarantine reason %q (%v), want %q", name, why, err, msg)
		}
	}
}
