package engine

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"dama/mcts"
	"dama/rules"
)

// HubOptions configures a Hub engine. Zero fields take the documented
// defaults.
type HubOptions struct {
	Name    string // engine name in the id line (default "dama")
	Version string // version in the id line (default "dev")
	Author  string // author in the id line (default "the dama authors")
	// Visits and Time bound a search when the GUI's level sets no limit
	// (default DefaultVisits visits); the GUI can change Visits with
	// "set-param name=visits value=N".
	Visits int
	Time   time.Duration
	// Search configures the tree search (temperature is ignored).
	Search mcts.Options
	// InfoEvery is the least time between two info lines (default 500ms).
	InfoEvery time.Duration
	// Clock tells the time (nil: the wall clock); see Searcher.Clock.
	Clock Clock
	// Log receives warnings for people (the engine's stderr); nil drops
	// them.
	Log io.Writer
}

// Hub is an engine speaking the Hub protocol (version 2, as Scan 3.1) on
// a pair of streams. Commands understood:
//
//	hub                     -> id, param declarations, wait
//	set-param name= value=  (variant: italian only; visits: visits per move when level sets no limit;
//	                         tree-mb: memory of the search tree in MB; threads: search threads,
//	                         1..MaxThreads; both drop the tree)
//	init                    -> ready
//	ping                    -> pong (also during a search)
//	new-game                   forget the search tree
//	pos pos=<W|B><32 squares> [moves="..."]
//	level nodes=N | move-time=S | [moves=M] time=T [inc=I] | depth=D | infinite
//	go think | go ponder | go analyze   -> info ..., done move=... [ponder=...]
//	ponder-hit                 during go ponder: the opponent played the expected move; the clock starts
//	stop                       end the search now; done follows
//	quit
//
// Unknown commands and arguments are ignored, as the protocol asks; a line
// longer than maxHubLine (1 MiB) gets an error answer.
// level nodes counts root visits of the MCTS; level depth=D spends the
// effort of an alpha-beta search of depth D, depthVisits(D) root visits;
// move-time is kept with a safety margin (timeMargin) and a clock is
// planned with a reserve (planMove, spending more on critical moves),
// counted from the arrival of go. A tree that reaches its memory (tree-mb)
// stops growing and the search goes on, so infinite analysis runs until
// stop. info lines carry depth (PV length), nodes (root visits), score (in
// men, as clients read it: scoreMen of the expected result W-L for the side
// to move), wdl (win, draw and loss probabilities; for a forced move the
// network's), time (seconds), nps (visits per second) and pv.
type Hub struct {
	opt      HubOptions
	ev       mcts.Evaluator
	searcher *Searcher

	mu   sync.Mutex // guards out and werr
	out  io.Writer
	werr error

	// State of the reader goroutine.
	game   *rules.Game
	level  level
	job    *job
	warned bool // the threads warning was given
}

// level is the time or depth limit of the next search, as the GUI set it.
type level struct {
	visits, depth     int
	moveTime          time.Duration
	time, inc         time.Duration
	moves             int
	infinite, clocked bool
}

// job is a search in progress.
type job struct {
	cancel context.CancelFunc
	done   chan struct{}
	// hit starts the clock of a ponder search (nil when there is none).
	hit func()
	// release, for a ponder search, is closed by ponder-hit: until then (or
	// a stop) the search holds its done line even if it has finished.
	release chan struct{}
}

// NewHub returns a Hub engine searching with ev.
func NewHub(ev mcts.Evaluator, opt HubOptions) *Hub {
	if opt.Name == "" {
		opt.Name = "dama"
	}
	if opt.Version == "" {
		opt.Version = "dev"
	}
	if opt.Author == "" {
		opt.Author = "the dama authors"
	}
	if opt.Visits <= 0 && opt.Time <= 0 {
		opt.Visits = DefaultVisits
	}
	if opt.Clock == nil {
		opt.Clock = realClock{}
	}
	h := &Hub{opt: opt, ev: ev}
	h.searcher = h.newSearcher(opt.Search)
	return h
}

// newSearcher returns a Searcher with opt and the Hub's settings.
func (h *Hub) newSearcher(opt mcts.Options) *Searcher {
	s := NewSearcher(h.ev, opt)
	s.InfoEvery = h.opt.InfoEvery
	if _, real := h.opt.Clock.(realClock); !real {
		s.Clock = h.opt.Clock
	}
	return s
}

