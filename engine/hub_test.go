package engine

import (
	"bufio"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"dama/mcts"
	"dama/model"
	"dama/model/infer"
	"dama/rules"
)

func TestHubPosition(t *testing.T) {
	if got, want := FormatHubPosition(rules.Start()), "Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww"; got != want {
		t.Fatalf("start = %q, want %q", got, want)
	}
	rng := rand.New(rand.NewPCG(1, 0))
	p := rules.Start()
	for i := 0; i < 500; i++ {
		legal := p.Legal(nil)
		if len(legal) == 0 {
			p = rules.Start()
			continue
		}
		s := FormatHubPosition(p)
		back, err := ParseHubPosition(s)
		if err != nil || back != p {
			t.Fatalf("%s -> %q -> %v, %v", p.FEN(), s, back.FEN(), err)
		}
		p = p.Play(legal[rng.IntN(len(legal))])
	}
	for _, bad := range []string{
		"", "W", "Xbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww", "Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwwx",
		"Wwbbbbbbbbbbbeeeeeeeewwwwwwwwwwww", // a white man on square 1
		"Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwwww",
		"Wbbbbbbbbbbbbeeeeeewwwwwwwwwwwwww", // 13 white men
		"WBBBBBBBBBBBBBBBBWWWWWWWWWWWWWWWW", // 16 kings a side
	} {
		if _, err := ParseHubPosition(bad); !errors.Is(err, ErrHub) {
			t.Errorf("ParseHubPosition(%q) error %v, want ErrHub", bad, err)
		}
	}
}

func TestHubMove(t *testing.T) {
	p, err := rules.ParseFEN("W:WK21,31:B10,18,27")
	if err != nil {
		t.Fatal(err)
	}
	legal := p.Legal(nil)
	if len(legal) != 1 {
		t.Fatalf("%d legal moves", len(legal))
	}
	if got := FormatHubMove(legal[0]); got != "31x6x27x18x10" {
		t.Errorf("FormatHubMove = %q, want 31x6x27x18x10", got)
	}
	for _, s := range []string{"31x6x27x18x10", "31x6x10x18x27", "31x22x13x6", "31x6", "31X6x27X18x10"} {
		m, err := ParseHubMove(p, s)
		if err != nil || m != legal[0] {
			t.Errorf("ParseHubMove(%q) = %v, %v; want %v", s, m, err, legal[0])
		}
	}
	for _, s := range []string{"31x6x27x18", "31x6x27x18x11", "22-18", "31-27", "x", "31x6x99"} {
		if _, err := ParseHubMove(p, s); err == nil {
			t.Errorf("ParseHubMove(%q) accepted", s)
		}
	}
	start := rules.Start()
	for _, m := range start.Legal(nil) {
		got, err := ParseHubMove(start, FormatHubMove(m))
		if err != nil || got != m {
			t.Errorf("round trip of %v: %v, %v", m, got, err)
		}
	}
}

func TestHubLine(t *testing.T) {
	l, err := ParseHubLine(`info depth=3 pv="22-18 11-15" empty="" flag q="a \"b\" c" eq="x=y"`)
	if err != nil {
		t.Fatal(err)
	}
	want := []HubArg{{"depth", "3", true}, {"pv", "22-18 11-15", true}, {"empty", "", true},
		{"flag", "", false}, {"q", `a "b" c`, true}, {"eq", "x=y", true}}
	if l.Command != "info" || len(l.Args) != len(want) {
		t.Fatalf("parsed %+v", l)
	}
	for i, a := range want {
		if l.Args[i] != a {
			t.Errorf("arg %d = %+v, want %+v", i, l.Args[i], a)
		}
	}
	back, err := ParseHubLine(l.String())
	if err != nil || back.String() != l.String() {
		t.Errorf("round trip %q -> %q (%v)", l.String(), back.String(), err)
	}
	if _, err := ParseHubLine(`pos pos="Wbb`); err == nil {
		t.Error("unterminated quote accepted")
	}
}

// hubClient drives a Hub through pipes as a GUI would.
type hubClient struct {
	t     *testing.T
	in    *io.PipeWriter
	lines chan string
	done  chan error
}

func startHub(t *testing.T, ev mcts.Evaluator) *hubClient {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &hubClient{t: t, in: inW, lines: make(chan string, 1000), done: make(chan error, 1)}
	h := NewHub(ev, HubOptions{Visits: 40, InfoEvery: time.Millisecond})
	go func() {
		err := h.Run(context.Background(), inR, outW)
		outW.Close()
		c.done <- err
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
	}()
	t.Cleanup(func() { inW.Close() })
	return c
}

func (c *hubClient) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		c.t.Fatalf("send %q: %v", line, err)
	}
}

