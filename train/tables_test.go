package train

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"dama/rules"
	"dama/runfolder"
	"dama/selfplay"
	"dama/tb"
	"dama/tb/tbtest"
)

// TestTableValueTargets: with tables, a position they answer for gets its
// exact W/D/L as value target, whatever the game's result and the value
// target mix; a position they do not answer for (too many pieces, or seen
// before in the game) keeps the mixed game result.
func TestTableValueTargets(t *testing.T) {
	_, tables := tbtest.Tables(t, 3)
	ply := func(fen string, reps, quiet int) selfplay.Ply {
		p, err := rules.ParseFEN(fen)
		if err != nil {
			t.Fatal(err)
		}
		legal := p.Legal(nil)
		visits := make([]uint32, len(legal))
		for i := range visits {
			visits[i] = 1
		}
		return selfplay.Ply{Pos: p, Legal: legal, Visits: visits, Full: true, WDL: [3]float32{0.2, 0.6, 0.2}, Repetitions: reps, QuietPlies: quiet}
	}
	// Not one game: Samples does not replay the moves.
	g := &selfplay.Game{Result: rules.Draw, Plies: []selfplay.Ply{
		ply(rules.Start().FEN(), 0, 0),
		ply("W:WK29,K32:BK1", 0, 0),  // won for White
		ply("B:WK29,K32:BK10", 0, 0), // lost for Black
		ply("W:WK29,K32:BK1", 0, 70), // too late for the 40-move rule: a draw
		ply("W:WK29,K32:BK1", 1, 0),  // seen before: not the tables'
	}}
	mixed := [3]float32{0.1, 0.8, 0.1} // a draw mixed half with the search's 0.2/0.6/0.2
	want := [][3]float32{mixed, {1, 0, 0}, {0, 0, 1}, {0, 1, 0}, mixed}
	s := targetOptions{ValueTargetMix: 0.5, Tables: tables}.Samples(g, nil)
	if len(s) != len(want) {
		t.Fatalf("%d samples, want %d", len(s), len(want))
	}
	for i := range s {
		for k := range 3 {
			if d := s[i].WDL[k] - want[i][k]; d > 1e-6 || d < -1e-6 {
				t.Errorf("sample %d (%s): value target %v, want %v", i, g.Plies[i].Pos.FEN(), s[i].WDL, want[i])
				break
			}
		}
	}
	// Without tables every target is the mixed result.
	for i, x := range (targetOptions{ValueTargetMix: 0.5}).Samples(g, nil) {
		if x.WDL != s[0].WDL {
			t.Errorf("no tables, sample %d: value target %v, want %v", i, x.WDL, s[0].WDL)
		}
	}
}

// TestAutoTablesRun: with selfplay.tables "auto:3" a run generates the
// tables of up to 3 pieces into the user's cache folder before its first
// game (and says so), its self-play games end in them (table
// adjudications, which the trainer's check accepted into the generation),
// and the archived configuration keeps "auto:3", not the folder.
func TestAutoTablesRun(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a tiny network for one generation")
	}
	cache := tbtest.Cache(t)
	cfg := loadConfig(t, "quick",
		"run.generations=1", "model.preset=tiny", "selfplay.tables=auto:3",
		"selfplay.games_per_generation=16", "selfplay.parallel=16", "selfplay.visits=8", "selfplay.max_plies=400",
		"selfplay.resign_threshold=0",
		"train.batch=16", "train.window_min=100", "train.window_max=3000", "train.steps_per_generation=4",
		"arena.games=2", "arena.parallel=2", "arena.visits=2", "arena.max_plies=20", "ladder.every=0",
	)
	dir := filepath.Join(t.TempDir(), "run")
	var log strings.Builder
	if err := Loop(context.Background(), Options{Config: cfg, Dir: dir, SelfPlay: true, Revision: "test", Log: &log}); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	tablesDir, err := tb.CacheDir(3)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(tablesDir, cache) || !strings.Contains(log.String(), fmt.Sprintf("endgame tables of up to 3 pieces: generated %d of %[1]d signatures into %s", len(tb.Signatures(3)), tablesDir)) {
		t.Errorf("tables folder %s (cache %s), log:\n%s", tablesDir, cache, log.String())
	}
	if strings.Index(log.String(), "endgame tables") > strings.Index(log.String(), "gen 1:") {
		t.Errorf("the tables came after the first generation:\n%s", log.String())
	}
	tables, err := tb.Open(tablesDir)
	if err != nil {
		t.Fatal(err)
	}
	run, err := runfolder.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	archived, err := run.Config()
	if err != nil || archived.SelfPlay.Tables != "auto:3" {
		t.Fatalf("archived configuration: %v, selfplay.tables %q", err, archived.SelfPlay.Tables)
	}
	rec, err := run.ReadRecord(1)
	if err != nil {
		t.Fatal(err)
	}
	adjudicated := 0
	for _, c := range rec.Chunks {
		_, games, err := selfplay.ReadFile(run.Path(runfolder.GamesDir, c))
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range games {
			if g.End != selfplay.Tables {
				continue
			}
			adjudicated++
			rg := rules.NewGame(g.Start)
			for _, p := range g.Plies {
				rg.PlayUnchecked(p.Played())
			}
			if r, ok := selfplay.TableResult(tables, rg); !ok || r != g.Result {
				t.Errorf("%s: game %d adjudicated %s at %s, the tables: %s %v", c, g.Seed, g.Result, rg.Position().FEN(), r, ok)
			}
		}
	}
	t.Logf("%d of %d games ended in the tables", adjudicated, rec.Games)
	if adjudicated == 0 {
		t.Errorf("no game of %d ended in the tables", rec.Games)
	}
}
