package arena

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"dama/engine"
	"dama/rules"
)

// Defaults of HubConfig.
const (
	// DefaultHubStart bounds an engine's handshake: from its start to
	// "wait" after "hub", and to "ready" after "init".
	DefaultHubStart = 30 * time.Second
	// hubMoveBase, hubMoveTimes and hubMovePerVisit make the deadline of
	// a move (HubMoveDeadline).
	hubMoveBase     = 10 * time.Second
	hubMoveTimes    = 5
	hubMovePerVisit = 2 * time.Millisecond
	// maxHubReply is the longest line read from an engine (1 MiB, as
	// dama hub reads its commands); a longer one is garbled.
	maxHubReply = 1 << 20
	// hubQuitWait is how long Close waits for an engine to end after
	// "quit" before it kills it.
	hubQuitWait = 2 * time.Second
)

// HubMoveDeadline is the time an engine gets for one move at the level
// of visits and time t before it counts as hung: 10 s, plus 5 times t,
// plus 2 ms a visit. It is meant to be generous (a loaded machine, an
// engine's own margin), so that only a hang reaches it.
func HubMoveDeadline(visits int, t time.Duration) time.Duration {
	return hubMoveBase + hubMoveTimes*t + time.Duration(visits)*hubMovePerVisit
}

// HubConfig describes an external engine speaking the Hub protocol (the
// protocol of Scan, as dama hub speaks it) as a player.
type HubConfig struct {
	// Label is the player's name in results; "" for "hub:" and the
	// command.
	Label string
	// Command is the program and its arguments.
	Command []string
	// Dir is the program's working directory; "": dama's.
	Dir string
	// Visits and Time are the search limit, sent as the engine's level
	// before each game: "level nodes=N" for visits alone, "level
	// move-time=S" for a time alone, both for both. At least one is set.
	Visits int
	Time   time.Duration
	// StartTimeout bounds the handshake (default DefaultHubStart);
	// MoveTimeout a move (default HubMoveDeadline of the limits).
	StartTimeout, MoveTimeout time.Duration
	// Log receives the engines' stderr and the protocol's lines (but the
	// info lines), each prefixed with the engine's process id; nil:
	// dropped. Writes to it are serialised.
	Log io.Writer
}

// HubPlayer plays the games of a match by an external engine speaking
// the Hub protocol. Each game takes an engine process that has finished
// its handshake (hub, set-param variant=italian where the engine declares
// the variant param, init) from those idle, or starts one; it sends
// new-game and the level, and for each move the game as "pos pos=START
// moves=..." and "go think", and reads "done move=...". Every move is
// checked against dama's move generator. A crash, a hang past the move's
// deadline, a handshake that does not finish, an illegal move or a
// garbled line is a Fault: the game is lost (Match records why) and the
// process is killed, so that the next game starts a fresh one. A process
// whose game ended well serves the next game. Close ends them all.
type HubPlayer struct {
	cfg   HubConfig
	logMu sync.Mutex

	mu     sync.Mutex
	idle   []*hubProc
	closed bool
}

// NewHubPlayer checks cfg and returns its player; no engine starts until
// the first game. An error names a program that is not found or a
// missing limit.
func NewHubPlayer(cfg HubConfig) (*HubPlayer, error) {
	if len(cfg.Command) == 0 || cfg.Command[0] == "" {
		return nil, errors.New("arena: hub player: no command")
	}
	if _, err := exec.LookPath(cfg.Command[0]); err != nil {
		return nil, fmt.Errorf("arena: hub player: %w", err)
	}
	if cfg.Visits < 0 || cfg.Time < 0 || cfg.Visits == 0 && cfg.Time == 0 {
		return nil, fmt.Errorf("arena: hub player %q: want visits or a time a move (%d, %v)", strings.Join(cfg.Command, " "), cfg.Visits, cfg.Time)
	}
	if cfg.Label == "" {
		cfg.Label = "hub:" + strings.Join(cfg.Command, " ")
	}
	if cfg.StartTimeout <= 0 {
		cfg.StartTimeout = DefaultHubStart
	}
	if cfg.MoveTimeout <= 0 {
		cfg.MoveTimeout = HubMoveDeadline(cfg.Visits, cfg.Time)
	}
	return &HubPlayer{cfg: cfg}, nil
}

// Name returns the player's label.
func (h *HubPlayer) Name() string { return h.cfg.Label }

// Level returns the level line the engine gets before each game.
func (h *HubPlayer) Level() string { return HubLevel(h.cfg.Visits, h.cfg.Time) }