// expect reads lines until one has the command cmd and returns it with the
// lines read before it. (The deadline only guards against a hung engine.)
func (c *hubClient) expect(cmd string) (HubLine, []HubLine) {
	c.t.Helper()
	var before []HubLine
	for {
		select {
		case s, ok := <-c.lines:
			if !ok {
				c.t.Fatalf("engine closed its output while %q was expected", cmd)
			}
			l, err := ParseHubLine(s)
			if err != nil {
				c.t.Fatalf("engine wrote a bad line %q: %v", s, err)
			}
			if l.Command == cmd {
				return l, before
			}
			if l.Command == "error" {
				c.t.Fatalf("engine error while %q was expected: %s", cmd, s)
			}
			before = append(before, l)
		case <-time.After(2 * time.Minute):
			c.t.Fatalf("no %q from the engine", cmd)
		}
	}
}

// checkDone verifies that a done line names a legal move of p, and that
// its ponder move is legal after it.
func checkDone(t *testing.T, done HubLine, p rules.Position) rules.Move {
	t.Helper()
	ms, ok := done.Get("move")
	if !ok {
		t.Fatalf("done without move: %s", done)
	}
	m, err := ParseHubMove(p, ms)
	if err != nil {
		t.Fatalf("done move: %v", err)
	}
	if FormatHubMove(m) != ms {
		t.Errorf("done move %q is not in Hub form (%q)", ms, FormatHubMove(m))
	}
	if ps, ok := done.Get("ponder"); ok {
		if _, err := ParseHubMove(p.Play(m), ps); err != nil {
			t.Errorf("ponder move: %v", err)
		}
	}
	return m
}

func testEvaluators(t *testing.T) map[string]mcts.Evaluator {
	cfg, err := model.Preset("tiny")
	if err != nil {
		t.Fatal(err)
	}
	ev := infer.NewEvaluator(model.NewSeededNetwork(cfg, 7), infer.EvaluatorOptions{MaxBatch: 8})
	t.Cleanup(ev.Close)
	return map[string]mcts.Evaluator{"uniform": Uniform{}, "tiny": ev}
}

func TestHubSession(t *testing.T) {
	for name, ev := range testEvaluators(t) {
		t.Run(name, func(t *testing.T) {
			c := startHub(t, ev)
			c.send("hub")
			id, _ := c.expect("id")
			if v, _ := id.Get("name"); v != "dama" {
				t.Errorf("id line %s", id)
			}
			_, params := c.expect("wait")
			variant := false
			for _, p := range params {
				if n, _ := p.Get("name"); p.Command == "param" && n == "variant" {
					vals, _ := p.Get("values")
					variant = strings.Contains(vals, "italian")
				}
			}
			if !variant {
				t.Errorf("no variant param with value italian among %v", params)
			}
			c.send("set-param name=variant value=italian")
			c.send("init")
			c.expect("ready")

			// A fixed number of visits from the start position.
			start := rules.Start()
			c.send("pos pos=" + FormatHubPosition(start))
			c.send("level nodes=60")
			c.send("go think")
			done, infos := c.expect("done")
			checkDone(t, done, start)
			if len(infos) == 0 {
				t.Fatal("no info line before done")
			}
			last := infos[len(infos)-1]
			if n, _ := last.Get("nodes"); n != "60" {
				t.Errorf("last info %s: nodes %q, want 60", last, n)
			}
			for _, f := range []string{"depth", "score", "pv", "time", "nps", "wdl"} {
				if _, ok := last.Get(f); !ok {
					t.Errorf("info line %s lacks %s", last, f)
				}
			}
			c.send("ping")
			c.expect("pong")

			// A position with moves (for repetition detection), as Hub sends them.
			g := rules.NewGame(start)
			var moves []string
			for i := 0; i < 4; i++ {
				m := g.Position().Legal(nil)[0]
				moves = append(moves, FormatHubMove(m))
				g.PlayUnchecked(m)
			}
			c.send(`pos pos=` + FormatHubPosition(start) + ` moves="` + strings.Join(moves, " ") + `"`)
			c.send("level move-time=0.05")
			c.send("go think")
			done, _ = c.expect("done")
			checkDone(t, done, g.Position())

			// Analysis without limit: ping is answered during the search, stop ends it.
			c.send("level infinite")
			c.send("go analyze")
			c.send("ping")
			c.expect("pong")
			c.send("stop")
			done, _ = c.expect("done")
			checkDone(t, done, g.Position())

			// Pondering: the clock starts at ponder-hit.
			c.send("new-game")
			c.send("pos pos=" + FormatHubPosition(start))
			c.send("level move-time=0.02")
			c.send("go ponder")
			c.send("ping")
			c.expect("pong")
			c.send("ponder-hit")
			done, _ = c.expect("done")
			checkDone(t, done, start)

			// A clock: a search of its share, and a ponder search given
			// its share at ponder-hit.
			c.send("level time=1 inc=0.01 moves=20")
			c.send("go think")
			done, _ = c.expect("done")
			checkDone(t, done, start)
			c.send("go ponder")
			c.send("ping")
			c.expect("pong")
			c.send("ponder-hit")
			done, _ = c.expect("done")
			checkDone(t, done, start)

			// A ponder search with a node limit finishes early but answers
			// only after ponder-hit: "done" must come after the pong of a
			// ping sent once the search has surely ended.
			c.send("level nodes=10")
			c.send("go ponder")
			time.Sleep(200 * time.Millisecond)
			c.send("ping")
			if _, before := c.expect("pong"); hasCommand(before, "done") {
				t.Errorf("a finished ponder search sent done before ponder-hit")
			}
			c.send("ponder-hit")
			done, _ = c.expect("done")
			checkDone(t, done, start)

			// The forced capture comes back in Hub form.
			forced, _ := rules.ParseFEN("W:WK21,31:B10,18,27")
			c.send("pos pos=" + FormatHubPosition(forced))
			c.send("level nodes=10")
			c.send("go think")
			done, _ = c.expect("done")
			if m, _ := done.Get("move"); m != "31x6x27x18x10" {
				t.Errorf("forced capture: done move=%s, want 31x6x27x18x10", m)
			}

			c.send("quit")
			if err := <-c.done; err != nil {
				t.Errorf("Run returned %v after quit", err)
			}
		})
	}
}

