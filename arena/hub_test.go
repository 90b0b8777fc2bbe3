package arena

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"dama/engine"
	"dama/rules"
)

// The engines of these tests are this test binary run again with
// DAMA_TEST_HUB_ENGINE set: "dama", the Hub engine of dama hub (package
// engine's, searching with a uniform evaluator), or "faulty", a small
// engine that plays the first legal move until its second go, and then
// does what its mode says. The mode of each faulty process is the next
// entry of the comma-separated DAMA_TEST_HUB_PLAN, counted in the file
// DAMA_TEST_HUB_COUNTER ("ok" past its end): crash, hang, noinit (never
// answers init), illegal, garbled (a move that does not read), badline (a
// line that does not read), ok.
func TestMain(m *testing.M) {
	switch os.Getenv("DAMA_TEST_HUB_ENGINE") {
	case "":
		os.Exit(m.Run())
	case "dama":
		h := engine.NewHub(engine.Uniform{}, engine.HubOptions{Log: os.Stderr})
		if err := h.Run(context.Background(), os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	case "faulty":
		mode, err := faultyMode(os.Getenv("DAMA_TEST_HUB_PLAN"), os.Getenv("DAMA_TEST_HUB_COUNTER"))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(faultyEngine(mode, os.Stdin, os.Stdout, os.Stderr))
	}
	fmt.Fprintln(os.Stderr, "DAMA_TEST_HUB_ENGINE: want dama or faulty")
	os.Exit(2)
}

// faultyMode takes the next mode of plan, counting the processes in the
// file counter (the processes of one test start one at a time).
func faultyMode(plan, counter string) (string, error) {
	n := 0
	if counter != "" {
		b, err := os.ReadFile(counter)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
		n, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		if err := os.WriteFile(counter, []byte(strconv.Itoa(n+1)), 0o644); err != nil {
			return "", err
		}
	}
	modes := strings.Split(plan, ",")
	if plan == "" || n >= len(modes) {
		return "ok", nil
	}
	return modes[n], nil
}

// faultyEngine speaks the Hub protocol on in and out, faulting at its
// second go as mode says; it returns the exit status.
func faultyEngine(mode string, in io.Reader, out, errw io.Writer) int {
	fmt.Fprintf(errw, "faulty engine, mode %s\n", mode)
	sc := bufio.NewScanner(in)
	sc.Buffer(nil, 1<<20)
	var g *rules.Game
	gos := 0
	for sc.Scan() {
		l, err := engine.ParseHubLine(sc.Text())
		if err != nil {
			continue
		}
		switch l.Command {
		case "hub":
			fmt.Fprintln(out, "id name=faulty version=1")
			fmt.Fprintln(out, "param name=variant value=italian type=enum values=italian")
			fmt.Fprintln(out, "wait")
		case "init":
			if mode != "noinit" {
				fmt.Fprintln(out, "ready")
			}
		case "pos":
			ps, _ := l.Get("pos")
			p, err := engine.ParseHubPosition(ps)
			if err != nil {
				fmt.Fprintf(out, "error message=%q\n", err.Error())
				continue
			}
			g = rules.NewGame(p)
			moves, _ := l.Get("moves")
			for _, ms := range strings.Fields(moves) {
				m, err := engine.ParseHubMove(g.Position(), ms)
				if err != nil {
					fmt.Fprintf(out, "error message=%q\n", err.Error())
					break
				}
				g.PlayUnchecked(m)
			}
		case "go":
			gos++
			fmt.Fprintln(out, "info depth=1 nodes=1")
			if gos >= 2 {
				switch mode {
				case "crash":
					fmt.Fprintln(errw, "faulty: crashing on purpose")
					return 3
				case "hang":
					fmt.Fprintln(errw, "faulty: hanging on purpose")
					time.Sleep(time.Hour)
					return 4
				case "illegal":
					fmt.Fprintln(out, "done move=1-2") // never a move: not diagonal
					continue
				case "garbled":
					fmt.Fprintln(out, "done move=banana")
					continue
				case "badline":
					fmt.Fprintln(out, `done move="22-18`)
					continue
				}
			}
			legal := g.Position().Legal(nil)
			fmt.Fprintf(out, "done move=%s\n", engine.FormatHubMove(legal[0]))
		case "quit":
			return 0
		}
	}
	return 0
}

// testHub returns a HubPlayer running this test binary as the engine
// kind ("dama" or "faulty" with plan), its log in the buffer returned.
func testHub(t *testing.T, kind, plan string, cfg HubConfig) (*HubPlayer, *syncBuffer) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	log := &syncBuffer{}
	cfg.Command = []string{"env", "DAMA_TEST_HUB_ENGINE=" + kind, "DAMA_TEST_HUB_PLAN=" + plan,
		"DAMA_TEST_HUB_COUNTER=" + filepath.Join(t.TempDir(), "counter"), exe}
	cfg.Log = log
	if cfg.Visits == 0 && cfg.Time == 0 {
		cfg.Visits = 20
	}
	h, err := NewHubPlayer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := h.Close(); err != nil {
			t.Error(err)
		}
		if t.Failed() {
			t.Logf("the engines' log:\n%s", log)
		}
	})
	return h, log
}