// Run reads commands from in and answers on out until "quit", the end of
// in, or the cancellation of ctx. It returns nil after quit or the end of
// in, ctx.Err() after cancellation, and an error if reading in or writing
// out fails.
func (h *Hub) Run(ctx context.Context, in io.Reader, out io.Writer) error {
	h.out = out
	lines := make(chan stamped)
	readErr := make(chan error, 1)
	quit := make(chan struct{})
	defer close(quit)
	go func() {
		r := bufio.NewReaderSize(in, 64*1024)
		var err error
		for {
			var line string
			line, err = readLine(r, maxHubLine)
			if errors.Is(err, errLineTooLong) {
				line, err = tooLongLine, nil // handle answers with an error and reads on
			}
			eof := errors.Is(err, io.EOF)
			if eof {
				err = nil
				if line == "" {
					break
				}
			} else if err != nil {
				break
			}
			select {
			case lines <- stamped{line, h.opt.Clock.Now()}:
			case <-quit:
				return
			}
			if eof { // a last line without its newline
				break
			}
		}
		readErr <- err
		close(lines)
	}()
	defer h.stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case line, ok := <-lines:
			if !ok {
				if err := <-readErr; err != nil {
					return fmt.Errorf("engine: hub: reading commands: %w", err)
				}
				return nil // the GUI closed the stream
			}
			if quit := h.handle(ctx, line.text, line.at); quit {
				return nil
			}
			if err := h.writeErr(); err != nil {
				return err
			}
		}
	}
}

// stamped is a command line and when the reader read it: a search's
// clock starts when its go arrived, not when the handler got to it.
type stamped struct {
	text string
	at   time.Time
}

func (h *Hub) writeErr() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.werr
}

// maxHubLine is the longest command line the engine reads (1 MiB); a
// longer line is discarded with an error answer.
const maxHubLine = 1 << 20

var errLineTooLong = errors.New("line too long")

// tooLongLine stands for a discarded line; it cannot come from the reader
// because it holds a newline.
const tooLongLine = "\n too long"

