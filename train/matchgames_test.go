package train

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"dama/rules"
	"dama/runfolder"
)

// readMatchGames reads the PDN file of generation gen's games of kind.
func readMatchGames(t *testing.T, run *runfolder.Run, kind runfolder.MatchKind, gen int) []rules.Record {
	t.Helper()
	b, err := os.ReadFile(run.MatchGamesPath(kind, gen))
	if err != nil {
		t.Fatalf("%s games of generation %d: %v", kind, gen, err)
	}
	recs, err := rules.ParsePDN(string(b))
	if err != nil {
		t.Fatalf("%s games of generation %d do not parse: %v", kind, gen, err)
	}
	for i, r := range recs {
		if g, _ := r.Tag("Generation"); g != strconv.Itoa(gen) {
			t.Errorf("%s game %d: Generation tag %q, want %d", kind, i+1, g, gen)
		}
		if op, _ := r.Tag("Opening"); op == "" {
			t.Errorf("%s game %d has no Opening tag", kind, i+1)
		}
		if ev, _ := r.Tag("Event"); !strings.Contains(ev, string(map[runfolder.MatchKind]string{runfolder.ArenaGames: "gating", runfolder.LadderGames: "ladder"}[kind])) {
			t.Errorf("%s game %d: Event %q", kind, i+1, ev)
		}
	}
	return recs
}

// checkArenaGames checks that generation gen's gating games are the games
// its arena.jsonl line counts, from the candidate's side.
func checkArenaGames(t *testing.T, run *runfolder.Run, gen int) {
	t.Helper()
	ar, err := (&loop{run: run}).findArena(gen)
	if err != nil || ar == nil {
		t.Fatalf("no gating record of generation %d: %v", gen, err)
	}
	recs := readMatchGames(t, run, runfolder.ArenaGames, gen)
	cand := filepath.Base(ar.Candidate)
	w, d, l := 0, 0, 0
	for i, r := range recs {
		white, _ := r.Tag("White")
		black, _ := r.Tag("Black")
		if white != cand && black != cand {
			t.Fatalf("gating game %d: %s vs %s, neither is the candidate %s", i+1, white, black, cand)
		}
		switch c, ok := r.Result.Winner(); {
		case !ok:
			d++
		case (c == rules.White) == (white == cand):
			w++
		default:
			l++
		}
	}
	if len(recs) != ar.Games || w != ar.Wins || d != ar.Draws || l != ar.Losses {
		t.Errorf("generation %d's gating PDN: %d games +%d =%d -%d; arena.jsonl: %d games +%d =%d -%d",
			gen, len(recs), w, d, l, ar.Games, ar.Wins, ar.Draws, ar.Losses)
	}
}

// checkLadderGames checks that generation gen's ladder games are those its
// ladder.jsonl line counts, each with the rated model as one player.
func checkLadderGames(t *testing.T, run *runfolder.Run, gen int) {
	t.Helper()
	var rec *runfolder.LadderRecord
	err := runfolder.ReadJSONL(run, runfolder.LadderFile, func(r runfolder.LadderRecord) error {
		if r.Gen == gen {
			rec = &r
		}
		return nil
	})
	if err != nil || rec == nil {
		t.Fatalf("no ladder record of generation %d: %v", gen, err)
	}
	recs := readMatchGames(t, run, runfolder.LadderGames, gen)
	if len(recs) != rec.Games {
		t.Errorf("generation %d's ladder PDN: %d games, ladder.jsonl counts %d", gen, len(recs), rec.Games)
	}
	model := filepath.Base(rec.Model) + "@"
	for i, r := range recs {
		white, _ := r.Tag("White")
		black, _ := r.Tag("Black")
		if !strings.HasPrefix(white, model) && !strings.HasPrefix(black, model) {
			t.Errorf("ladder game %d: %s vs %s, neither is the rated model %s", i+1, white, black, rec.Model)
		}
	}
}

// A gated and rated generation keeps the games of its gating match and of
// its ladder rating, as PDN that reads back and agrees with the records;
// a restart that plays the match or the rating again rewrites them.
func TestGenerationKeepsMatchGames(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a tiny network for one generation")
	}
	cfg := ratedConfig(t)
	dir := filepath.Join(t.TempDir(), "run")
	if err := Loop(context.Background(), Options{Config: cfg, Dir: dir, SelfPlay: true, Revision: "test"}); err != nil {
		t.Fatal(err)
	}
	run, err := runfolder.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	checkArenaGames(t, run, 1)
	checkLadderGames(t, run, 1)

	// A kill after the games were written, before their records: the
	// restart plays again and rewrites both files. The generation is
	// put back as it was after training (its candidate, the old best).
	for _, kind := range runfolder.MatchKinds {
		if err := os.WriteFile(run.MatchGamesPath(kind, 1), []byte("a stale file"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{runfolder.ArenaFile, runfolder.LadderFile, filepath.Join(runfolder.GenerationsDir, "0001.json")} {
		if err := os.Remove(run.Path(name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Rename(run.Path(run.FindCheckpoint(1)), run.Path(runfolder.CandidatesDir, runfolder.CandidateName(1))); err != nil {
		t.Fatal(err)
	}
	if err := run.SetBest(filepath.Join(runfolder.AcceptedDir, runfolder.CandidateName(0))); err != nil {
		t.Fatal(err)
	}
	if err := Loop(context.Background(), Options{Config: cfg, Dir: dir, SelfPlay: true, Revision: "test"}); err != nil {
		t.Fatal(err)
	}
	checkArenaGames(t, run, 1)
	checkLadderGames(t, run, 1)
}

// Without a gate no games are played, and none of an earlier attempt with
// a gate stay beside a record that played none.
func TestNoGateKeepsNoGames(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a tiny network for one generation")
	}
	cfg := ratedConfig(t, "arena.gating=none", "ladder.every=0")
	dir := filepath.Join(t.TempDir(), "run")
	run, err := runfolder.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	stale := run.MatchGamesPath(runfolder.ArenaGames, 1)
	if err := os.WriteFile(stale, []byte("games of an earlier gate"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Loop(context.Background(), Options{Config: cfg, Dir: dir, SelfPlay: true, Revision: "test"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("%s is still there after an ungated generation (%v)", stale, err)
	}
	if gens, err := run.MatchGamesGens(runfolder.LadderGames); err != nil || len(gens) != 0 {
		t.Errorf("ladder games %v (%v) with the ladder off", gens, err)
	}
}