// syncBuffer is a bytes.Buffer safe for several goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestHubPlayerPlaysDamaHub: dama's own Hub engine, run as an external
// engine, plays whole games against random without a fault, its level
// sent as the limit; its processes serve game after game.
func TestHubPlayerPlaysDamaHub(t *testing.T) {
	h, log := testHub(t, "dama", "", HubConfig{Visits: 30})
	res, err := Match(context.Background(), h, randomPlayer{}, MatchOptions{Games: 4, Parallel: 2, Seed: 3, MaxPlies: 120})
	if err != nil {
		t.Fatal(err)
	}
	if res.Games() != 4 || res.ForfeitsA.Total() != 0 || res.ForfeitsB.Total() != 0 {
		t.Errorf("got %s, want 4 games without forfeits", res)
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	text := log.String()
	if n := strings.Count(text, "] started: "); n < 1 || n > 2 {
		t.Errorf("%d engine processes started for 4 games 2 at a time, want 1 or 2 (kept between games)", n)
	}
	for _, want := range []string{"> set-param name=variant value=italian", "> level nodes=30", "< ready", "< done move="} {
		if !strings.Contains(text, want) {
			t.Errorf("the log lacks %q", want)
		}
	}
	if strings.Count(text, "] ended: exit status 0") != strings.Count(text, "] started: ") {
		t.Errorf("not every engine ended well after quit:\n%s", text)
	}
}

// TestHubPlayerFaults: each fault of an engine loses the game it happens
// in, with its kind and reason in the result and the PDN record, and the
// next game runs on a fresh process that plays it out.
func TestHubPlayerFaults(t *testing.T) {
	cases := []struct {
		mode, kind, detail string
	}{
		{"crash", FaultCrash, "while thinking (ply 3): exit status 3"},
		{"hang", FaultHang, "no move within"},
		{"noinit", FaultInit, "no ready within"},
		{"illegal", FaultIllegal, "1-2 at ply "},
		{"garbled", FaultGarbled, `move "banana" does not read`},
		{"badline", FaultGarbled, "unterminated quoted value"},
	}
	for _, c := range cases {
		t.Run(c.mode, func(t *testing.T) {
			t.Parallel()
			// Short deadlines: the sound engine answers at once.
			h, log := testHub(t, "faulty", c.mode, HubConfig{StartTimeout: 5 * time.Second, MoveTimeout: 5 * time.Second})
			var games []GameResult
			// The engine is B: Black in game 0, where it faults; White in
			// game 1, on a fresh process.
			res, err := Match(context.Background(), randomPlayer{}, h, MatchOptions{Games: 2, Parallel: 1, Seed: 1, MaxPlies: 60,
				OnGame: func(g GameResult) { games = append(games, g) }})
			if err != nil {
				t.Fatal(err)
			}
			if res.ForfeitsB.Total() != 1 || res.ForfeitsB.Of(c.kind) != 1 || res.ForfeitsA.Total() != 0 {
				t.Fatalf("got %s, want one forfeit by B, %s", res, c.kind)
			}
			if !strings.Contains(res.String(), "forfeits by "+h.Name()+" 1 ("+c.kind+" 1)") {
				t.Errorf("the summary does not name the forfeit: %s", res)
			}
			if len(games) != 2 {
				t.Fatalf("%d games, want 2", len(games))
			}
			g0, g1 := games[0], games[1]
			if g0.Index != 0 || g1.Index != 1 {
				t.Fatalf("games %d, %d: want 0, 1", g0.Index, g1.Index)
			}
			f := g0.Forfeit
			if f == nil || f.Side != rules.Black || f.Player != h.Name() || f.Fault.Kind != c.kind || !strings.Contains(f.Fault.Detail, c.detail) {
				t.Fatalf("game 0: forfeit %+v, want black %s by %s with %q", f, h.Name(), c.kind, c.detail)
			}
			if g0.Outcome.Result != rules.WhiteWins || g0.ScoreA != 1 {
				t.Errorf("game 0: %v, A scores %v: want a win for White, A", g0.Outcome, g0.ScoreA)
			}
			if c.mode != "noinit" && len(g0.Moves) == 0 {
				t.Errorf("game 0: no moves before the fault at the engine's second move")
			}
			rec := g0.Record()
			term, _ := rec.Tag("Termination")
			if !strings.HasPrefix(term, "forfeit by black ("+h.Name()+"): "+c.kind+": ") || !strings.Contains(term, c.detail) {
				t.Errorf("game 0: Termination %q, want the forfeit and its reason", term)
			}
			if g1.Forfeit != nil || g1.Outcome.Reason == rules.Adjudicated && !strings.HasPrefix(g1.Outcome.Note, "length cap") {
				t.Errorf("game 1: %+v %v, want a game played out on a fresh engine", g1.Forfeit, g1.Outcome)
			}
			// The PDN records judge to the same result, forfeit included.
			path := filepath.Join(t.TempDir(), "match.pdn")
			if err := WriteCounted(path, games, res.Games()); err != nil {
				t.Fatal(err)
			}
			text, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			recs, err := rules.ParsePDN(string(text))
			if err != nil {
				t.Fatal(err)
			}
			judged, err := Judged(recs)
			if err != nil {
				t.Fatal(err)
			}
			if judged.ForfeitsB != res.ForfeitsB || judged.Wins != res.Wins || judged.Losses != res.Losses {
				t.Errorf("judged again: %s, want %s", judged, res)
			}
			if err := h.Close(); err != nil {
				t.Fatal(err)
			}
			logText := log.String()
			if n := strings.Count(logText, "] started: "); n != 2 {
				t.Errorf("%d engine processes started, want 2: the faulty one and a fresh one", n)
			}
			if !strings.Contains(logText, "stderr: faulty engine, mode "+c.mode) || !strings.Contains(logText, "stderr: faulty engine, mode ok") {
				t.Errorf("the log lacks the engines' stderr")
			}
		})
	}
}

// TestHubPlayerCancel: a match stopped while an engine thinks ends its
// process without counting a fault.
func TestHubPlayerCancel(t *testing.T) {
	h, log := testHub(t, "faulty", "hang", HubConfig{})
	ctx, cancel := context.WithCancel(context.Background())
	g := rules.NewGame(rules.Start())
	gp, err := h.Start(ctx, g, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer gp.Close()
	m, err := gp.Move(ctx, g) // the first move is sound
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Play(m); err != nil {
		t.Fatal(err)
	}
	cancel()
	_, err = gp.Move(ctx, g)
	if _, fault := AsFault(err); !errors.Is(err, context.Canceled) || fault {
		t.Fatalf("Move after cancel: %v, want the context's error, no fault", err)
	}
	gp.Close()
	if !strings.Contains(log.String(), "] ended: signal: killed") {
		t.Errorf("the hanging engine was not killed:\n%s", log)
	}
}

// TestHubPlayerErrors: a program that is not there, a missing limit and
// an engine without Italian draughts are errors, not faults.
func TestHubPlayerErrors(t *testing.T) {
	for _, cfg := range []HubConfig{
		{Command: []string{"/no/such/engine"}, Visits: 10},
		{Command: nil, Visits: 10},
		{Command: []string{"env"}},
	} {
		if _, err := NewHubPlayer(cfg); err == nil {
			t.Errorf("%+v: no error", cfg)
		}
	}
	// An engine declaring variants without italian: "sh -c" plays one.
	script := `read l; echo "param name=variant value=normal type=enum values=\"normal frisian\""; echo wait; read l`
	h, err := NewHubPlayer(HubConfig{Command: []string{"sh", "-c", script}, Visits: 10})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	_, err = h.Start(context.Background(), rules.NewGame(rules.Start()), nil)
	if _, fault := AsFault(err); err == nil || fault || !strings.Contains(err.Error(), "does not play Italian draughts (its variants: normal, frisian)") {
		t.Errorf("Start: %v, want an error (not a fault) naming the variants", err)
	}
}

// TestHubDeadline: the deadline of a move grows with the level.
func TestHubDeadline(t *testing.T) {
	if got := HubMoveDeadline(0, time.Second); got != 15*time.Second {
		t.Errorf("1s a move: %v, want 15s", got)
	}
	if got := HubMoveDeadline(1000, 0); got != 12*time.Second {
		t.Errorf("1000 visits: %v, want 12s", got)
	}
	if got := HubLevel(800, 250*time.Millisecond); got != "level nodes=800 move-time=0.25" {
		t.Errorf("HubLevel: %q", got)
	}
}

// TestParseForfeit: a Termination reads back, a player's name holding
// "): " included.
func TestParseForfeit(t *testing.T) {
	for _, f := range []Forfeit{
		{Side: rules.White, Player: "hub@800:./e", Fault: Fault{Kind: FaultHang, Detail: "no move within 11.6s"}},
		{Side: rules.Black, Player: "hub:sh -c 'x): crash'", Fault: Fault{Kind: FaultGarbled, Detail: `move "x" does not read`}},
		{Side: rules.Black, Player: "e", Fault: Fault{Kind: FaultInit}},
	} {
		white, black := f.Player, "other"
		if f.Side == rules.Black {
			white, black = black, white
		}
		got, ok := parseForfeit(f.Termination(), white, black)
		if !ok || got != f {
			t.Errorf("%q: read %+v %v, want %+v", f.Termination(), got, ok, f)
		}
	}
	for _, term := range []string{"forfeit by nobody (x): crash", "forfeit by white (y): crash", "forfeit by white (x): fell asleep"} {
		if _, ok := parseForfeit(term, "x", "y"); ok {
			t.Errorf("%q read as a forfeit in x vs y", term)
		}
	}
}

// TestFaultCountJSON: a ladder result writes its forfeits by kind, none
// when there are none, and reads them back; an unknown kind is an error.
func TestFaultCountJSON(t *testing.T) {
	var r LadderResult
	b, err := json.Marshal(r)
	if err != nil || strings.Contains(string(b), "forfeits") {
		t.Errorf("no forfeits: %s, %v", b, err)
	}
	r.Forfeits.Add(FaultHang, 2)
	r.Forfeits.Add(FaultIllegal, 1)
	if b, err = json.Marshal(r); err != nil || !strings.Contains(string(b), `"forfeits":{"hang":2,"illegal move":1}`) {
		t.Errorf("forfeits: %s, %v", b, err)
	}
	var back LadderResult
	if err := json.Unmarshal(b, &back); err != nil || back.Forfeits != r.Forfeits {
		t.Errorf("read back %v, %v; want %v", back.Forfeits, err, r.Forfeits)
	}
	if !strings.Contains(r.String(), "3 games lost by forfeit (hang 2, illegal move 1)") {
		t.Errorf("String: %s", r)
	}
	if err := json.Unmarshal([]byte(`{"forfeits":{"sulk":1}}`), &back); err == nil {
		t.Error("an unknown kind read")
	}
}

// faultingPlayer plays random moves, but faults at its third move of
// every game with the kind given.
type faultingPlayer struct{ kind string }

func (faultingPlayer) Name() string { return "faulting" }

func (p faultingPlayer) Start(ctx context.Context, g *rules.Game, rng *rand.Rand) (GamePlayer, error) {
	gp, err := randomPlayer{}.Start(ctx, g, rng)
	return &faultingGame{GamePlayer: gp, kind: p.kind}, err
}

type faultingGame struct {
	GamePlayer
	kind  string
	moves int
}

func (f *faultingGame) Move(ctx context.Context, g *rules.Game) (rules.Move, error) {
	if f.moves++; f.moves == 3 {
		return rules.Move{}, &Fault{Kind: f.kind, Detail: "on purpose"}
	}
	return f.GamePlayer.Move(ctx, g)
}

// TestClimbCountsForfeits: the ladder counts a rated player's forfeits
// and its rating takes them as losses.
func TestClimbCountsForfeits(t *testing.T) {
	res, err := Climb(context.Background(), faultingPlayer{FaultHang}, testLadder(t), ParsePlayer, LadderOptions{Games: 12, ProbePairs: 1, Parallel: 2})
	if err != nil {
		t.Fatal(err)
	}
	if res.Forfeits.Of(FaultHang) != 12 || res.Forfeits.Total() != 12 {
		t.Errorf("forfeits %v, want 12 hangs", res.Forfeits)
	}
	for _, r := range res.Rungs {
		if w, d, _ := r.Pairs.Counts(); w+d != 0 {
			t.Errorf("rung %s: %d wins, %d draws of a player that loses every game", r.Rung.Player, w, d)
		}
	}
}
