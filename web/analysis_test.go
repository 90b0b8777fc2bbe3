package web

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"dama/rules"
	"dama/tb/tbtest"
)

// analysisURL is the address of the analysis stream of the game.
func analysisURL(ts string, path, start string, moves []string, extra string) string {
	q := url.Values{"start": {start}, "moves": {strings.Join(moves, " ")}, "model": {RandomModel}, "client": {"testclient01"}}
	return ts + path + "?" + q.Encode() + extra
}

// nextEvent waits for the next event of ch (the stream ended: ok false).
func nextEvent(t *testing.T, ch <-chan sseEvent) (sseEvent, bool) {
	t.Helper()
	select {
	case ev, ok := <-ch:
		return ev, ok
	case <-time.After(60 * time.Second):
		t.Fatal("no event in 60 s")
	}
	return sseEvent{}, false
}

// streamsIdle waits until the server holds no analysis slot.
func streamsIdle(t *testing.T, s *Server) {
	t.Helper()
	for range 600 {
		s.mu.Lock()
		n, held := len(s.streams), len(s.asem)
		s.mu.Unlock()
		if n == 0 && held == 0 {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("the analysis slots are still held 30 s after the streams ended")
}

// The analysis streams the search as it grows, its lines legal and in
// order, and ends at its visit cap with an event that says so.
func TestAnalysisStreamsToItsCap(t *testing.T) {
	s, ts := newTestServer(t, Options{AnalysisVisits: 3000})
	moves := []string{"22-18", "11-15"}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch := readEvents(ctx, t, analysisURL(ts.URL, "/api/analysis", "", moves, "&lines=4"))
	p := rules.Start()
	for _, m := range moves {
		p = p.Play(mustMove(t, p, m))
	}
	var last analysisView
	events := 0
	for {
		ev, ok := nextEvent(t, ch)
		if !ok {
			break
		}
		events++
		var v analysisView
		if err := json.Unmarshal([]byte(ev.data), &v); err != nil {
			t.Fatal(err)
		}
		if v.FEN != p.FEN() || len(v.Lines) == 0 || len(v.Lines) > 4 {
			t.Fatalf("event %d: %s", events, ev.data)
		}
		for i, l := range v.Lines {
			if i > 0 && l.Visits > v.Lines[i-1].Visits {
				t.Errorf("line %d has more visits than line %d: %s", i, i-1, ev.data)
			}
			q := p
			for _, m := range l.Moves {
				q = q.Play(mustMove(t, q, m))
			}
			if first := mustMove(t, p, l.Moves[0]); !slices.Equal(l.Path, squares(first.Path())) {
				t.Errorf("line %d: path %v, want the squares of %s", i, l.Path, l.Moves[0])
			}
		}
		if v.Visits < last.Visits {
			t.Errorf("visits went down: %d after %d", v.Visits, last.Visits)
		}
		last = v
	}
	if !last.Done || last.Why != endVisits || last.Visits != 3000 {
		t.Errorf("last event: done %v why %q visits %d, want the visits cap of 3000", last.Done, last.Why, last.Visits)
	}
	streamsIdle(t, s)
	// The browser's retry after the end gets 204: no more analysis.
	req, _ := http.NewRequest("GET", analysisURL(ts.URL, "/api/analysis", "", moves, ""), nil)
	req.Header.Set("Last-Event-ID", doneID)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Errorf("retry after the end: status %d, want 204", resp.StatusCode)
	}
}

// An analysis ends when its tree is full.
func TestAnalysisEndsWhenTheTreeIsFull(t *testing.T) {
	_, ts := newTestServer(t, Options{AnalysisTreeMB: 1})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch := readEvents(ctx, t, analysisURL(ts.URL, "/api/analysis", "", nil, ""))
	var last analysisView
	for ev, ok := nextEvent(t, ch); ok; ev, ok = nextEvent(t, ch) {
		json.Unmarshal([]byte(ev.data), &last)
	}
	if !last.Done || last.Why != endFull {
		t.Errorf("last event: done %v why %q, want the tree full (1 MB)", last.Done, last.Why)
	}
}

// An analysis stops when its client goes away, and when the same client
// starts another (the position changed): its slot is free again.
func TestAnalysisStops(t *testing.T) {
	s, ts := newTestServer(t, Options{Analyses: 1})
	ctx, cancel := context.WithCancel(context.Background())
	ch := readEvents(ctx, t, analysisURL(ts.URL, "/api/analysis", "", nil, ""))
	if _, ok := nextEvent(t, ch); !ok {
		t.Fatal("no first event")
	}
	cancel() // the page closed the stream (Stop)
	streamsIdle(t, s)

	ctx1, cancel1 := context.WithCancel(context.Background())
	defer cancel1()
	first := readEvents(ctx1, t, analysisURL(ts.URL, "/api/analysis", "", nil, ""))
	if _, ok := nextEvent(t, first); !ok {
		t.Fatal("no first event")
	}
	ctx2, cancel2 := context.WithCancel(context.Background())
	second := readEvents(ctx2, t, analysisURL(ts.URL, "/api/analysis", "", []string{"22-18"}, ""))
	var end analysisView
	for ev, ok := nextEvent(t, first); ok; ev, ok = nextEvent(t, first) {
		json.Unmarshal([]byte(ev.data), &end)
	}
	if !end.Done || end.Why != endStopped {
		t.Errorf("the first analysis ended with done %v why %q, want stopped by the second", end.Done, end.Why)
	}
	if _, ok := nextEvent(t, second); !ok {
		t.Fatal("the second analysis sent nothing")
	}
	// Another client finds the only slot taken.
	req, _ := http.NewRequest("GET", ts.URL+"/api/analysis?model=random&client=otherclient1", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("a second client: status %d, want 503 with one slot", resp.StatusCode)
	}
	cancel2()
	streamsIdle(t, s)
}

// Bad input is named; a finished game is one event that says so.
func TestAnalysisInput(t *testing.T) {
	_, ts := newTestServer(t, Options{})
	for path, want := range map[string]string{
		"/api/analysis?moves=22-18+22-18":   `move 2 "22-18"`,
		"/api/analysis?start=W:W99":         "start:",
		"/api/analysis?lines=0":             `lines "0": want a whole number in 1..10`,
		"/api/analysis?model=nonexistent":   `model "nonexistent"`,
		"/api/evaluate?visits=-3":           `visits "-3"`,
		"/api/evaluate?moves=21-17+21-17":   `move 2 "21-17"`,
		"/api/analysis?model=accepted/../x": "not one of the run's checkpoints",
	} {
		if body := get(t, ts, path, 400, nil); !strings.Contains(body, want) {
			t.Errorf("%s: %q, want it to name %q", path, body, want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch := readEvents(ctx, t, analysisURL(ts.URL, "/api/analysis", "B:W21:B", nil, ""))
	ev, _ := nextEvent(t, ch)
	var v analysisView
	json.Unmarshal([]byte(ev.data), &v)
	if !v.Done || v.Why != endOver || v.Result == "" {
		t.Errorf("a finished game: %s", ev.data)
	}
}

// With tables loaded, a position they hold shows their verdict, in the
// analysis and with the position.
func TestTablesVerdict(t *testing.T) {
	_, tables := tbtest.Tables(t, 3)
	_, ts := newTestServer(t, Options{Tables: tables, AnalysisVisits: 200})
	fen := "W:WK1,K5:BK32" // two kings against one
	var pos positionView
	post(t, ts, "/api/position", `{"start": "`+fen+`"}`, 200, &pos)
	if pos.TB == nil || pos.TB.Value != "win" || len(pos.TB.Moves) == 0 || pos.TB.Moves[0].Value != "win" {
		t.Fatalf("tables verdict %+v, want a win with its moves", pos.TB)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch := readEvents(ctx, t, analysisURL(ts.URL, "/api/analysis", fen, nil, ""))
	ev, _ := nextEvent(t, ch)
	var v analysisView
	json.Unmarshal([]byte(ev.data), &v)
	if v.TB == nil || v.TB.Value != "win" {
		t.Errorf("analysis: %s, want the tables' win", ev.data)
	}
	var start positionView
	post(t, ts, "/api/position", `{}`, 200, &start)
	if start.TB != nil {
		t.Errorf("the start position (24 pieces) has a tables verdict %+v", start.TB)
	}
}

// The evaluation of a game streams one point per position, the last one
// the result; its White scores are in [0, 1].
func TestEvaluateGame(t *testing.T) {
	_, ts := newTestServer(t, Options{})
	moves := []string{"22-18", "10-14", "21-17", "14x21"}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch := readEvents(ctx, t, analysisURL(ts.URL, "/api/evaluate", "", moves, "&visits=16"))
	var pts []evalPoint
	var done map[string]any
	for ev, ok := nextEvent(t, ch); ok; ev, ok = nextEvent(t, ch) {
		switch ev.name {
		case "point":
			var p evalPoint
			json.Unmarshal([]byte(ev.data), &p)
			pts = append(pts, p)
		case "done":
			json.Unmarshal([]byte(ev.data), &done)
		}
	}
	if len(pts) != len(moves)+1 || done["why"] != "done" {
		t.Fatalf("%d points, end %v; want %d and done", len(pts), done, len(moves)+1)
	}
	for i, p := range pts {
		if p.Ply != i || p.Of != len(moves)+1 || p.White < 0 || p.White > 1 || p.Visits < 1 {
			t.Errorf("point %d: %+v", i, p)
		}
	}
	// A finished game's last point is its result.
	ch = readEvents(ctx, t, analysisURL(ts.URL, "/api/evaluate", "W:W21:B5", []string{"21-17", "5-9", "17-13", "9x18"}, "&visits=4"))
	pts = nil
	for ev, ok := nextEvent(t, ch); ok; ev, ok = nextEvent(t, ch) {
		if ev.name == "point" {
			var p evalPoint
			json.Unmarshal([]byte(ev.data), &p)
			pts = append(pts, p)
		}
	}
	if n := len(pts); n != 5 || pts[n-1].White != 0 || pts[n-1].Visits != 0 {
		t.Errorf("points of a game Black won: %+v, want the last one 0 for White, without search", pts)
	}
}

// An evaluation ends at twice Options.AnalysisTime, and says so.
func TestEvaluateTimeCap(t *testing.T) {
	_, ts := newTestServer(t, Options{AnalysisTime: time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	moves := []string{"22-18", "10-14", "21-17", "14x21"}
	ch := readEvents(ctx, t, analysisURL(ts.URL, "/api/evaluate", "", moves, "&visits=20000"))
	points, why := 0, ""
	for ev, ok := nextEvent(t, ch); ok; ev, ok = nextEvent(t, ch) {
		if ev.name == "point" {
			points++
		} else {
			var d map[string]any
			json.Unmarshal([]byte(ev.data), &d)
			why, _ = d["why"].(string)
		}
	}
	if why != endTime || points > len(moves) {
		t.Errorf("%d points, why %q: want the time cap before the end", points, why)
	}
}

func TestWhiteScore(t *testing.T) {
	for _, c := range []struct {
		side rules.Color
		wdl  [3]float32
		want float64
	}{
		{rules.White, [3]float32{1, 0, 0}, 1}, {rules.Black, [3]float32{1, 0, 0}, 0},
		{rules.White, [3]float32{0.2, 0.6, 0.2}, 0.5}, {rules.Black, [3]float32{0.5, 0.5, 0}, 0.25},
	} {
		if got := whiteScore(c.side, c.wdl); got < c.want-1e-6 || got > c.want+1e-6 {
			t.Errorf("whiteScore(%v, %v) = %v, want %v", c.side, c.wdl, got, c.want)
		}
	}
}
