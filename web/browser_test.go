package web

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"dama/rules"
	"dama/runfolder"
	"dama/selfplay"
)

// shotsEnv names the folder the browser test writes its screenshots to;
// expectEnv set to 1 makes a missing Chromium a failure, not a skip (CI).
const (
	shotsEnv  = "DAMA_WEB_SHOTS"
	expectEnv = "DAMA_EXPECT_CHROMIUM"
)

// chromium finds a Chromium or Chrome binary: $DAMA_CHROMIUM, else one on
// the PATH; "" when there is none.
func chromium() string {
	if p := os.Getenv("DAMA_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// The pages in a real browser: the run page renders its table and charts
// and follows the run live, a self-play game and a gating game replay to
// their end, a move played on
// the board gets the engine's reply, the analysis shows a principal
// variation; and no script error reaches the console.
func TestBrowser(t *testing.T) {
	bin := chromium()
	if bin == "" && os.Getenv(expectEnv) == "1" {
		t.Fatalf("no Chromium found, and %s=1 says there must be one (apt-get install chromium, or set DAMA_CHROMIUM)", expectEnv)
	}
	if bin == "" {
		t.Skip("no Chromium installed (apt-get install chromium); the browser test needs one")
	}
	run, other := testRun(t), testRun(t)
	goOn(t, run)
	addGeneration(t, other, 5, time.Date(2026, 12, 1, 6, 0, 0, 0, time.UTC))
	s, err := New(Options{Run: run, More: []*runfolder.Run{other}, Poll: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	defer ts.Close()
	defer s.Close()

	// The machine's network may be closed: every background connection
	// of Chrome is turned off, and the profile is fresh.
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 1100),
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true), chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-default-apps", true), chromedp.Flag("metrics-recording-only", true),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()

	var mu sync.Mutex
	var jsErrors []string
	if err := chromedp.Listen(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventExceptionThrown:
			d := ev.ExceptionDetails
			msg := d.Text
			if d.Exception != nil {
				msg += " " + d.Exception.Description
			}
			jsErrors = append(jsErrors, fmt.Sprintf("exception at %s:%d: %s", d.URL, d.LineNumber, msg))
		case *cdplog.EventEntryAdded: // refused loads, CSP violations
			if e := ev.Entry; e.Level == cdplog.EntryLevelError {
				jsErrors = append(jsErrors, fmt.Sprintf("%s: %s (%s)", e.Source, e.Text, e.URL))
			}
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
				var parts []string
				for _, a := range ev.Args {
					parts = append(parts, string(a.Value)+a.Description)
				}
				jsErrors = append(jsErrors, "console."+string(ev.Type)+": "+strings.Join(parts, " "))
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, cdplog.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	shots := os.Getenv(shotsEnv)
	shot := func(name string) {
		if shots == "" {
			return
		}
		b, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatalf("screenshot %s: %v", name, err)
		}
		if err := os.MkdirAll(shots, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(shots, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	count := func(sel string) int {
		t.Helper()
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](fmt.Sprintf(`document.querySelectorAll(%q).length`, sel)))
		if err != nil {
			t.Fatalf("count %s: %v", sel, err)
		}
		return n
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("text of %s: %v", sel, err)
		}
		return s
	}
	wait := func(what, expr string) {
		t.Helper()
		if _, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingTimeout(30*time.Second))); err != nil {
			page, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('main').innerText.slice(0, 600)`))
			t.Fatalf("waiting for %s (%s): %v; the page shows:\n%s", what, expr, err, page)
		}
	}

	// The run page: table, charts, the live stream.
	do("open the run page", chromedp.Navigate(ts.URL+"/#run"))
	wait("the generations table", `document.querySelectorAll('#generations tbody tr').length === 4`)
	wait("the live stream", `document.querySelector('#live').textContent === 'live'`)
	wait("every section", `document.querySelectorAll('#chart-times rect.bar').length > 0 && document.querySelectorAll('#workers tbody tr').length > 0 && document.querySelectorAll('#summary .card').length > 0 && runCharts.state.plots.losses && runCharts.state.plots.elo && runCharts.state.plots.ladder && runCharts.state.plots.arena`)
	// The curves: uPlot's legend names each series; the data are the
	// run's (four gating matches, two ladder ratings).
	legend := func(chart string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Evaluate[string](fmt.Sprintf(`Array.from(document.querySelectorAll('#%s .u-legend tr.u-series')).filter((tr) => tr.style.display !== 'none').map((tr) => tr.querySelector('th').textContent).join('|')`, chart)))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for chart, want := range map[string]string{
		"chart-losses": "training steps|policy|value", "chart-arena": "training steps|promoted|rejected|promotion threshold (55%)",
		"chart-elo": "training steps|chained Elo", "chart-ladder": "training steps|ladder Elo",
	} {
		if got := legend(chart); got != want {
			t.Errorf("legend of %s: %q, want %q", chart, got, want)
		}
	}
	points := func(plot string) int {
		t.Helper()
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](fmt.Sprintf(`runCharts.state.plots.%s.data[0].length`, plot)))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	for plot, want := range map[string]int{"arena": 4, "elo": 4, "ladder": 2} {
		if n := points(plot); n != want {
			t.Errorf("%s chart: %d points, want %d", plot, n, want)
		}
	}
	for sel, want := range map[string]int{
		"#chart-times rect.bar": 16, "#changes tr": 2, "#chunks .error": 1, "#summary .card": 8, "#workers tbody tr": 2,
	} {
		if n := count(sel); n != want {
			t.Errorf("%s: %d elements, want %d", sel, n, want)
		}
	}
	// The generation in progress: generation 5's self-play, the games of
	// the chunk no plan takes so far.
	wait("the generation in progress", `document.querySelector('#progress-text').textContent.startsWith('Generation 5 in progress: self-play, 3 of 4 games')`)

	// Hover: the legend shows the value under the cursor.
	hover := func(chart string) {
		t.Helper()
		box, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](fmt.Sprintf(`(() => { const r = document.querySelector('#%s .u-over').getBoundingClientRect(); return [r.left + r.width * 0.99, r.top + r.height / 2]; })()`, chart)))
		if err != nil || len(box) != 2 {
			t.Fatalf("the plot area of %s: %v %v", chart, box, err)
		}
		do("hover "+chart, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, box[0]-3, box[1]), chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, box[0], box[1]))
	}
	do("scroll to the charts", chromedp.ScrollIntoView(chromedp.CSS(`#chart-elo`)))
	hover("chart-elo")
	wait("the hovered value", `document.querySelectorAll('#chart-elo .u-legend tr.u-series')[1].querySelector('.u-value').textContent === '294 [153, 435]'`)
	shot("chart-hover.png")
	do("to the top", chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`))

	// The x axis in generations: integer ticks only (no 1.2, 1.4).
	do("x in generations", chromedp.SetValue(chromedp.CSS(`#chart-x`), "gen"), chromedp.Evaluate[chromedp.Void](`document.querySelector('#chart-x').dispatchEvent(new Event('change'))`))
	ticks, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`runCharts.state.plots.arena.axes[0]._splits`))
	if err != nil || len(ticks) == 0 {
		t.Fatalf("ticks of the generation axis: %v %v", ticks, err)
	}
	for _, x := range ticks {
		if x != float64(int(x)) {
			t.Errorf("generation axis tick %v is not a whole generation (ticks %v)", x, ticks)
		}
	}
	do("x in steps", chromedp.SetValue(chromedp.CSS(`#chart-x`), "step"), chromedp.Evaluate[chromedp.Void](`document.querySelector('#chart-x').dispatchEvent(new Event('change'))`))

	// A second run overlaid: the legend shows both, its curves come.
	wait("the run choice", `!document.querySelector('#run-choice').classList.contains('hidden') && document.querySelectorAll('#overlay-runs input').length === 1`)
	do("overlay run-2", chromedp.Click(chromedp.CSS(`#overlay-runs input[value="run-2"]`)))
	wait("both runs in the legend", `(() => { const l = document.querySelector('#chart-losses .u-legend').textContent; return l.includes('quick (run) · policy') && l.includes('quick (run-2) · policy'); })()`)
	wait("run-2's fifth gating match", `runCharts.state.plots.arena && runCharts.state.plots.arena.data[0].length === 5`)
	shot("runs-overlaid.png")
	// A record of the overlaid run that does not read is named on the page.
	broken := other.Path(runfolder.GenerationsDir, "0006.json")
	if err := os.WriteFile(broken, []byte(`{"gen": 6,`), 0o644); err != nil {
		t.Fatal(err)
	}
	wait("run-2's error", `document.querySelector('#overlay-error').textContent.startsWith('Reading run quick (run-2): ') && document.querySelector('#overlay-error').textContent.includes('0006.json')`)
	if err := os.Remove(broken); err != nil {
		t.Fatal(err)
	}
	wait("run-2 read again", `document.querySelector('#overlay-error').classList.contains('hidden')`)
	do("overlay off", chromedp.Click(chromedp.CSS(`#overlay-runs input[value="run-2"]`)))
	wait("one run again", `!document.querySelector('#chart-losses .u-legend').textContent.includes('run-2')`)

	// Zoom: a drag across the Elo chart narrows its x axis, and a live
	// update keeps the zoom; "reset zoom" shows everything again.
	over, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`(() => { const r = document.querySelector('#chart-elo .u-over').getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; })()`))
	if err != nil || len(over) != 4 {
		t.Fatalf("the Elo chart's plot area: %v %v", over, err)
	}
	y := over[1] + over[3]/2
	do("drag across the Elo chart", chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, over[0]+over[2]*0.05, y),
		chromedp.MouseEvent(input.DispatchMouseEventTypeMousePressed, over[0]+over[2]*0.05, y, chromedp.ButtonLeft),
		chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, over[0]+over[2]*0.3, y, chromedp.ButtonLeft),
		chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, over[0]+over[2]*0.6, y, chromedp.ButtonLeft),
		chromedp.MouseEvent(input.DispatchMouseEventTypeMouseReleased, over[0]+over[2]*0.6, y, chromedp.ButtonLeft))
	wait("the zoom", `runCharts.state.plots.elo.zoomed === true && runCharts.state.plots.elo.scales.x.max < 12`)
	zoomMax, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`runCharts.state.plots.elo.scales.x.max`))
	if err != nil {
		t.Fatal(err)
	}

	addGeneration(t, run, 5, time.Date(2026, 12, 1, 5, 0, 0, 0, time.UTC))
	wait("generation 5, pushed", `document.querySelectorAll('#generations tbody tr').length === 5 && runCharts.state.plots.arena.data[0].length === 5 && runCharts.state.plots.elo.data[0].length === 5`)
	if got, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`runCharts.state.plots.elo.scales.x.max`)); err != nil || got != zoomMax {
		t.Errorf("the Elo chart's zoom after a live update: x up to %v (%v), want %v as zoomed", got, err, zoomMax)
	}
	do("reset zoom", chromedp.Click(chromedp.CSS(`#chart-reset`)))
	wait("the whole x axis", `!runCharts.state.plots.elo.zoomed && runCharts.state.plots.elo.scales.x.max === 20`)
	if got := text("#generations tbody tr td"); got != "5" {
		t.Errorf("first row of the table is generation %q, want 5 (newest first)", got)
	}
	wait("generation 6 in progress", `document.querySelector('#progress-text').textContent.startsWith('Generation 6 in progress: self-play')`)
	shot("run.png")

	// The other run shown: its page, and, as it has no ladder rating, the
	// way to get one.
	if err := os.Remove(other.Path(runfolder.LadderFile)); err != nil {
		t.Fatal(err)
	}
	do("show run-2", chromedp.SetValue(chromedp.CSS(`#run-select`), "run-2"), chromedp.Evaluate[chromedp.Void](`document.querySelector('#run-select').dispatchEvent(new Event('change'))`))
	// run-2 plans 1 generation (the sample's run.generations), the first
	// run none (goOn): its card reads "5 / 1", the first run's "5".
	wait("run-2's page", `document.querySelectorAll('#generations tbody tr').length === 5 && document.querySelector('#summary .card b').textContent === '5 / 1'`)
	wait("how to get a ladder rating", `(() => { const h = document.querySelector('#chart-ladder .ladder-help'); return h !== null && h.textContent.includes('--set ladder.every=') && h.textContent.includes('dama ladder --model '); })()`)
	if got := text("#chart-ladder .ladder-help"); !strings.Contains(got, "dama ladder --model "+other.Dir+"/accepted/NNNN.ckpt") {
		t.Errorf("ladder help %q, want the command for %s", got, other.Dir)
	}

	// A game replayed to its end: the board shows the final position.
	_, games, err := selfplay.ReadFile(run.Path(runfolder.GamesDir, "chunk-main-000000.dgames"))
	if err != nil {
		t.Fatal(err)
	}
	g := games[0]
	final := g.Start
	for _, m := range g.Moves() {
		final = final.Play(m)
	}
	do("open the games", chromedp.Navigate(ts.URL+"/#games"))
	wait("the games list", `document.querySelectorAll('#games tbody tr').length > 0`)
	// The list may take the window's height (it took 32em, half of it).
	if ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`parseFloat(getComputedStyle(document.querySelector('#tab-games .list')).maxHeight) >= window.innerHeight - 200`)); err != nil || !ok {
		t.Errorf("the games list may not take the window's height (%v)", err)
	}
	if got := text("#games-count"); !strings.HasPrefix(got, "1-15 of 15 (of 15) games") {
		t.Errorf("games count %q, want the 7 self-play games and 8 kept match games", got)
	}
	do("open game 0-0", chromedp.Click(chromedp.CSS(`#games tbody tr[data-id="0-0"]`)))
	wait("the replay board", `document.querySelectorAll('#replay-board circle.piece').length === 24`)
	do("to the end", chromedp.Click(chromedp.CSS(`#r-last`)))
	wait("the last ply", fmt.Sprintf(`document.querySelector('#r-ply').textContent.startsWith('ply %d / %d')`, len(g.Plies), len(g.Plies)))
	replayBoard := func() string {
		t.Helper()
		board, err := chromedp.Run(ctx, chromedp.Evaluate[string](`Array.from({length: 32}, (_, i) => {
			const sq = document.querySelector('#replay-board g[data-square="' + (i + 1) + '"]');
			const piece = sq.querySelector('circle.piece');
			if (!piece) return '.';
			const white = piece.getAttribute('fill') !== '#222';
			const king = sq.querySelector('circle.king') !== null;
			return white ? (king ? 'W' : 'w') : (king ? 'B' : 'b');
		}).join('')`))
		if err != nil {
			t.Fatal(err)
		}
		return board
	}
	if got, want := replayBoard(), boardString(final); got != want {
		t.Errorf("board at the end of game 0-0:\n got %s\nwant %s", got, want)
	}
	if n := count("#r-moves span"); n != len(g.Plies) {
		t.Errorf("move list: %d moves, want %d", n, len(g.Plies))
	}
	do("back two plies", chromedp.Click(chromedp.CSS(`#r-prev`)), chromedp.Click(chromedp.CSS(`#r-prev`)))
	shot("replay.png")

	// A gating game, listed by kind, replayed to its end: its moves only,
	// the page says there are no search statistics, and links the match.
	b, err := os.ReadFile(run.MatchGamesPath(runfolder.ArenaGames, 2))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := rules.ParsePDN(string(b))
	if err != nil {
		t.Fatal(err)
	}
	ag := recs[1]
	final = ag.Start
	for _, m := range ag.Moves {
		final = final.Play(m)
	}
	do("list the gating games", chromedp.SetValue(chromedp.CSS(`#game-filter select[name=kind]`), "arena"), chromedp.Click(chromedp.CSS(`#game-filter button[type=submit]`)))
	wait("the gating games", `document.querySelectorAll('#games tbody tr').length === 4 && Array.from(document.querySelectorAll('#games tbody tr')).every((tr) => tr.dataset.kind === 'arena')`)
	do("open game a2-1", chromedp.Click(chromedp.CSS(`#games tbody tr[data-id="a2-1"]`)))
	wait("its replay", `document.querySelector('#replay-title').textContent.startsWith('Game a2-1 (gating match of generation 2')`)
	do("to its end", chromedp.Click(chromedp.CSS(`#r-last`)))
	wait("its last ply", fmt.Sprintf(`document.querySelector('#r-ply').textContent.startsWith('ply %d / %d')`, len(ag.Moves), len(ag.Moves)))
	if got, want := replayBoard(), boardString(final); got != want {
		t.Errorf("board at the end of game a2-1:\n got %s\nwant %s", got, want)
	}
	if n := count("#r-moves span"); n != len(ag.Moves) {
		t.Errorf("move list of a2-1: %d moves, want %d", n, len(ag.Moves))
	}
	do("back one ply", chromedp.Click(chromedp.CSS(`#r-prev`)))
	if got := text("#r-info"); !strings.Contains(got, "No search statistics") || strings.Contains(got, "W/D/L 0") || count("#r-info table") != 0 {
		t.Errorf("replay info of a gating game %q: want the note that there are no search statistics, no blank table", got)
	}
	if href, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('#r-match').classList.contains('hidden') ? '' : document.querySelector('#r-match').getAttribute('href')`)); err != nil || href != "api/match.pdn?kind=arena&gen=2" {
		t.Errorf("whole-match link %q (%v)", href, err)
	}
	shot("replay-arena.png")

	// Play: a legal move from the list, the engine's reply, the analysis.
	do("open the board", chromedp.Navigate(ts.URL+"/#play"))
	wait("the legal moves", `document.querySelectorAll('#p-legal button').length === 7`)
	do("set the search", chromedp.SetValue(chromedp.CSS(`#play-form input[name=visits]`), "64"))
	first, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('#p-legal button').dataset.move`))
	if err != nil {
		t.Fatal(err)
	}
	do("play "+first, chromedp.Click(chromedp.CSS(`#p-legal button`)))
	wait("the engine's reply", `document.querySelector('#p-status').dataset.ply === '2'`)
	moves := strings.Fields(text("#p-moves"))
	if len(moves) != 2 || moves[0] != first {
		t.Fatalf("moves after one each: %q, want %s and a reply", moves, first)
	}
	p := rules.Start()
	for _, s := range moves {
		m, err := rules.ParseMove(p, s)
		if err != nil {
			t.Fatalf("the game's move %q: %v", s, err)
		}
		p = p.Play(m)
	}
	do("analyse", chromedp.Click(chromedp.CSS(`#p-analyze`)))
	wait("the analysis", `document.querySelector('#analysis-pv') !== null`)
	pv := strings.Fields(strings.TrimPrefix(text("#analysis-pv"), "principal variation: "))
	if len(pv) == 0 {
		t.Error("empty principal variation")
	}
	for _, s := range pv {
		m, err := rules.ParseMove(p, s)
		if err != nil {
			t.Fatalf("principal variation %q: %v", pv, err)
		}
		p = p.Play(m)
	}
	// Select a piece by clicking its square: its destinations light up.
	from, err := chromedp.Run(ctx, chromedp.Evaluate[int](`parseInt(document.querySelector('#p-legal button').dataset.move)`))
	if err != nil {
		t.Fatal(err)
	}
	do("select a piece", chromedp.Click(chromedp.CSS(fmt.Sprintf(`#play-board g[data-square="%d"]`, from))))
	wait("its destinations", `Array.from(document.querySelectorAll('#play-board g.sq > rect')).some((r) => r.getAttribute('fill') === '#5b7f3a')`)
	shot("play.png")

	mu.Lock()
	defer mu.Unlock()
	for _, e := range jsErrors {
		t.Errorf("browser: %s", e)
	}
}
