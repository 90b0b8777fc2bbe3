package web

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"dama/rules"
	"dama/runfolder"
	"dama/selfplay"
)

func newTestServer(t *testing.T, opt Options) (*Server, *httptest.Server) {
	t.Helper()
	if opt.Run == nil {
		opt.Run = testRun(t)
	}
	s, err := New(opt)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(func() { s.Close(); ts.Close() })
	return s, ts
}

// get fetches path and decodes its JSON into v (when v is not nil),
// failing unless the status is want; it returns the body.
func get(t *testing.T, ts *httptest.Server, path string, want int, v any) string {
	t.Helper()
	resp, err := http.Get(ts.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	return readResp(t, resp, "GET "+path, want, v)
}

func post(t *testing.T, ts *httptest.Server, path, body string, want int, v any) string {
	t.Helper()
	req, _ := http.NewRequest("POST", ts.URL+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(clientHeader, "testclient01")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return readResp(t, resp, "POST "+path+" "+body, want, v)
}

func readResp(t *testing.T, resp *http.Response, what string, want int, v any) string {
	t.Helper()
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		t.Fatalf("%s: status %d, want %d: %s", what, resp.StatusCode, want, b)
	}
	if v != nil {
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatalf("%s: %v: %s", what, err, b)
		}
	}
	return string(b)
}

type runJSON struct {
	Summary     summaryView      `json:"summary"`
	Generations []generationView `json:"generations"`
	Losses      [][5]*float64    `json:"losses"`
	Arena       struct {
		Promotion float64 `json:"promotion"`
		Matches   []struct {
			Gen      int     `json:"gen"`
			Score    float64 `json:"score"`
			Promoted bool    `json:"promoted"`
		} `json:"matches"`
	} `json:"arena"`
	Ladder []struct {
		Gen      int     `json:"gen"`
		Elo      float64 `json:"elo"`
		CPUHours float64 `json:"cpu_hours"`
	} `json:"ladder"`
	Times  timesView `json:"times"`
	Config struct {
		Text    string                   `json:"text"`
		Changes []runfolder.ConfigChange `json:"changes"`
	} `json:"config"`
	Chunks  chunksView   `json:"chunks"`
	Workers []workerView `json:"workers"`
}

func TestRunSections(t *testing.T) {
	_, ts := newTestServer(t, Options{})
	var r runJSON
	get(t, ts, "/api/run", 200, &r)
	if r.Summary.Generations != 4 || r.Summary.Name != "quick" || r.Summary.Best != "accepted/0000.ckpt" {
		t.Errorf("summary %+v", r.Summary)
	}
	if len(r.Generations) != 4 || r.Generations[3].Gen != 4 || !r.Generations[3].Promoted || r.Generations[2].Promoted {
		t.Errorf("generations %+v", r.Generations)
	}
	// The chained Elo adds the promoted generations' gating Elo: 2 and 4.
	if got := float64(r.Generations[3].ChainElo); got != 2*147 {
		t.Errorf("chained Elo after generation 4 %v, want %v", got, 2*147)
	}
	if len(r.Losses) == 0 || *r.Losses[0][0] > *r.Losses[len(r.Losses)-1][0] || r.Losses[0][4] == nil || *r.Losses[0][4] < 0 {
		t.Errorf("losses %v (want steps rising, hours from the start)", r.Losses)
	}
	if r.Arena.Promotion != 0.55 || len(r.Arena.Matches) != 4 || !r.Arena.Matches[1].Promoted || r.Arena.Matches[1].Score != 0.7 {
		t.Errorf("arena %+v", r.Arena)
	}
	if len(r.Ladder) != 2 || r.Ladder[1].Elo != 420 || r.Ladder[1].CPUHours != 1.1 {
		t.Errorf("ladder %+v", r.Ladder)
	}
	if !slices.Equal(r.Times.Gens, []int{1, 2, 3, 4}) || r.Times.Train[3] != 14 || r.Times.Ladder[3] != 30 {
		t.Errorf("times %+v", r.Times)
	}
	if !strings.Contains(r.Config.Text, "name: quick") || len(r.Config.Changes) != 1 || r.Config.Changes[0].Changes[0].Key != "selfplay.visits" {
		t.Errorf("config %+v", r.Config)
	}
	if len(r.Workers) != 2 || r.Workers[0].Name != "main" || r.Workers[1].Name != "w2" {
		t.Errorf("workers %+v", r.Workers)
	}
	if r.Chunks.Waiting != 1 || r.Chunks.Quarantined != 1 || len(r.Chunks.List) != 1 || r.Chunks.List[0].Why != "model digest unknown to the run" {
		t.Errorf("chunks %+v", r.Chunks)
	}
}

