package web

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"dama/arena"
	"dama/configs"
	"dama/rules"
	"dama/runfolder"
)

// sampleRun is the committed run folder of one tiny generation (four games
// in one chunk) that the runfolder and report tests read.
const sampleRun = "../runfolder/testdata/run-2026-12-01"

// testRun builds a small run folder: the sample run, three more
// generations with their gating matches and losses, two ladder ratings, a
// recorded configuration change, a chunk no plan takes yet (waiting), a
// quarantined one, and the kept games of generation 2's gating match and
// ladder rating (four games each, see addMatchGames).
func testRun(t testing.TB) *runfolder.Run {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	if err := os.CopyFS(dir, os.DirFS(sampleRun)); err != nil {
		t.Fatal(err)
	}
	run, err := runfolder.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 12, 1, 4, 11, 0, 0, time.UTC)
	for gen := 2; gen <= 4; gen++ {
		addGeneration(t, run, gen, t0.Add(time.Duration(gen)*time.Minute))
	}
	if err := run.AppendJSONL(runfolder.LadderFile,
		runfolder.LadderRecord{Gen: 2, Model: "accepted/0002.ckpt", Visits: 64, Games: 40, Elo: 310, Low: 250, High: 370, CPUHours: 0.5, TotalGames: 12},
		runfolder.LadderRecord{Gen: 4, Model: "accepted/0004.ckpt", Visits: 64, Games: 40, Elo: 420, Low: 360, High: 480, CPUHours: 1.1, TotalGames: 20, LadderSec: 30},
	); err != nil {
		t.Fatal(err)
	}
	if err := run.AppendJSONL(runfolder.ChangesFile, runfolder.ConfigChange{
		Version: runfolder.ConfigChangeVersion, Generation: 3, Time: t0.Add(3 * time.Minute),
		Changes: []configs.KeyDiff{{Key: "selfplay.visits", Old: "4", New: "8"}},
	}); err != nil {
		t.Fatal(err)
	}
	copyFile(t, "../selfplay/testdata/games-v3.dgames", run.Path(runfolder.GamesDir, "chunk-w2-000000.dgames"))
	addMatchGames(t, run, runfolder.ArenaGames, 2, "alphabeta:1", "random", 4)
	addMatchGames(t, run, runfolder.LadderGames, 2, "random", "alphabeta:2", 4)
	if err := os.MkdirAll(run.Path(runfolder.QuarantineDir), 0o755); err != nil {
		t.Fatal(err)
	}
	bad := run.Path(runfolder.QuarantineDir, "chunk-w9-000003.dgames")
	if err := os.WriteFile(bad, []byte("not a chunk"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad+".why", []byte("model digest unknown to the run\nmore detail\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return run
}

// addGeneration writes generation gen's record, its gating match (promoted
// on even generations) and four training steps.
func addGeneration(t testing.TB, run *runfolder.Run, gen int, at time.Time) {
	t.Helper()
	promoted := gen%2 == 0
	best := "accepted/0000.ckpt"
	score, elo, verdict := 0.45, -35.0, "reject"
	if promoted {
		best = runfolder.AcceptedDir + "/" + runfolder.CandidateName(gen)
		score, elo, verdict = 0.7, 147, "accept"
	}
	steps := make([]any, 4)
	for i := range steps {
		step := int64(4*(gen-1) + i + 1)
		steps[i] = runfolder.MetricRecord{Gen: gen, Step: step, Samples: 8 * step, PolicyLoss: 2 - 0.05*float64(step), ValueLoss: 1.1 - 0.02*float64(step), Total: 3 - 0.07*float64(step), Time: at.Add(time.Duration(i) * time.Second)}
	}
	if err := run.AppendJSONL(runfolder.MetricsFile, steps...); err != nil {
		t.Fatal(err)
	}
	if err := run.AppendJSONL(runfolder.ArenaFile, runfolder.ArenaRecord{
		Gen: gen, Candidate: "candidates/" + runfolder.CandidateName(gen), Best: "accepted/0000.ckpt", Games: 20,
		Wins: int(score * 20), Draws: 0, Losses: 20 - int(score*20), Score: score, Elo: elo, EloLow: elo - 100, EloHigh: elo + 100,
		Verdict: verdict, Promoted: promoted, Time: at,
	}); err != nil {
		t.Fatal(err)
	}
	if err := run.WriteRecord(&runfolder.GenerationRecord{
		Gen: gen, Games: 4, Positions: 100 + gen, TotalGames: 4 * gen, Steps: 4, PolicyLoss: 2 - 0.1*float64(gen),
		ValueLoss: 1 - 0.05*float64(gen), Candidate: best, Score: score, Elo: elo, Promoted: promoted, Best: best,
		SelfPlaySec: 30, TrainSec: 10 + float64(gen), ArenaSec: 5, Finished: at,
	}); err != nil {
		t.Fatal(err)
	}
}

// addMatchGames plays a match of the given games between the players a
// and b (arena player specs; short games) and keeps it as the trainer
// does, as generation gen's games of kind.
func addMatchGames(t testing.TB, run *runfolder.Run, kind runfolder.MatchKind, gen int, a, b string, games int) {
	t.Helper()
	pa, err := arena.ParsePlayer(a)
	if err != nil {
		t.Fatal(err)
	}
	pb, err := arena.ParsePlayer(b)
	if err != nil {
		t.Fatal(err)
	}
	var played []arena.GameResult
	res, err := arena.Match(context.Background(), pa, pb, arena.MatchOptions{
		Games: games, Seed: int64(gen), MaxPlies: 40, OnGame: func(g arena.GameResult) { played = append(played, g) },
	})
	if err != nil {
		t.Fatal(err)
	}
	err = arena.WriteCounted(run.MatchGamesPath(kind, gen), played, res.Games(),
		rules.Tag{Name: "Event", Value: fmt.Sprintf("dama %s of generation %d", kind, gen)}, rules.Tag{Name: "Generation", Value: fmt.Sprint(gen)})
	if err != nil {
		t.Fatal(err)
	}
}

func copyFile(t testing.TB, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
