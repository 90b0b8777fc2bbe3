package web

import (
	"context"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"dama/rules"
	"dama/runfolder"
)

// readKept reads generation gen's kept games of kind in run.
func readKept(t *testing.T, run *runfolder.Run, kind runfolder.MatchKind, gen int) []rules.Record {
	t.Helper()
	b, err := os.ReadFile(run.MatchGamesPath(kind, gen))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := rules.ParsePDN(string(b))
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// The games list holds the kept gating and ladder games beside the
// self-play ones, newest first by the run's order, and filters them by
// kind, generation, result and length.
func TestMatchGamesList(t *testing.T) {
	s, ts := newTestServer(t, Options{})
	arenaRecs := readKept(t, s.opt.Run, runfolder.ArenaGames, 2)
	var all, self gamesJSON
	get(t, ts, "/api/games?limit=500", 200, &all)
	get(t, ts, "/api/games?kind=selfplay&limit=500", 200, &self)
	if all.Total != self.Matched+8 || all.Matched != all.Total || !all.Complete {
		t.Fatalf("all kinds: %d games (complete %v), want the %d self-play games and 8 match games", all.Total, all.Complete, self.Matched)
	}
	// Waiting self-play games first, then generation 2's ladder rating
	// and gating match, then the self-play games generation 1 trained on.
	var order []string
	for _, g := range all.Games {
		k := g.Kind
		if k == selfPlayKind && g.Gen == 0 {
			k = "waiting"
		}
		if len(order) == 0 || order[len(order)-1] != k {
			order = append(order, k)
		}
	}
	if want := []string{"waiting", "ladder", "arena", "selfplay"}; !slices.Equal(order, want) {
		t.Errorf("kinds in list order %v, want %v", order, want)
	}
	var ar gamesJSON
	get(t, ts, "/api/games?kind=arena", 200, &ar)
	if ar.Matched != len(arenaRecs) {
		t.Fatalf("kind=arena: %d games, the file has %d", ar.Matched, len(arenaRecs))
	}
	for i, g := range ar.Games {
		r := arenaRecs[i]
		white, _ := r.Tag("White")
		black, _ := r.Tag("Black")
		if g.ID != "a2-"+strconv.Itoa(i) || g.Kind != "arena" || g.Gen != 2 || g.Chunk != "0002.arena.pdn" ||
			g.White != white || g.Black != black || g.Plies != len(r.Moves) || g.Result != r.Result.String() || g.End == "" {
			t.Errorf("arena game %d: %+v, want the file's game %d (%s vs %s, %d plies, %s)", i, g, i, white, black, len(r.Moves), r.Result)
		}
	}
	var lad gamesJSON
	get(t, ts, "/api/games?kind=ladder&gen=2", 200, &lad)
	if lad.Matched != 4 || lad.Games[0].ID != "l2-0" || lad.Games[0].Kind != "ladder" {
		t.Errorf("kind=ladder&gen=2: %+v", lad)
	}
	var none gamesJSON
	get(t, ts, "/api/games?kind=arena&gen=1", 200, &none)
	if none.Matched != 0 {
		t.Errorf("kind=arena&gen=1 (no file): %d games", none.Matched)
	}
	wins := 0
	for _, r := range arenaRecs {
		if r.Result == rules.WhiteWins {
			wins++
		}
	}
	var ww gamesJSON
	get(t, ts, "/api/games?kind=arena&result=white", 200, &ww)
	if ww.Matched != wins {
		t.Errorf("kind=arena&result=white: %d games, the file has %d won by White", ww.Matched, wins)
	}
	short := len(arenaRecs[0].Moves)
	var l gamesJSON
	get(t, ts, "/api/games?kind=arena&min="+strconv.Itoa(short)+"&max="+strconv.Itoa(short), 200, &l)
	if l.Matched == 0 {
		t.Errorf("kind=arena, %d plies: none listed", short)
	}
	for _, g := range l.Games {
		if g.Plies != short {
			t.Errorf("kind=arena, %d plies: lists %+v", short, g)
		}
	}

	// A restarted generation rewrites its file: the list follows it. A
	// file that does not read is named, the others still list.
	addMatchGames(t, s.opt.Run, runfolder.ArenaGames, 2, "alphabeta:1", "random", 2)
	future := time.Now().Add(time.Hour)
	if err := os.Chtimes(s.opt.Run.MatchGamesPath(runfolder.ArenaGames, 2), future, future); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.opt.Run.MatchGamesPath(runfolder.LadderGames, 3), []byte(`[Event "x"] 1. 99-1 *`), 0o644); err != nil {
		t.Fatal(err)
	}
	var again gamesJSON
	get(t, ts, "/api/games?kind=arena", 200, &again)
	if again.Matched != 2 {
		t.Errorf("after the file was rewritten with 2 games: %d listed", again.Matched)
	}
	if len(again.Problems) != 1 || !strings.HasPrefix(again.Problems[0], "0003.ladder.pdn: ") {
		t.Errorf("problems %q, want the bad ladder file named", again.Problems)
	}
	get(t, ts, "/api/game?id=l3-0", 404, nil)
}