// HubLevel is the level line of a search limit: "level nodes=800" for
// visits, "level move-time=0.25" for a time, both for both.
func HubLevel(visits int, t time.Duration) string {
	l := engine.HubLine{Command: "level"}
	if visits > 0 {
		l.Args = append(l.Args, engine.HubArg{Name: "nodes", Value: strconv.Itoa(visits), HasValue: true})
	}
	if t > 0 {
		l.Args = append(l.Args, engine.HubArg{Name: "move-time", Value: strconv.FormatFloat(t.Seconds(), 'f', -1, 64), HasValue: true})
	}
	return l.String()
}

// Start returns a player of one game with an engine ready for it; a
// Fault where a new engine does not finish its handshake.
func (h *HubPlayer) Start(ctx context.Context, g *rules.Game, _ *rand.Rand) (GamePlayer, error) {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil, fmt.Errorf("arena: %s: the player is closed", h.Name())
	}
	var p *hubProc
	if n := len(h.idle); n > 0 {
		p, h.idle = h.idle[n-1], h.idle[:n-1]
	}
	h.mu.Unlock()
	if p != nil && p.dead() { // ended while idle: start another
		p.kill()
		p = nil
	}
	if p == nil {
		var err error
		if p, err = h.launch(ctx); err != nil {
			return nil, err
		}
	}
	gp := &hubGame{h: h, p: p}
	for _, line := range []string{"new-game", h.Level()} {
		if err := p.send(line); err != nil {
			gp.Close()
			return nil, err
		}
	}
	return gp, nil
}

// Close ends the idle engines: quit, then a kill for one that has not
// ended within 2 s. Games still running end their engines as they close.
func (h *HubPlayer) Close() error {
	h.mu.Lock()
	idle := h.idle
	h.idle, h.closed = nil, true
	h.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range idle {
		wg.Go(p.quit)
	}
	wg.Wait()
	return nil
}

// release gives p back for the next game, or ends it when the player is
// closed.
func (h *HubPlayer) release(p *hubProc) {
	h.mu.Lock()
	if !h.closed {
		h.idle = append(h.idle, p)
		p = nil
	}
	h.mu.Unlock()
	if p != nil {
		p.quit()
	}
}

// logf writes one line to the log.
func (h *HubPlayer) logf(format string, args ...any) {
	if h.cfg.Log == nil {
		return
	}
	h.logMu.Lock()
	defer h.logMu.Unlock()
	fmt.Fprintf(h.cfg.Log, format+"\n", args...)
}

// launch starts an engine process and takes it through the handshake.
func (h *HubPlayer) launch(ctx context.Context) (*hubProc, error) {
	cmd := exec.Command(h.cfg.Command[0], h.cfg.Command[1:]...)
	cmd.Dir = h.cfg.Dir
	cmd.WaitDelay = time.Second // an engine's children holding its stderr do not hold Wait
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("arena: %s: %w", h.Name(), err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("arena: %s: %w", h.Name(), err)
	}
	stderr := &lineWriter{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("arena: %s: starting the engine: %w", h.Name(), err)
	}
	p := &hubProc{h: h, cmd: cmd, in: in, lines: make(chan hubRead, 16), exited: make(chan struct{}),
		tag: "pid " + strconv.Itoa(cmd.Process.Pid)}
	stderr.setEmit(func(line string) { h.logf("[%s] stderr: %s", p.tag, line) })
	h.logf("[%s] started: %s", p.tag, strings.Join(h.cfg.Command, " "))
	go p.read(out)
	if err := p.handshake(ctx); err != nil {
		p.kill()
		return nil, err
	}
	return p, nil
}

// hubGame is one game of a HubPlayer on one engine process.
type hubGame struct {
	h      *HubPlayer
	p      *hubProc
	broken bool // the engine faulted or was abandoned: kill it at Close
	buf    []string
}

// Move sends the game and reads the engine's move, checked against the
// legal moves; a Fault says why there is none.
func (gp *hubGame) Move(ctx context.Context, g *rules.Game) (rules.Move, error) {
	m, err := gp.move(ctx, g)
	if err != nil {
		gp.broken = true
	}
	return m, err
}