func TestHubErrors(t *testing.T) {
	c := startHub(t, Uniform{})
	for _, tc := range []struct{ send, want string }{
		{"set-param name=variant value=normal", "variant"},
		{"pos pos=Wxyz", "want 33"},
		{"go think", "no position"},
		{"pos pos=" + FormatHubPosition(rules.Start()) + ` moves="22-18 99-1"`, "move 2"},
		{"pos pos=Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww moves=\"21-17 9-13 17-14\"", "move 3"},
		{"level nodes=many", "nodes"},
		{"set-param name=tree-mb value=0", "tree-mb"},
		{"set-param name=tree-mb value=lots", "tree-mb"},
	} {
		c.send(tc.send)
		var l HubLine
		select {
		case s := <-c.lines:
			l, _ = ParseHubLine(s)
		case <-time.After(time.Minute):
			t.Fatalf("%q: no answer", tc.send)
		}
		msg, _ := l.Get("message")
		if l.Command != "error" || !strings.Contains(msg, tc.want) {
			t.Errorf("%q: engine answered %s, want an error mentioning %q", tc.send, l, tc.want)
		}
	}
	// Unknown commands are ignored; the engine still answers.
	c.send("frobnicate now=yes")
	c.send("ping")
	if l, _ := c.expect("pong"); l.Command != "pong" {
		t.Fatal("no pong")
	}
	// Closing the input ends the engine.
	c.in.Close()
	if err := <-c.done; err != nil {
		t.Errorf("Run returned %v at end of input", err)
	}
}

func hasCommand(lines []HubLine, cmd string) bool {
	for _, l := range lines {
		if l.Command == cmd {
			return true
		}
	}
	return false
}

// A line longer than any command (here 2 MiB) gets an error answer; the
// engine reads on (issue 13, point 7).
func TestHubHugeLine(t *testing.T) {
	c := startHub(t, Uniform{})
	go io.WriteString(c.in, strings.Repeat("x", 2<<20)+"\n")
	l, _ := c.expect("error")
	if msg, _ := l.Get("message"); !strings.Contains(msg, "too long") {
		t.Errorf("huge line: engine answered %s, want an error saying the line is too long", l)
	}
	c.send("ping")
	if l, _ := c.expect("pong"); l.Command != "pong" {
		t.Fatal("no pong after a huge line")
	}
	c.send("quit")
	if err := <-c.done; err != nil {
		t.Errorf("Run returned %v after quit", err)
	}
}

// A level with a time that is NaN, infinite, negative or beyond any clock
// gets one error naming the argument, and the level set before stays
// (issue 20, item 6: time=NaN and time=1e300 became a negative duration,
// so the engine played in 10 ms).
func TestHubLevelBadSeconds(t *testing.T) {
	var out strings.Builder
	h := NewHub(Uniform{}, HubOptions{})
	h.out = &out
	good, _ := ParseHubLine("level move-time=2")
	h.setLevel(good)
	want := h.level
	for _, tc := range []struct{ line, arg string }{
		{"level time=NaN", "time"},
		{"level time=1e300", "time"},
		{"level time=+Inf", "time"},
		{"level moves=40 time=-1", "time"},
		{"level move-time=NaN", "move-time"},
		{"level move-time=1e7", "move-time"},
		{"level time=60 inc=NaN", "inc"},
		{"level nodes=many time=NaN", "nodes"},
	} {
		out.Reset()
		l, err := ParseHubLine(tc.line)
		if err != nil {
			t.Fatal(err)
		}
		h.setLevel(l)
		answer := strings.TrimSpace(out.String())
		e, _ := ParseHubLine(answer)
		msg, _ := e.Get("message")
		if e.Command != "error" || strings.Count(answer, "\n") != 0 || !strings.HasPrefix(msg, "level "+tc.arg+": ") {
			t.Errorf("%q: answered %q, want one error about %s", tc.line, answer, tc.arg)
		}
		if h.level != want {
			t.Errorf("%q: level became %+v, want %+v kept", tc.line, h.level, want)
		}
	}
	ok, _ := ParseHubLine("level time=1e6")
	out.Reset()
	h.setLevel(ok)
	if out.Len() != 0 || h.level.time != 1e6*time.Second {
		t.Errorf("level time=1e6: answered %q, time %v", out.String(), h.level.time)
	}
}