// A broken record is reported on the page, not a crash.
func TestRunSectionsBadRecord(t *testing.T) {
	s, ts := newTestServer(t, Options{})
	if err := os.WriteFile(s.opt.Run.Path(runfolder.GenerationsDir, "0005.json"), []byte(`{"gen": 5,`), 0o644); err != nil {
		t.Fatal(err)
	}
	body := get(t, ts, "/api/run", 500, nil)
	if !strings.Contains(body, "0005.json") {
		t.Errorf("error %q does not name the file", body)
	}
}

// sseEvent is one server-sent event.
type sseEvent struct{ name, data string }

// readEvents sends the events of the stream at path to the channel it
// returns until ctx ends.
func readEvents(ctx context.Context, t *testing.T, url string) <-chan sseEvent {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	ch := make(chan sseEvent, 64)
	go func() {
		defer resp.Body.Close()
		defer close(ch)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		var ev sseEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				ev.name = line[len("event: "):]
			case strings.HasPrefix(line, "data: "):
				ev.data = line[len("data: "):]
			case line == "" && ev.name != "":
				ch <- ev
				ev = sseEvent{}
			}
		}
	}()
	return ch
}

// The stream sends every section, then only the sections that changed.
func TestEventsSendChanges(t *testing.T) {
	s, ts := newTestServer(t, Options{Poll: 10 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	events := readEvents(ctx, t, ts.URL+"/api/events")
	got := map[string]string{}
	for len(got) < len(sectionNames) {
		ev, ok := <-events
		if !ok {
			t.Fatalf("stream ended after %v", got)
		}
		got[ev.name] = ev.data
	}
	for _, n := range sectionNames {
		if got[n] == "" {
			t.Errorf("no initial %s event", n)
		}
	}
	// A fifth generation finishes: its match, losses and record.
	addGeneration(t, s.opt.Run, 5, time.Date(2026, 12, 1, 5, 0, 0, 0, time.UTC))
	seen := map[string]bool{}
	for !seen["arena"] || !seen["generations"] {
		ev, ok := <-events
		if !ok {
			t.Fatalf("stream ended; saw %v", seen)
		}
		seen[ev.name] = true
		switch ev.name {
		case "config", "ladder", "chunks", "games":
			t.Errorf("section %s sent again, unchanged", ev.name)
		case "arena":
			if !strings.Contains(ev.data, `"gen":5`) {
				t.Errorf("arena event without generation 5: %s", ev.data)
			}
		}
	}
	// Training steps alone (every poll while a generation trains) reach
	// the page too, every metricsEvery polls.
	if err := s.opt.Run.AppendJSONL(runfolder.MetricsFile, runfolder.MetricRecord{Gen: 6, Step: 999, PolicyLoss: 0.25, ValueLoss: 0.125}); err != nil {
		t.Fatal(err)
	}
	for {
		ev, ok := <-events
		if !ok {
			t.Fatal("stream ended before the new step's losses")
		}
		if ev.name == "losses" && strings.Contains(ev.data, "[999,0.25,0.125,0,") {
			break
		}
	}
}

// Past Options.Streams open streams, another is refused.
func TestEventsLimit(t *testing.T) {
	_, ts := newTestServer(t, Options{Streams: 1})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	events := readEvents(ctx, t, ts.URL+"/api/events")
	<-events
	get(t, ts, "/api/events", http.StatusServiceUnavailable, nil)
	cancel()
	for range events {
	}
	// The slot is free again once the first stream is gone.
	ctx2, cancel2 := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel2()
	for {
		resp, err := http.Get(ts.URL + "/api/events")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode == 200 {
			break
		}
		if ctx2.Err() != nil {
			t.Fatal("the stream slot was not given back")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Closing the server ends the open streams.
func TestEventsEndOnClose(t *testing.T) {
	s, ts := newTestServer(t, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	events := readEvents(ctx, t, ts.URL+"/api/events")
	<-events
	s.Close()
	for range events {
	}
	if ctx.Err() != nil {
		t.Error("the stream outlived Close")
	}
}

type gamesJSON struct {
	Total, Matched int
	Complete       bool
	Games          []gameSummary
	Gens           []int
	Problems       []string
}

func TestGamesList(t *testing.T) {
	s, ts := newTestServer(t, Options{})
	var all gamesJSON
	get(t, ts, "/api/games?kind=selfplay", 200, &all)
	_, sample, err := selfplay.ReadFile(s.opt.Run.Path(runfolder.GamesDir, "chunk-main-000000.dgames"))
	if err != nil {
		t.Fatal(err)
	}
	_, waiting, err := selfplay.ReadFile("../selfplay/testdata/games-v3.dgames")
	if err != nil {
		t.Fatal(err)
	}
	if all.Matched != len(sample)+len(waiting) || !slices.Equal(all.Gens, []int{0, 1, 2}) {
		t.Fatalf("list: %d self-play games, gens %v, want %d and [0 1 2] (2: the kept match games)", all.Matched, all.Gens, len(sample)+len(waiting))
	}
	var g1 gamesJSON
	get(t, ts, "/api/games?kind=selfplay&gen=1", 200, &g1)
	if g1.Matched != len(sample) {
		t.Errorf("gen=1: %d games, want %d", g1.Matched, len(sample))
	}
	draws := 0
	for _, g := range append(sample, waiting...) {
		if g.Result == rules.Draw {
			draws++
		}
	}
	var d gamesJSON
	get(t, ts, "/api/games?kind=selfplay&result=draw", 200, &d)
	if d.Matched != draws {
		t.Errorf("result=draw: %d games, want %d", d.Matched, draws)
	}
	for _, g := range d.Games {
		if g.Winner != "draw" {
			t.Errorf("result=draw lists %+v", g)
		}
	}
	short := len(sample[0].Plies)
	var l gamesJSON
	get(t, ts, fmt.Sprintf("/api/games?kind=selfplay&min=%d&max=%d", short, short), 200, &l)
	for _, g := range l.Games {
		if g.Plies != short {
			t.Errorf("min=max=%d lists %+v", short, g)
		}
	}
	if l.Matched == 0 {
		t.Errorf("min=max=%d lists nothing", short)
	}
	var page gamesJSON
	get(t, ts, "/api/games?kind=selfplay&offset=1&limit=2", 200, &page)
	if len(page.Games) != 2 || page.Games[0].ID != all.Games[1].ID {
		t.Errorf("offset=1&limit=2: %+v", page.Games)
	}
	for _, bad := range []string{"gen=x", "result=white-ish", "min=-1", "limit=0", "limit=100000", "offset=no", "kind=arenas", "kind=Arena"} {
		get(t, ts, "/api/games?"+bad, 400, nil)
	}
}

type gameJSON struct {
	ID, Result, Start string
	Plies             []plyView
}

func TestGameReplayAndPDN(t *testing.T) {
	s, ts := newTestServer(t, Options{})
	_, games, err := selfplay.ReadFile(s.opt.Run.Path(runfolder.GamesDir, "chunk-main-000000.dgames"))
	if err != nil {
		t.Fatal(err)
	}
	want := games[2]
	var g gameJSON
	get(t, ts, "/api/game?id=0-2", 200, &g)
	if len(g.Plies) != len(want.Plies) || g.Result != want.Result.String() || g.Start != boardString(want.Start) {
		t.Fatalf("game 0-2: %d plies %s, want %d %s", len(g.Plies), g.Result, len(want.Plies), want.Result)
	}
	p := want.Start
	for i, ply := range g.Plies {
		m := want.Plies[i].Played()
		p = p.Play(m)
		if ply.Move != m.String() || ply.Board != boardString(p) {
			t.Fatalf("ply %d: %s %s, want %s %s", i+1, ply.Move, ply.Board, m, boardString(p))
		}
		if len(ply.Top) == 0 || len(ply.Top) > topShown {
			t.Fatalf("ply %d: %d top moves", i+1, len(ply.Top))
		}
	}
	pdn := get(t, ts, "/api/game.pdn?id=0-2", 200, nil)
	recs, err := rules.ParsePDN(pdn)
	if err != nil || len(recs) != 1 || !slices.Equal(recs[0].Moves, want.Moves()) {
		t.Errorf("PDN of game 0-2 does not read back: %v\n%s", err, pdn)
	}
	for _, bad := range []string{"", "x", "0", "0-", "-1-0", "0--1", "../games/chunk-main-000000.dgames", "9-0", "0-4", "0-99999999999999999999", "0-2/../1"} {
		get(t, ts, "/api/game?id="+url.QueryEscape(bad), 404, nil)
		get(t, ts, "/api/game.pdn?id="+url.QueryEscape(bad), 404, nil)
	}
}

// A chunk that does not decode is named in the listing; the others list.
func TestGamesUnreadableChunk(t *testing.T) {
	s, ts := newTestServer(t, Options{})
	if err := os.WriteFile(s.opt.Run.Path(runfolder.GamesDir, "chunk-zz-000000.dgames"), []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	var l gamesJSON
	get(t, ts, "/api/games", 200, &l)
	if len(l.Problems) != 1 || !strings.Contains(l.Problems[0], "chunk-zz-000000.dgames") || l.Total == 0 {
		t.Errorf("problems %v, total %d", l.Problems, l.Total)
	}
}

func TestPosition(t *testing.T) {
	_, ts := newTestServer(t, Options{})
	var v positionView
	post(t, ts, "/api/position", `{"moves": ["22-18", "10-14"]}`, 200, &v)
	g := rules.NewGame(rules.Start())
	for _, s := range []string{"22-18", "10-14"} {
		m, err := rules.ParseMove(g.Position(), s)
		if err != nil {
			t.Fatal(err)
		}
		g.PlayUnchecked(m)
	}
	var want []string
	for _, m := range g.Legal(nil) {
		want = append(want, m.String())
	}
	var got []string
	for _, m := range v.Legal {
		got = append(got, m.Move)
	}
	if v.Last == nil || v.Last.Move != "10-14" || !slices.Equal(v.Last.Path, []int{10, 14}) {
		t.Errorf("last move %+v, want 10-14", v.Last)
	}
	if v.FEN != g.Position().FEN() || !slices.Equal(got, want) || v.Side != "white" {
		t.Errorf("position %s legal %v, want %s %v", v.FEN, got, g.Position().FEN(), want)
	}
	// After 21-17 Black must capture 14x21: rules refuse another move.
	body := post(t, ts, "/api/position", `{"moves": ["22-18", "10-14", "21-17", "11-15"]}`, 400, nil)
	if !strings.Contains(body, `move 4 "11-15"`) {
		t.Errorf("illegal move error %q does not name the move", body)
	}
	post(t, ts, "/api/position", `{"moves": ["22-99"]}`, 400, nil)
	post(t, ts, "/api/position", `{"start": "W:Wxx"}`, 400, nil)
	post(t, ts, "/api/position", `{"moves": 3}`, 400, nil)
	post(t, ts, "/api/position", `{"mvoes": []}`, 400, nil)
	// Black has no piece: the game is over, and no move may follow.
	var over positionView
	post(t, ts, "/api/position", `{"start": "B:W18:B"}`, 200, &over)
	if !over.Over || len(over.Legal) != 0 {
		t.Errorf("game without black pieces: %+v", over)
	}
	post(t, ts, "/api/engine", `{"start": "B:W18:B", "model": "random"}`, 400, nil)
	req, _ := http.NewRequest("POST", ts.URL+"/api/position", strings.NewReader(`{}`))
	req.Header.Set("Content-Type", "text/plain")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	readResp(t, resp, "text/plain body", http.StatusUnsupportedMediaType, nil)
	get(t, ts, "/api/position", http.StatusNotFound, nil) // POST only
}

func TestEngineMove(t *testing.T) {
	_, ts := newTestServer(t, Options{})
	for _, model := range []string{RandomModel, ShippedModel} {
		var r struct {
			Move     string
			Visits   int
			Position positionView
		}
		post(t, ts, "/api/engine", `{"moves": ["22-18"], "visits": 16, "model": "`+model+`"}`, 200, &r)
		p := rules.Start().Play(mustMove(t, rules.Start(), "22-18"))
		m := mustMove(t, p, r.Move)
		if r.Position.FEN != p.Play(m).FEN() || r.Position.Side != "white" || len(r.Position.Moves) != 2 {
			t.Errorf("%s: reply %s leads to %s", model, r.Move, r.Position.FEN)
		}
		if r.Visits < 1 {
			t.Errorf("%s: %d visits", model, r.Visits)
		}
	}
	for _, bad := range []string{
		`{"model": "nonexistent"}`, `{"model": "../../../etc/passwd"}`, `{"model": "accepted/0000.ckpt"}`,
		`{"visits": 100000000}`, `{"visits": -1}`, `{"ms": 999999}`, `{"ms": -5}`,
	} {
		post(t, ts, "/api/engine", bad, 400, nil)
	}
}

func mustMove(t *testing.T, p rules.Position, s string) rules.Move {
	t.Helper()
	m, err := rules.ParseMove(p, s)
	if err != nil {
		t.Fatalf("%s: %v", p.FEN(), err)
	}
	return m
}

func TestAnalyze(t *testing.T) {
	_, ts := newTestServer(t, Options{})
	fen := "W:W21,22,23:B9,10"
	var a struct {
		FEN    string
		NetWDL [3]float32 `json:"net_wdl"`
		Priors []struct {
			Move  string
			Prior float32
		}
		Moves []struct {
			Move   string
			Visits int
		}
		PV []struct{ Move string }
	}
	post(t, ts, "/api/analyze", `{"start": "`+fen+`", "visits": 64, "model": "shipped", "top": 3}`, 200, &a)
	p, _ := rules.ParseFEN(fen)
	if a.FEN != p.FEN() || len(a.Priors) != 3 || len(a.Moves) != 3 || len(a.PV) == 0 {
		t.Fatalf("analysis %+v", a)
	}
	if a.Priors[0].Prior < a.Priors[1].Prior || a.Moves[0].Visits < a.Moves[1].Visits {
		t.Errorf("not ordered: %+v", a)
	}
	if s := a.NetWDL[0] + a.NetWDL[1] + a.NetWDL[2]; s < 0.99 || s > 1.01 {
		t.Errorf("network W/D/L sums to %v", s)
	}
	pos := p
	for _, st := range a.PV { // the PV is a line of legal moves
		pos = pos.Play(mustMove(t, pos, st.Move))
	}
}

// One search at a time per client; a full server refuses, not queues.
func TestSearchSlots(t *testing.T) {
	s, ts := newTestServer(t, Options{Searches: 1})
	s.mu.Lock()
	s.busy["id:testclient01"] = true
	s.mu.Unlock()
	post(t, ts, "/api/engine", `{"model": "random", "visits": 4}`, http.StatusTooManyRequests, nil)
	s.mu.Lock()
	delete(s.busy, "id:testclient01")
	s.sem <- struct{}{}
	s.mu.Unlock()
	post(t, ts, "/api/analyze", `{"model": "random", "visits": 4}`, http.StatusServiceUnavailable, nil)
	<-s.sem
	post(t, ts, "/api/engine", `{"model": "random", "visits": 4}`, 200, nil)
	if len(s.busy) != 0 || len(s.sem) != 0 {
		t.Errorf("slots held after the search: %v, %d", s.busy, len(s.sem))
	}
}

func TestModels(t *testing.T) {
	s, ts := newTestServer(t, Options{})
	var m struct{ Models []string }
	get(t, ts, "/api/models", 200, &m)
	if !slices.Equal(m.Models, []string{ShippedModel, RandomModel}) {
		t.Errorf("models %v (the sample run keeps no checkpoint)", m.Models)
	}
	// A checkpoint of the run is offered and plays; "best" names it.
	shipped := "../checkpoints/shipped/dama.ckpt"
	copyFile(t, shipped, s.opt.Run.Path(runfolder.AcceptedDir, "0000.ckpt"))
	copyFile(t, shipped, s.opt.Run.Path(runfolder.RejectedDir, "0001.ckpt"))
	get(t, ts, "/api/models", 200, &m)
	want := []string{ShippedModel, RandomModel, BestModel, "accepted/0000.ckpt", "rejected/0001.ckpt"}
	if !slices.Equal(m.Models, want) {
		t.Errorf("models %v, want %v", m.Models, want)
	}
	for _, id := range []string{"rejected/0001.ckpt", BestModel} {
		post(t, ts, "/api/engine", `{"model": "`+id+`", "visits": 8}`, 200, nil)
	}
	post(t, ts, "/api/engine", `{"model": "rejected/../accepted/0000.ckpt", "visits": 8}`, 400, nil)
}

func TestPDN(t *testing.T) {
	_, ts := newTestServer(t, Options{})
	text := post(t, ts, "/api/pdn", `{"moves": ["22-18", "10-14", "21-17", "14x21"]}`, 200, nil)
	recs, err := rules.ParsePDN(text)
	if err != nil || len(recs) != 1 || len(recs[0].Moves) != 4 {
		t.Errorf("PDN %q: %v", text, err)
	}
}

func TestStatic(t *testing.T) {
	_, ts := newTestServer(t, Options{})
	if body := get(t, ts, "/", 200, nil); !strings.Contains(body, `src="app.js"`) {
		t.Errorf("index without app.js: %s", body)
	}
	for _, f := range []string{"/app.js", "/style.css"} {
		get(t, ts, f, 200, nil)
	}
	get(t, ts, "/nothing.js", 404, nil)
}

// Without a token only loopback host names are served (against DNS
// rebinding: a page of another site that resolves to 127.0.0.1).
func TestLoopbackHost(t *testing.T) {
	s, _ := newTestServer(t, Options{})
	for host, want := range map[string]int{
		"localhost:8080": 200, "127.0.0.1:8080": 200, "[::1]:8080": 200, "LOCALHOST": 200,
		"evil.example:8080": 403, "192.168.1.5:8080": 403, "": 403,
	} {
		req := httptest.NewRequest("GET", "/api/models", nil)
		req.Host = host
		w := httptest.NewRecorder()
		s.ServeHTTP(w, req)
		if w.Code != want {
			t.Errorf("Host %q: status %d, want %d", host, w.Code, want)
		}
	}
}

func TestToken(t *testing.T) {
	const tok = "0123456789abcdef0123"
	s, ts := newTestServer(t, Options{Token: tok})
	get(t, ts, "/api/models", 401, nil)
	get(t, ts, "/api/models?token=wrong", 401, nil)
	get(t, ts, "/api/models?token="+tok, 200, nil)
	req, _ := http.NewRequest("GET", ts.URL+"/api/models", nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	readResp(t, resp, "bearer", 200, nil)
	// The page's address: the token becomes a cookie and leaves the URL.
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err = noRedirect.Get(ts.URL + "/?token=" + tok)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Fatalf("page with token: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	var cookie *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == tokenCookie {
			cookie = c
		}
	}
	if cookie == nil || cookie.Value != tok || !cookie.HttpOnly {
		t.Fatalf("cookie %+v", cookie)
	}
	req, _ = http.NewRequest("GET", ts.URL+"/api/run", nil)
	req.AddCookie(cookie)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	readResp(t, resp, "cookie", 200, nil)
	// With a token any Host is served: the token is the guard.
	r := httptest.NewRequest("GET", "/api/models?token="+tok, nil)
	r.Host = "dama.example:8080"
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	if w.Code != 200 {
		t.Errorf("token on a non-loopback host: %d", w.Code)
	}
}

func TestListen(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:8080": true, "localhost:8080": true, "[::1]:8080": true, "127.0.0.2:80": true,
		":8080": false, "0.0.0.0:8080": false, "192.168.1.5:8080": false, "[::]:8080": false,
	} {
		if got, err := IsLoopback(addr); err != nil || got != want {
			t.Errorf("IsLoopback(%q) = %v, %v; want %v", addr, got, err, want)
		}
	}
	if _, err := IsLoopback("8080"); err == nil {
		t.Error("IsLoopback(8080): no error")
	}
	if _, err := Listen("0.0.0.0:0", ""); err == nil || !strings.Contains(err.Error(), "token") {
		t.Errorf("Listen beyond loopback without a token: %v", err)
	}
	if _, err := Listen(":0", "short"); err == nil {
		t.Error("Listen beyond loopback with a short token: no error")
	}
	ln, err := Listen("127.0.0.1:0", "")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if u := URL(ln, ""); !strings.HasPrefix(u, "http://127.0.0.1:") {
		t.Errorf("URL %q", u)
	}
	if u := URL(ln, "abc"); !strings.HasSuffix(u, "/?token=abc") {
		t.Errorf("URL with token %q", u)
	}
}

// Serve stops when its context ends, even with a stream open.
func TestServeStops(t *testing.T) {
	s, err := New(Options{Run: testRun(t)})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := Listen("127.0.0.1:0", "")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, ln, s) }()
	sctx, scancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer scancel()
	events := readEvents(sctx, t, URL(ln, "")+"api/events")
	<-events
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Serve: %v", err)
	}
	for range events {
	}
	if sctx.Err() != nil {
		t.Error("the stream outlived Serve")
	}
}

// BenchmarkReadSections measures what the watcher does when the run
// changed: read the run folder whole (here a run of 10000 training steps,
// as a long run's metrics.jsonl) into the page's sections. The watcher
// does it at most every Poll, and waits 20 times a read's time, so its
// share of a core is read time / max(Poll, 20 x read time).
func BenchmarkReadSections(b *testing.B) {
	run := testRun(b)
	steps := make([]any, 10000)
	for i := range steps {
		steps[i] = runfolder.MetricRecord{Gen: 5, Step: int64(100 + i), Samples: int64(800 + 8*i), PolicyLoss: 1.5, ValueLoss: 0.5, Total: 2, Time: time.Now()}
	}
	if err := run.AppendJSONL(runfolder.MetricsFile, steps...); err != nil {
		b.Fatal(err)
	}
	idx := newGameIndex(run)
	b.ResetTimer()
	for b.Loop() {
		if _, err := readSections(run, idx); err != nil {
			b.Fatal(err)
		}
	}
	perRead := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(1/perRead, "reads/s")
	b.ReportMetric(100*perRead/max(2, 20*perRead), "%core@2s")
}

// A listing reads at most maxReadPerList new chunks, newest first; the
// next listing goes on with the older ones.
func TestGamesListReadsInSteps(t *testing.T) {
	s, ts := newTestServer(t, Options{})
	_, waiting, err := selfplay.ReadFile("../selfplay/testdata/games-v3.dgames")
	if err != nil {
		t.Fatal(err)
	}
	base := time.Now().Add(-time.Hour)
	for i := range maxReadPerList {
		name := s.opt.Run.Path(runfolder.GamesDir, fmt.Sprintf("chunk-many-%06d.dgames", i))
		copyFile(t, "../selfplay/testdata/games-v3.dgames", name)
		at := base.Add(time.Duration(i) * time.Second)
		if err := os.Chtimes(name, at, at); err != nil {
			t.Fatal(err)
		}
	}
	var first gamesJSON
	get(t, ts, "/api/games?limit=1", 200, &first)
	// The sample's own two chunks are newer than the 40 copies.
	if first.Complete || first.Total == 0 {
		t.Errorf("first listing of %d chunks complete", maxReadPerList+2)
	}
	if len(first.Games) != 1 || first.Games[0].Chunk == "chunk-many-000000.dgames" {
		t.Errorf("first listing starts with %+v, want the newest chunk", first.Games)
	}
	var second gamesJSON
	get(t, ts, "/api/games?kind=selfplay", 200, &second)
	if !second.Complete || second.Matched != (maxReadPerList+1)*len(waiting)+4 {
		t.Errorf("second listing: complete %v, %d self-play games, want all %d", second.Complete, second.Matched, (maxReadPerList+1)*len(waiting)+4)
	}
}

// TestBodyLimit: a request body over the limit gets 413 naming the limit,
// whether its length is announced (refused unread: 100 KiB, 10 MiB) or
// not (a chunked body, cut where it passes the limit); a body within it
// is read.
func TestBodyLimit(t *testing.T) {
	_, ts := newTestServer(t, Options{})
	big := func(n int) string { return `{"moves": [` + strings.Repeat(`"22-18", `, n/9) + `"22-18"]}` }
	for _, tc := range []struct {
		name    string
		body    io.Reader
		want    int
		mention string
	}{
		{"within", strings.NewReader(big(60 << 10)), 400, "moves: at most"},
		{"100 KiB", strings.NewReader(big(100 << 10)), 413, "64 KiB"},
		{"10 MiB", strings.NewReader(big(10 << 20)), 413, "64 KiB"},
		{"chunked 100 KiB", io.MultiReader(strings.NewReader(big(100 << 10))), 413, "64 KiB"},
	} {
		req, _ := http.NewRequest("POST", ts.URL+"/api/position", tc.body)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.want || !strings.Contains(string(b), tc.mention) {
			t.Errorf("%s: %d %q, want %d mentioning %q", tc.name, resp.StatusCode, b, tc.want, tc.mention)
		}
	}
}
