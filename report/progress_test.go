package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"dama/configs"
	"dama/runfolder"
	"dama/selfplay"
)

// The generation in progress follows a run through its stages as the
// trainer leaves its files: self-play (games in the chunks no plan takes),
// training (steps logged of the plan's), gating (the candidate saved), the
// ladder rating (the record written, its rating not), then nothing once
// the planned generations are done.
func TestProgress(t *testing.T) {
	r := writeSynthRun(t)
	writeConfig := func(sets ...string) {
		t.Helper()
		cfg, err := configs.Load("quick", nil, append([]string{"selfplay.games_per_generation=40", "arena.games=20", "ladder.every=5", "ladder.games=30", "train.steps_per_generation=0"}, sets...))
		must(t, err)
		y, err := cfg.YAML()
		must(t, err)
		must(t, os.WriteFile(r.Path(runfolder.ConfigFile), y, 0o644))
	}
	writeConfig()
	load := func() *Progress {
		t.Helper()
		rep, err := Load(r)
		must(t, err)
		if rep.Progress == nil {
			t.Fatal("no generation in progress")
		}
		return rep.Progress
	}
	rec4, err := r.ReadRecord(4)
	must(t, err)

	p := load()
	if p.Gen != 5 || p.Stage != StageSelfPlay || p.Done != 0 || p.Total != 40 || p.Unit != "games" || !p.Since.Equal(rec4.Finished) {
		t.Errorf("before any chunk: %+v, want generation 5 self-play, 0 of 40 games since generation 4 finished", p)
	}
	const chunk = "chunk-w1-000000.dgames"
	copyChunk(t, "../selfplay/testdata/games-v6.dgames", r.Path(runfolder.GamesDir, chunk))
	h, games, err := selfplay.ReadFile(r.Path(runfolder.GamesDir, chunk))
	must(t, err)
	if p = load(); p.Stage != StageSelfPlay || p.Done != len(games) || p.Last.Before(p.Since) {
		t.Errorf("with a chunk of %d games waiting: %+v", len(games), p)
	}
	if got, want := p.Describe(p.Since.Add(130*time.Second)), "generation 5: self-play, "; !strings.HasPrefix(got, want) || !strings.HasSuffix(got, " of 40 games, 2m10s so far") {
		t.Errorf("Describe: %q", got)
	}

	must(t, r.WritePlan(&runfolder.Plan{Gen: 5, Chunks: []runfolder.ChunkInfo{{Name: chunk, Games: h.Games, Positions: 1000}}}))
	cfg, err := configs.Load(r.Path(runfolder.ConfigFile), nil, nil)
	must(t, err)
	steps := cfg.Train.Steps(1000)
	p = load()
	st, err := os.Stat(r.PlanPath(5))
	must(t, err)
	if p.Stage != StageTraining || p.Done != 0 || p.Total != steps || p.Unit != "steps" || !p.Since.Equal(st.ModTime()) {
		t.Errorf("with the plan written: %+v, want training, 0 of %d steps since the plan", p, steps)
	}
	at := time.Now().UTC()
	for s := int64(1601); s <= 1603; s++ {
		must(t, r.AppendJSONL(runfolder.MetricsFile, runfolder.MetricRecord{Gen: 5, Step: s, PolicyLoss: 1.5, ValueLoss: 0.7, SamplesPerSec: 900, Time: at}))
	}
	if p = load(); p.Stage != StageTraining || p.Done != 3 || p.PolicyLoss != 1.5 || !p.Last.Equal(at) {
		t.Errorf("after 3 steps: %+v", p)
	}
	if got := p.Describe(p.Since); !strings.Contains(got, "generation 5: training, 3 of ") || !strings.Contains(got, "(policy loss 1.5000, value loss 0.7000, 900 samples/s)") {
		t.Errorf("Describe: %q", got)
	}

	must(t, os.WriteFile(r.Path(runfolder.CandidatesDir, runfolder.CandidateName(5)), []byte("x"), 0o644))
	if p = load(); p.Stage != StageGating || p.Done != -1 || p.Total != 20 || p.Since.IsZero() {
		t.Errorf("with the candidate saved: %+v, want gating of 20 games", p)
	}
	if got := p.Describe(p.Since); got != "generation 5: gating of 20 games" {
		t.Errorf("Describe: %q", got)
	}

	rec5 := runfolder.GenerationRecord{Gen: 5, Best: "accepted/0005.ckpt", Finished: time.Now().UTC()}
	must(t, r.WriteRecord(&rec5))
	if p = load(); p.Gen != 5 || p.Stage != StageLadder || p.Total != 30 || !p.Since.Equal(rec5.Finished) {
		t.Errorf("with generation 5 recorded: %+v, want its ladder rating of 30 games", p)
	}
	if got := p.Describe(p.Since); got != "generation 5: ladder rating of 30 games" {
		t.Errorf("Describe: %q", got)
	}
	rated := time.Now().UTC().Add(time.Second)
	must(t, r.AppendJSONL(runfolder.LadderFile, runfolder.LadderRecord{Gen: 5, Model: "accepted/0005.ckpt", Visits: 64, Games: 30, TotalGames: 500, TotalPositions: 30000, Elo: 100, Time: rated}))
	if p = load(); p.Gen != 6 || p.Stage != StageSelfPlay || !p.Since.Equal(rated) {
		t.Errorf("with the rating recorded: %+v, want generation 6 self-play since the rating", p)
	}

	writeConfig("run.generations=5")
	rep, err := Load(r)
	must(t, err)
	if rep.Progress != nil {
		t.Errorf("a run that has done its 5 generations: %+v in progress", rep.Progress)
	}
}

func copyChunk(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	must(t, err)
	must(t, os.MkdirAll(filepath.Dir(to), 0o755))
	must(t, os.WriteFile(to, b, 0o644))
}