// A kept match game replays move by move, says it has no search
// statistics (no blank W/D/L), and downloads as PDN, alone or with its
// whole match; bad ids get one clear line.
func TestMatchGameReplayAndPDN(t *testing.T) {
	s, ts := newTestServer(t, Options{})
	recs := readKept(t, s.opt.Run, runfolder.LadderGames, 2)
	want := recs[1]
	var g struct {
		gameJSON
		Kind         string
		Gen          int
		White, Black string
		Stats        bool
	}
	body := get(t, ts, "/api/game?id=l2-1", 200, &g)
	if g.Kind != "ladder" || g.Gen != 2 || g.Stats || len(g.Plies) != len(want.Moves) || g.Result != want.Result.String() || g.Start != boardString(want.Start) {
		t.Fatalf("game l2-1: %s gen %d stats %v, %d plies %s; want ladder 2, no stats, %d plies %s", g.Kind, g.Gen, g.Stats, len(g.Plies), g.Result, len(want.Moves), want.Result)
	}
	if w, _ := want.Tag("White"); g.White != w {
		t.Errorf("White %q, want %q", g.White, w)
	}
	if strings.Contains(body, `"wdl"`) || strings.Contains(body, `"top"`) {
		t.Errorf("a match game's replay has search fields: %s", body)
	}
	p := want.Start
	for i, ply := range g.Plies {
		m := want.Moves[i]
		side := p.Side().String()
		p = p.Play(m)
		if ply.Move != m.String() || ply.Board != boardString(p) || ply.Side != side {
			t.Fatalf("ply %d: %s %s %s, want %s %s %s", i+1, ply.Move, ply.Board, ply.Side, m, boardString(p), side)
		}
	}
	pdn := get(t, ts, "/api/game.pdn?id=l2-1", 200, nil)
	back, err := rules.ParsePDN(pdn)
	if err != nil || len(back) != 1 || !slices.Equal(back[0].Moves, want.Moves) || back[0].Start != want.Start {
		t.Fatalf("PDN of game l2-1 does not read back: %v\n%s", err, pdn)
	}
	if gen, _ := back[0].Tag("Generation"); gen != "2" {
		t.Errorf("PDN of game l2-1: Generation %q", gen)
	}
	whole := get(t, ts, "/api/match.pdn?kind=ladder&gen=2", 200, nil)
	if all, err := rules.ParsePDN(whole); err != nil || len(all) != len(recs) {
		t.Errorf("the whole ladder match: %d games (%v), want %d", len(all), err, len(recs))
	}
	for _, c := range []struct{ id, why string }{
		{"x2-0", "unknown kind"}, {"A2-0", "unknown kind"}, {"a", "want aGENERATION-GAME"}, {"a2", "want aGENERATION-GAME"},
		{"a2-", "want aGENERATION-GAME"}, {"a0-0", "want aGENERATION-GAME"}, {"a-1-0", "want aGENERATION-GAME"},
		{"a+2-0", "want aGENERATION-GAME"}, {"a02-0", "want aGENERATION-GAME"}, {"a2--1", "want aGENERATION-GAME"},
		{"a2-0/../x", "want aGENERATION-GAME"}, {"a2-99999999999999999999", "want aGENERATION-GAME"},
		{"a2-4", "has 4 games"}, {"l2-99", "has 4 games"}, {"a3-0", "keeps no arena games of generation 3"},
		{"l1-0", "keeps no ladder games of generation 1"},
	} {
		for _, path := range []string{"/api/game?id=", "/api/game.pdn?id="} {
			msg := get(t, ts, path+url.QueryEscape(c.id), 404, nil)
			if !strings.Contains(msg, c.why) || strings.Count(strings.TrimSpace(msg), "\n") > 0 {
				t.Errorf("%s%s: %q, want one line saying %q", path, c.id, msg, c.why)
			}
		}
	}
	for _, q := range []string{"kind=x&gen=2", "kind=selfplay&gen=2", "kind=arena&gen=0", "kind=arena&gen=x", "kind=arena"} {
		get(t, ts, "/api/match.pdn?"+q, 400, nil)
	}
	get(t, ts, "/api/match.pdn?kind=arena&gen=3", 404, nil)
}

// The event stream tells the page when new games come: a gating match's
// games kept after the page opened.
func TestEventsPushNewGames(t *testing.T) {
	s, ts := newTestServer(t, Options{Poll: 10 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	events := readEvents(ctx, t, ts.URL+"/api/events")
	for ev := range events {
		if ev.name == "games" {
			if !strings.Contains(ev.data, `"arena":[2]`) || !strings.Contains(ev.data, `"ladder":[2]`) {
				t.Fatalf("first games event %s, want generation 2's arena and ladder games", ev.data)
			}
			break
		}
	}
	addMatchGames(t, s.opt.Run, runfolder.ArenaGames, 4, "random", "random", 2)
	for ev := range events {
		if ev.name == "games" {
			if !strings.Contains(ev.data, `"arena":[2,4]`) {
				t.Fatalf("games event %s, want generation 4's arena games", ev.data)
			}
			return
		}
	}
	t.Fatal("the stream ended before the new games were pushed")
}

// BenchmarkMatchFileRead reads a kept gating match of 40 games (alphabeta:2
// against random, up to 40 plies) as a listing first does, parsing and
// checking every move; plies/s is what bounds the first listing of a run.
func BenchmarkMatchFileRead(b *testing.B) {
	run := testRun(b)
	addMatchGames(b, run, runfolder.ArenaGames, 5, "alphabeta:2", "random", 40)
	f := matchFile{runfolder.ArenaGames, 5}
	games, plies := 0, 0
	for b.Loop() {
		x := newMatchIndex(run)
		e, ok, _ := x.load(f, true)
		if !ok || e.err != "" {
			b.Fatalf("%v %s", ok, e.err)
		}
		games += len(e.games)
		for _, g := range e.games {
			plies += g.Plies
		}
	}
	b.ReportMetric(float64(games)/b.Elapsed().Seconds(), "games/s")
	b.ReportMetric(float64(plies)/b.Elapsed().Seconds(), "plies/s")
}