func (gp *hubGame) move(ctx context.Context, g *rules.Game) (rules.Move, error) {
	gp.buf = gp.buf[:0]
	for _, m := range g.Moves() {
		gp.buf = append(gp.buf, engine.FormatHubMove(m))
	}
	pos := engine.HubLine{Command: "pos", Args: []engine.HubArg{{Name: "pos", Value: engine.FormatHubPosition(g.Start()), HasValue: true}}}
	if len(gp.buf) > 0 {
		pos.Args = append(pos.Args, engine.HubArg{Name: "moves", Value: strings.Join(gp.buf, " "), HasValue: true})
	}
	if err := gp.p.send(pos.String()); err != nil {
		return rules.Move{}, err
	}
	if err := gp.p.send("go think"); err != nil {
		return rules.Move{}, err
	}
	timeout := gp.h.cfg.MoveTimeout
	var done engine.HubLine
	err := gp.p.await(ctx, timeout, func(l engine.HubLine) bool {
		done = l
		return l.Command == "done"
	}, func() *Fault {
		return &Fault{Kind: FaultHang, Detail: fmt.Sprintf("no move within %v of go (ply %d, %s)", timeout, g.Ply(), gp.h.Level())}
	}, fmt.Sprintf("while thinking (ply %d)", g.Ply()))
	if err != nil {
		return rules.Move{}, err
	}
	text, ok := done.Get("move")
	if !ok || text == "" {
		return rules.Move{}, &Fault{Kind: FaultGarbled, Detail: fmt.Sprintf("done without a move: %q (ply %d)", done.String(), g.Ply())}
	}
	if !moveShaped(text) {
		return rules.Move{}, &Fault{Kind: FaultGarbled, Detail: fmt.Sprintf("move %q does not read as squares joined by - or x (ply %d)", text, g.Ply())}
	}
	m, err := engine.ParseHubMove(g.Position(), text)
	if err != nil {
		var legal []string
		for _, m := range g.Legal(nil) {
			legal = append(legal, engine.FormatHubMove(m))
		}
		return rules.Move{}, &Fault{Kind: FaultIllegal, Detail: fmt.Sprintf("%s at ply %d in %s, whose legal moves are %s", text, g.Ply(), g.Position().FEN(), strings.Join(legal, " "))}
	}
	return m, nil
}

// Close gives a sound engine back for the next game and kills one that
// faulted.
func (gp *hubGame) Close() {
	if gp.p == nil {
		return
	}
	p := gp.p
	gp.p = nil
	if gp.broken || p.dead() {
		p.kill()
		return
	}
	gp.h.release(p)
}

// moveShaped reports whether s reads as a move of the Hub form or FID
// notation: at least two squares 1..32 joined by '-' or 'x'.
func moveShaped(s string) bool {
	parts := strings.FieldsFunc(s, func(r rune) bool { return r == '-' || r == 'x' || r == 'X' })
	if len(parts) < 2 || strings.Trim(s, "0123456789-xX") != "" {
		return false
	}
	for _, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > rules.NumSquares {
			return false
		}
	}
	return true
}

// hubProc is one engine process.
type hubProc struct {
	h       *HubPlayer
	cmd     *exec.Cmd
	in      io.WriteCloser
	tag     string       // "pid N", for the log
	lines   chan hubRead // its stdout, a line at a time; closed at its end
	exited  chan struct{}
	exitErr error // cmd.Wait's, once exited is closed
	failed  bool  // a write failed
	end     sync.Once
}

// hubRead is a line of an engine's stdout, or why reading stopped.
type hubRead struct {
	text string
	err  error
}

// read reads the engine's stdout into p.lines until its end, then waits
// for the process.
func (p *hubProc) read(out io.Reader) {
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 0, 4096), maxHubReply)
	for sc.Scan() {
		p.lines <- hubRead{text: strings.TrimRight(sc.Text(), "\r")}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			err = &Fault{Kind: FaultGarbled, Detail: fmt.Sprintf("a line longer than %d bytes", maxHubReply)}
		}
		p.lines <- hubRead{err: err}
	}
	close(p.lines)
	p.exitErr = p.cmd.Wait()
	close(p.exited)
}

// dead reports whether the process has ended or cannot be written to.
func (p *hubProc) dead() bool {
	select {
	case <-p.exited:
		return true
	default:
		return p.failed
	}
}

// send writes one line to the engine; a failed write is a crash.
func (p *hubProc) send(line string) error {
	p.h.logf("[%s] > %s", p.tag, line)
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		p.failed = true
		return &Fault{Kind: FaultCrash, Detail: fmt.Sprintf("cannot write to the engine (%v)%s", err, p.exitText(": "))}
	}
	return nil
}

// exitText says how the process ended, if it has (waiting a moment for
// it), after sep: ": exit status 2"; "" while it runs.
func (p *hubProc) exitText(sep string) string {
	select {
	case <-p.exited:
	case <-time.After(time.Second):
		return ""
	}
	if p.exitErr == nil {
		return sep + "exit status 0"
	}
	return sep + p.exitErr.Error()
}