// readLine reads one line of at most max bytes, without its end of line.
// A longer line is read to its end and discarded: errLineTooLong. At the
// end of the input it returns what it read with io.EOF.
func readLine(r *bufio.Reader, max int) (string, error) {
	var buf []byte
	long := false
	for {
		chunk, err := r.ReadSlice('\n')
		if !long {
			if len(buf)+len(chunk) > max+2 { // room for "\r\n"
				long, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if long {
			if err == nil {
				return "", errLineTooLong
			}
			return "", err
		}
		s := strings.TrimRight(string(buf), "\r\n")
		return s, err
	}
}

// send writes one line; it is safe from any goroutine.
func (h *Hub) send(l HubLine) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.werr != nil {
		return
	}
	if _, err := io.WriteString(h.out, l.String()+"\n"); err != nil {
		h.werr = fmt.Errorf("engine: hub: writing answers: %w", err)
	}
}

func (h *Hub) sendError(format string, args ...any) {
	h.send(hubLine("error", "message", fmt.Sprintf(format, args...)))
}

// stop ends the search in progress, if any, and waits for its done line.
func (h *Hub) stop() {
	if h.job == nil {
		return
	}
	h.job.cancel()
	<-h.job.done
	h.job = nil
}

// finished drops a job whose search has ended by itself.
func (h *Hub) finished() {
	if h.job == nil {
		return
	}
	select {
	case <-h.job.done:
		h.job.cancel()
		h.job = nil
	default:
	}
}

// handle executes one command line, read at at; it reports whether to
// quit.
func (h *Hub) handle(ctx context.Context, text string, at time.Time) bool {
	h.finished()
	if text == tooLongLine {
		h.sendError("line too long (more than %d bytes): ignored", maxHubLine)
		return false
	}
	l, err := ParseHubLine(text)
	if err != nil {
		h.sendError("%v", err)
		return false
	}
	switch l.Command {
	case "":
	case "hub":
		h.send(hubLine("id", "name", h.opt.Name, "version", h.opt.Version, "author", h.opt.Author))
		p := hubLine("param", "name", "variant", "value", "italian", "type", "enum", "values", "italian")
		h.send(p)
		h.send(hubLine("param", "name", "visits", "value", strconv.Itoa(h.opt.Visits), "type", "int", "min", "0", "max", "100000000"))
		h.send(hubLine("param", "name", "tree-mb", "value", strconv.Itoa(TreeMB(h.searcher.search.Options().MaxNodes)), "type", "int",
			"min", strconv.Itoa(MinTreeMB), "max", strconv.Itoa(MaxTreeMB)))
		h.send(hubLine("param", "name", "threads", "value", strconv.Itoa(h.searcher.search.Options().Threads), "type", "int",
			"min", "1", "max", strconv.Itoa(MaxThreads)))
		h.send(HubLine{Command: "wait"})
	case "set-param":
		h.setParam(l)
	case "init":
		h.send(HubLine{Command: "ready"})
	case "ping":
		h.send(HubLine{Command: "pong"})
	case "new-game":
		h.stop()
		h.searcher.Reset()
	case "pos":
		h.stop()
		h.setPosition(l)
	case "level":
		h.setLevel(l)
	case "go":
		h.stop()
		h.start(ctx, l, at)
	case "ponder-hit":
		if h.job != nil && h.job.hit != nil {
			h.job.hit()
			h.job.hit = nil
		}
		if h.job != nil && h.job.release != nil {
			close(h.job.release)
			h.job.release = nil
		}
	case "stop":
		h.stop()
	case "quit":
		h.stop()
		return true
	}
	return false
}

func (h *Hub) setParam(l HubLine) {
	name, _ := l.Get("name")
	value, _ := l.Get("value")
	switch name {
	case "variant":
		if value != "italian" {
			h.sendError("variant %q is not supported (only italian)", value)
		}
	case "visits":
		v, err := strconv.Atoi(value)
		if err != nil || v < 0 || (v == 0 && h.opt.Time <= 0) {
			h.sendError("param visits: %q is not a positive integer", value)
			return
		}
		h.opt.Visits = v
	case "tree-mb":
		mb, err := strconv.Atoi(value)
		if err != nil || mb < MinTreeMB || mb > MaxTreeMB {
			h.sendError("param tree-mb: %q is not a size in MB in [%d, %d]", value, MinTreeMB, MaxTreeMB)
			return
		}
		h.stop()
		opt := h.searcher.search.Options()
		opt.MaxNodes = TreeNodes(mb)
		h.searcher = h.newSearcher(opt)
	case "threads":
		n, err := strconv.Atoi(value)
		var warning string
		if err == nil {
			warning, err = CheckThreads(n)
		} else {
			err = fmt.Errorf("%q is not an integer", value)
		}
		if err != nil {
			h.sendError("param threads: %v", err)
			return
		}
		h.warnOnce(warning)
		h.stop()
		opt := h.searcher.search.Options()
		opt.Threads = n
		h.searcher = h.newSearcher(opt)
		if _, direct := h.ev.(interface{ BatchEvaluator() mcts.BatchEvaluator }); !direct {
			// An evaluator without a batch view runs the threads'
			// batches on its batchers: one per thread.
			if w, ok := h.ev.(interface{ SetWorkers(int) }); ok {
				w.SetWorkers(n)
			}
		}
	default:
		h.sendError("unknown param %q", name)
	}
}

// warnOnce writes a warning to the Hub's log, the first time only.
func (h *Hub) warnOnce(warning string) {
	if warning == "" || h.warned || h.opt.Log == nil {
		return
	}
	h.warned = true
	fmt.Fprintln(h.opt.Log, "warning:", warning)
}

func (h *Hub) setPosition(l HubLine) {
	h.game = nil
	ps, ok := l.Get("pos")
	if !ok {
		h.sendError("pos: missing pos=<W|B><32 squares>")
		return
	}
	p, err := ParseHubPosition(ps)
	if err != nil {
		h.sendError("%v", err)
		return
	}
	g := rules.NewGame(p)
	if moves, ok := l.Get("moves"); ok {
		for i, ms := range strings.Fields(moves) {
			m, err := ParseHubMove(g.Position(), ms)
			if err != nil {
				h.sendError("pos: move %d: %v", i+1, err)
				return
			}
			if err := g.Play(m); err != nil {
				h.sendError("pos: move %d (%s): %v", i+1, ms, err)
				return
			}
		}
	}
	h.game = g
}

// maxLevelSeconds is the most seconds a level's move-time, time or inc
// may give, as dama hub's --time allows.
const maxLevelSeconds = 1e6

// maxLevelMoves is the most moves to go a level may give.
const maxLevelMoves = 1000

// setLevel takes the GUI's level. A bad value (not a number, negative,
// NaN, infinite or over maxLevelSeconds; a move-time or clock time of
// zero; more than maxLevelMoves moves to go) gets one error answer naming
// the argument, and the level stays as it was.
func (h *Hub) setLevel(l HubLine) {
	var lv level
	var bad error
	seconds := func(name string, zero bool) time.Duration {
		v, ok := l.Get(name)
		if !ok || bad != nil {
			return 0
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || !(f >= 0 && f <= maxLevelSeconds) { // NaN fails both
			bad = fmt.Errorf("level %s: %q is not a number of seconds in [0, %.0f]", name, v, float64(maxLevelSeconds))
			return 0
		}
		d := time.Duration(f * float64(time.Second))
		if d <= 0 && !zero {
			bad = fmt.Errorf("level %s: %q: the time must be more than zero", name, v)
			return 0
		}
		return d
	}
	count := func(name string, most int) int {
		v, ok := l.Get(name)
		if !ok || bad != nil {
			return 0
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > most {
			bad = fmt.Errorf("level %s: %q is not a count in [0, %d]", name, v, most)
			return 0
		}
		return n
	}
	lv.visits = count("nodes", math.MaxInt32)
	lv.depth = count("depth", math.MaxInt32)
	lv.moves = count("moves", maxLevelMoves)
	lv.moveTime = seconds("move-time", false)
	lv.time = seconds("time", false)
	lv.inc = seconds("inc", true)
	if bad != nil {
		h.sendError("%v", bad)
		return
	}
	_, lv.clocked = l.Get("time")
	_, lv.infinite = l.Get("infinite")
	h.level = lv
}

// limits turns the GUI's level into search limits.
func (h *Hub) limits() Limits {
	lv := h.level
	lim := Limits{Visits: lv.visits, Depth: lv.depth, Infinite: lv.infinite}
	switch {
	case lv.moveTime > 0:
		lim.Time = lv.moveTime
	case lv.clocked:
		lim.Left, lim.Inc, lim.MovesToGo = lv.time, lv.inc, lv.moves
	}
	if lim.unlimited() && !lim.Infinite {
		lim.Visits, lim.Time = h.opt.Visits, h.opt.Time
	}
	return lim
}

// start launches a search for "go think|ponder|analyze" that arrived at at.
func (h *Hub) start(ctx context.Context, l HubLine, at time.Time) {
	if h.game == nil {
		h.sendError("go: no position (send pos first)")
		return
	}
	if o := h.game.Outcome(); o.Over() {
		h.sendError("go: the game is over (%s, %s)", o.Result, o.Reason)
		return
	}
	lim := h.limits()
	lim.Start = at
	_, ponder := l.Get("ponder")
	jctx, cancel := context.WithCancel(ctx)
	j := &job{cancel: cancel, done: make(chan struct{})}
	if ponder && (lim.Time > 0 || lim.Left > 0) {
		// The clock is not running: search until ponder-hit, then for
		// lim.Time or the clock's share of a move.
		budget := lim.Time
		if budget <= 0 {
			budget, _ = planMove(lim.Left, lim.Inc, lim.MovesToGo)
		}
		lim.Time, lim.Left = 0, 0
		if lim.Visits <= 0 && lim.Depth <= 0 {
			lim.Infinite = true
		}
		var once sync.Once
		j.hit = func() { once.Do(func() { time.AfterFunc(budget, cancel) }) }
	}
	var release chan struct{}
	if ponder {
		release = make(chan struct{})
		j.release = release
	}
	h.job = j
	g := h.game
	go func() {
		defer close(j.done)
		res, err := h.searcher.Think(jctx, g, lim, func(i Info) { h.send(infoLine(i)) })
		if release != nil && err == nil {
			// A finished ponder search answers only after ponder-hit or stop.
			select {
			case <-release:
			case <-jctx.Done():
			}
		}
		if err != nil {
			h.sendError("search failed: %v", err)
			if legal := g.Position().Legal(nil); len(legal) > 0 {
				h.send(hubLine("done", "move", FormatHubMove(legal[0])))
			}
			return
		}
		done := hubLine("done", "move", FormatHubMove(res.Move))
		if len(res.PV) >= 2 && res.PV[0] == res.Move {
			done.Args = append(done.Args, HubArg{Name: "ponder", Value: FormatHubMove(res.PV[1]), HasValue: true})
		}
		h.send(done)
	}()
}

// infoLine formats a progress report.
func infoLine(i Info) HubLine {
	r := i.Result
	pv := make([]string, len(r.PV))
	for k, m := range r.PV {
		pv[k] = FormatHubMove(m)
	}
	return hubLine("info",
		"depth", strconv.Itoa(len(r.PV)),
		"nodes", strconv.Itoa(r.RootVisits),
		"score", strconv.FormatFloat(scoreMen(r.Value), 'f', 2, 64),
		"wdl", fmt.Sprintf("%.3f %.3f %.3f", r.WDL[0], r.WDL[1], r.WDL[2]),
		"time", strconv.FormatFloat(i.Elapsed.Seconds(), 'f', 3, 64),
		"nps", strconv.FormatFloat(i.NodesPerSecond(), 'f', 0, 64),
		"pv", strings.Join(pv, " "))
}
