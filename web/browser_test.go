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
// their end; on the board, the self-play game's eval graph (stored, then
// evaluated; a click and the arrow keys step), a continuous analysis that
// grows, draws its arrows, ends at its cap and stops on Stop (its server
// slot freed, the page holding still), a branch and its PDN, imports, and
// play by a clock (the engine's reply, the analysis following the game,
// takeback, flip, resign, a clock that flags); and no script error
// reaches the console.
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
	s, err := New(Options{Run: run, More: []*runfolder.Run{other}, Poll: 50 * time.Millisecond, AnalysisTime: 2 * time.Second})
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
		dctx, cancel := context.WithTimeout(ctx, time.Minute) // an element that never comes fails, not hangs
		defer cancel()
		if err := chromedp.Do(dctx, steps...); err != nil {
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
			st, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`['#p-status', '#a-head', '#games-count'].map((s) => { const e = document.querySelector(s); return s + ': ' + (e ? e.textContent : '-'); }).join('; ')`))
			t.Fatalf("waiting for %s (%s): %v (the page says %s); the page shows:\n%s", what, expr, err, st, page)
		}
	}

	// click clicks what sel names by script: the board redraws its
	// buttons often, and a script click does not wait on the DOM as
	// chromedp.Click does.
	click := func(what, sel string) {
		t.Helper()
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](fmt.Sprintf(`(() => { const e = document.querySelector(%q); if (!e) return false; e.click(); return true; })()`, sel)))
		if err != nil || !ok {
			t.Fatalf("%s: no %s to click (%v)", what, sel, err)
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

	// The analysis board: the self-play game opened from its replay, its
	// eval graph from the stored search values, a click on the graph.
	do("back to game 0-0", chromedp.SetValue(chromedp.CSS(`#game-filter select[name=kind]`), ""), chromedp.Click(chromedp.CSS(`#game-filter button[type=submit]`)))
	wait("the whole list", `document.querySelector('#games tbody tr[data-id="0-0"]') !== null`)
	click("open game 0-0 again", `#games tbody tr[data-id="0-0"]`)
	wait("its replay", `document.querySelector('#replay-title').textContent.startsWith('Game 0-0')`)
	click("analyse it on the board", `#r-analyse`)
	wait("its moves in the tree", fmt.Sprintf(`document.querySelectorAll('#p-tree span.mv').length === %d`, len(g.Plies)))
	if n := count("#eval-graph circle.evalpt"); n != len(g.Plies)+1 {
		t.Errorf("eval graph of a self-play game: %d points, want its %d positions from the stored values", n, len(g.Plies)+1)
	}
	mid := len(g.Plies) / 2
	do("click the graph at ply "+fmt.Sprint(mid), chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => {
		const svg = document.querySelector('#eval-graph'), r = svg.getBoundingClientRect();
		const x = r.left + (4 + %d / %d * 392) / 400 * r.width, y = r.top + r.height / 2;
		svg.dispatchEvent(new MouseEvent('click', {clientX: x, clientY: y, bubbles: true}));
	})()`, mid, len(g.Plies))))
	// The graph computed by the engine, with its progress.
	do("evaluate the game", chromedp.SetValue(chromedp.CSS(`#play-form input[name=eval-visits]`), "16"), chromedp.Click(chromedp.CSS(`#g-eval`)))
	wait("the evaluation", `document.querySelector('#g-progress').textContent.startsWith('evaluated')`)
	if n := count("#eval-graph circle.evalpt"); n != len(g.Plies)+1 {
		t.Errorf("eval graph evaluated: %d points, want %d", n, len(g.Plies)+1)
	}
	wait("the jump", fmt.Sprintf(`Array.from(document.querySelectorAll('#p-tree span.mv')).indexOf(document.querySelector('#p-tree span.cur')) === %d`, mid-1))
	do("one back by the arrow key", chromedp.Evaluate[chromedp.Void](`document.body.dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowLeft', bubbles: true}))`))
	wait("the ply before", fmt.Sprintf(`Array.from(document.querySelectorAll('#p-tree span.mv')).indexOf(document.querySelector('#p-tree span.cur')) === %d`, mid-2))
	do("and forward", chromedp.Evaluate[chromedp.Void](`document.body.dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowRight', bubbles: true}))`))
	wait("the ply again", fmt.Sprintf(`Array.from(document.querySelectorAll('#p-tree span.mv')).indexOf(document.querySelector('#p-tree span.cur')) === %d`, mid-1))

	// Continuous analysis: it grows, shows its lines and arrows, ends at
	// its cap (2 s here), and stops on the button with its server slot
	// freed.
	do("three lines", chromedp.SetValue(chromedp.CSS(`#play-form input[name=lines]`), "3"))
	layout := func() string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](`[document.querySelector('.sidecol'), document.querySelector('#p-tree'), document.querySelector('#play-board')].map((e) => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.width].join(','); }).join(' ')`))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	before := layout()
	click("analyse", `#a-toggle`)
	wait("the lines", `document.querySelectorAll('#a-lines tbody tr').length >= 2 && +document.querySelector('#a-head').dataset.visits > 0`)
	if after := layout(); after != before {
		t.Errorf("the page moved when the analysis came (right column, move list, board: left,top,width): %s, then %s", before, after)
	}
	first, err := chromedp.Run(ctx, chromedp.Evaluate[int](`+document.querySelector('#a-head').dataset.visits`))
	if err != nil {
		t.Fatal(err)
	}
	wait("the analysis growing", fmt.Sprintf(`+document.querySelector('#a-head').dataset.visits > %d && +document.querySelector('#a-head').dataset.events >= 2`, first))
	wait("arrows of the top lines", `document.querySelectorAll('#play-board polyline.arrow').length === Math.min(3, document.querySelectorAll('#a-lines tbody tr').length)`)
	if a, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('#play-board polyline.arrow').dataset.move + ' ' + document.querySelector('#a-lines tbody tr').dataset.move`)); err != nil || len(strings.Fields(a)) != 2 || strings.Fields(a)[0] != strings.Fields(a)[1] {
		t.Errorf("the widest arrow and the first line: %q (%v), want the same move", a, err)
	}
	wait("the analysis at its cap", `document.querySelector('#a-head').dataset.done === 'time cap'`)
	if n := count("#eval-graph circle.evalpt"); n != len(g.Plies)+1 {
		t.Errorf("eval graph: %d points after the analysis", n)
	}
	shot("analysis.png")
	click("the next position, analysed", `#b-next`)
	wait("its analysis", `B.last !== null && B.last.fen === B.cur.pos.fen && +document.querySelector('#a-head').dataset.events >= 1`)
	click("stop", `#a-toggle`)
	streamsIdle(t, s)
	if got := text("#a-toggle"); got != "Analyse" {
		t.Errorf("the button after Stop says %q", got)
	}

	// A branch: back to the start, another first move, a reply; the tree
	// keeps both lines and the PDN has the variation.
	click("to the start", `#b-first`)
	wait("the start", `document.querySelector('#p-tree span.cur') === null && document.querySelectorAll('#p-legal button').length === 7`)
	mainFirst := g.Plies[0].Played().String()
	var otherMove string
	for _, m := range rules.Start().Legal(nil) {
		if m.String() != mainFirst {
			otherMove = m.String()
			break
		}
	}
	click("play "+otherMove, fmt.Sprintf(`#p-legal button[data-move="%s"]`, otherMove))
	wait("the variation", `document.querySelectorAll('#p-tree span.var').length === 1`)
	click("a reply", `#p-legal button`)
	wait("the reply in the variation", `document.querySelectorAll('#p-tree span.var span.mv').length === 2 && document.querySelector('#p-tree span.var span.cur') !== null`)
	click("save the PDN", `#p-pdn`)
	wait("the PDN", `document.querySelector('#p-pdntext').textContent.includes('(1. ')`)
	pdn, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('#p-pdntext').textContent`))
	if err != nil {
		t.Fatal(err)
	}
	if recs, err := rules.ParsePDN(pdn); err != nil || len(recs) != 1 || len(recs[0].Moves) != len(g.Plies) || !strings.Contains(pdn, "1. "+mainFirst+" (1. "+otherMove+" ") {
		t.Errorf("PDN of the tree (%v):\n%s\nwant the game's %d moves and the variation 1. %s", err, pdn, len(g.Plies), otherMove)
	}
	shot("branch.png")

	// Import: a FEN, then a PDN game whose move is illegal, named.
	do("import a FEN", chromedp.Evaluate[chromedp.Void](`document.querySelector('#import-form').closest('details').open = true`),
		chromedp.SetValue(chromedp.CSS(`#import-form textarea`), "W:W21,22:B9,10"), chromedp.Click(chromedp.CSS(`#import-form button`)))
	wait("the position", `document.querySelectorAll('#play-board circle.piece').length === 4 && document.querySelector('#import-note').textContent.startsWith('imported')`)
	do("import a bad PDN", chromedp.SetValue(chromedp.CSS(`#import-form textarea`), "1. 22-18 22-18 *"), chromedp.Click(chromedp.CSS(`#import-form button`)))
	wait("the error", `document.querySelector('#import-note').textContent.includes('move 1...')`)
	do("close the import", chromedp.Evaluate[chromedp.Void](`document.querySelector('#import-form').closest('details').open = false`))

	// Play with a clock: the engine replies by it, takeback, flip, then a
	// short clock that runs and flags.
	do("to the board", chromedp.SetValue(chromedp.CSS(`#play-form select[name=by]`), "clock"),
		chromedp.SetValue(chromedp.CSS(`#play-form input[name=tc-min]`), "0.5"), chromedp.SetValue(chromedp.CSS(`#play-form input[name=tc-inc]`), "0"),
		chromedp.Click(chromedp.CSS(`#play-form input[value=play]`)))
	wait("the game from the shown position", `document.querySelectorAll('#play-board circle.piece').length === 4 && document.querySelectorAll('#clock-bottom.run').length === 1`)
	click("a new game", `#p-new`)
	wait("a new game with clocks", `document.querySelectorAll('#p-legal button').length === 7 && !document.querySelector('#clock-bottom').classList.contains('hidden') && document.querySelector('#clock-bottom').classList.contains('run')`)
	click("play a move", `#p-legal button`)
	wait("the engine's reply", `document.querySelector('#p-status').dataset.ply === '2'`)
	if st := text("#p-status"); !strings.Contains(st, "engine's (black) W/D/L") {
		t.Errorf("status %q: want the W/D/L named as the engine's, with its side", st)
	}
	ms, err := chromedp.Run(ctx, chromedp.Evaluate[int](`+document.querySelector('#clock-top').dataset.ms`))
	if err != nil || ms >= 30000 || ms <= 0 {
		t.Errorf("the engine's clock after its move: %d ms (%v), want less than 30 s", ms, err)
	}
	// The analysis follows the game: on, it analyses the position after
	// the engine's reply, and after the takeback the start.
	click("analyse the game", `#a-toggle`)
	wait("the analysis of the game's position", `B.last !== null && B.last.fen === B.cur.pos.fen && document.querySelectorAll('#play-board polyline.arrow').length > 0`)
	if st := text("#p-status"); !strings.Contains(st, "engine's (black) W/D/L") {
		t.Errorf("status with the analysis on %q: want the engine's reply still said", st)
	}
	shot("play.png")
	click("take back", `#p-takeback`)
	wait("the start again", `document.querySelectorAll('#p-tree span.mv').length === 0 && document.querySelectorAll('#p-legal button').length === 7`)
	wait("the analysis of the start", `B.last !== null && B.last.fen === B.cur.pos.fen`)
	click("stop the analysis", `#a-toggle`)
	x := func() string {
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('#play-board g[data-square="1"] rect').getAttribute('x')`))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	unflipped := x()
	click("flip", `#b-flip`)
	if flipped := x(); unflipped != "0" || flipped != "350" {
		t.Errorf("square 1 at x=%s, then %s after Flip; want 0 then 350", unflipped, flipped)
	}
	click("resign", `#p-resign`)
	wait("the result", `document.querySelector('#p-status').dataset.result === '0-1'`)
	do("a 3-second clock", chromedp.SetValue(chromedp.CSS(`#play-form input[name=tc-min]`), "0.05"), chromedp.Click(chromedp.CSS(`#p-new`)))
	wait("the clock running", `+document.querySelector('#clock-bottom').dataset.ms < 2900 && document.querySelector('#p-status').dataset.result === ''`)
	wait("the flag", `document.querySelector('#p-status').dataset.result === '0-1' && document.querySelector('#clock-bottom').classList.contains('flag')`)
	if st := text("#p-status"); !strings.Contains(st, "white lost on time") {
		t.Errorf("status after the flag: %q", st)
	}

	mu.Lock()
	defer mu.Unlock()
	for _, e := range jsErrors {
		if strings.HasPrefix(e, "network: ") && strings.Contains(e, "status of 400") && strings.HasSuffix(e, "/api/import)") {
			continue // the bad PDN imported above, refused as it should be
		}
		t.Errorf("browser: %s", e)
	}
}