// await reads the engine's lines until want takes one, within timeout:
// past it, the Fault late makes; the end of its output is a crash
// (during: what it was doing); a line that does not read is garbled.
// Info lines are skipped, error lines logged.
func (p *hubProc) await(ctx context.Context, timeout time.Duration, want func(engine.HubLine) bool, late func() *Fault, during string) error {
	t := time.NewTimer(timeout)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			p.kill()
			return ctx.Err()
		case <-t.C:
			return late()
		case r, ok := <-p.lines:
			switch {
			case !ok:
				return &Fault{Kind: FaultCrash, Detail: "the engine ended " + during + p.exitText(": ")}
			case r.err != nil:
				if f, ok := AsFault(r.err); ok {
					return f
				}
				return &Fault{Kind: FaultCrash, Detail: fmt.Sprintf("reading the engine %s: %v", during, r.err)}
			}
			if !utf8.ValidString(r.text) || strings.ContainsFunc(r.text, func(c rune) bool { return c < ' ' && c != '\t' }) {
				return &Fault{Kind: FaultGarbled, Detail: fmt.Sprintf("line %q %s", r.text, during)}
			}
			l, err := engine.ParseHubLine(r.text)
			if err != nil {
				return &Fault{Kind: FaultGarbled, Detail: fmt.Sprintf("%v %s", err, during)}
			}
			if l.Command != "info" {
				p.h.logf("[%s] < %s", p.tag, r.text)
			}
			if want(l) {
				return nil
			}
		}
	}
}

// handshake takes a new engine through "hub" to "wait" and "init" to
// "ready", setting the Italian variant where it declares the variant
// param. An engine that declares the param without italian is an error
// (not a Fault: no game can be played with it).
func (p *hubProc) handshake(ctx context.Context) error {
	timeout := p.h.cfg.StartTimeout
	var variants []string
	declared := false
	steps := []struct{ send, want string }{{"hub", "wait"}, {"init", "ready"}}
	for k, s := range steps {
		if err := p.send(s.send); err != nil {
			return err
		}
		err := p.await(ctx, timeout, func(l engine.HubLine) bool {
			if name, _ := l.Get("name"); l.Command == "param" && name == "variant" {
				declared = true
				v, _ := l.Get("values")
				variants = strings.Fields(v)
			}
			return l.Command == s.want
		}, func() *Fault {
			return &Fault{Kind: FaultInit, Detail: fmt.Sprintf("no %s within %v of %s", s.want, timeout, s.send)}
		}, "during the handshake (after "+s.send+")")
		if err != nil {
			return err
		}
		if k == 0 && declared {
			if !containsFold(variants, "italian") {
				return fmt.Errorf("arena: %s: the engine does not play Italian draughts (its variants: %s)", p.h.Name(), strings.Join(variants, ", "))
			}
			if err := p.send("set-param name=variant value=italian"); err != nil {
				return err
			}
		}
	}
	return nil
}

// containsFold reports whether list holds s, case aside.
func containsFold(list []string, s string) bool {
	for _, v := range list {
		if strings.EqualFold(v, s) {
			return true
		}
	}
	return false
}

// kill ends the process now and waits for it.
func (p *hubProc) kill() {
	p.end.Do(func() {
		_ = p.cmd.Process.Kill()
		p.in.Close()
		p.drain()
	})
}

// quit asks the process to end, and kills it past hubQuitWait.
func (p *hubProc) quit() {
	p.end.Do(func() {
		_ = p.send("quit")
		p.in.Close()
		select {
		case <-p.exited:
		case <-time.After(hubQuitWait):
			_ = p.cmd.Process.Kill()
		}
		p.drain()
	})
}

// hubDrainWait bounds drain: a process whose output stays open after it
// was killed (a child holding it) is left behind, logged.
const hubDrainWait = 5 * time.Second

// drain reads what is left of the engine's output, so that its reader
// ends, and waits for the process.
func (p *hubProc) drain() {
	t := time.NewTimer(hubDrainWait)
	defer t.Stop()
	for {
		select {
		case _, ok := <-p.lines:
			if ok {
				continue
			}
		case <-t.C:
			p.h.logf("[%s] killed, but its output stays open: left behind", p.tag)
			return
		}
		break
	}
	select {
	case <-p.exited:
		p.h.logf("[%s] ended%s", p.tag, p.exitText(": "))
	case <-t.C:
		p.h.logf("[%s] killed, but it has not ended: left behind", p.tag)
	}
}

// lineWriter passes what is written to it to emit a line at a time
// (an engine's stderr, to the log).
type lineWriter struct {
	mu   sync.Mutex
	buf  []byte
	emit func(string)
}

func (w *lineWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, b...)
	w.flush()
	return len(b), nil
}

// setEmit sets where the lines go, and passes those written so far.
func (w *lineWriter) setEmit(emit func(string)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.emit = emit
	w.flush()
}

// flush passes the whole lines of buf to emit (none before it is set);
// a line longer than maxHubReply is passed in pieces.
func (w *lineWriter) flush() {
	if w.emit == nil {
		return
	}
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		w.emit(strings.TrimRight(string(w.buf[:i]), "\r"))
		w.buf = w.buf[i+1:]
	}
	if len(w.buf) > maxHubReply {
		w.emit(string(w.buf))
		w.buf = w.buf[:0]
	}
}
