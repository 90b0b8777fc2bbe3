package classic

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"dama/internal/evaltest"
	"dama/rules"
)

func search(t *testing.T, e *Engine, g *rules.Game, lim Limits, seed uint64) Result {
	t.Helper()
	r, err := e.Search(context.Background(), g, lim, rand.New(rand.NewPCG(seed, 0)))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func playNamed(t *testing.T, g *rules.Game, s string) {
	t.Helper()
	for _, m := range g.Legal(nil) {
		if m.String() == s {
			g.PlayUnchecked(m)
			return
		}
	}
	t.Fatalf("move %s is not legal in %s", s, g.Position().FEN())
}

func TestFindsForcedWin(t *testing.T) {
	for _, c := range evaltest.WinIn3 {
		g := rules.NewGame(evaltest.Position(t, c.FEN))
		if winners := evaltest.WinningMoves(g, 4); len(winners) != 1 || winners[0] != c.Win {
			t.Fatalf("%s: oracle finds winning moves %v, want only %s", c.FEN, winners, c.Win)
		}
		for depth := 3; depth <= 7; depth++ {
			for seed := uint64(0); seed < 4; seed++ {
				r := search(t, New(Options{}), g, Limits{Depth: depth}, seed)
				if r.Move.String() != c.Win || r.Score != WinScore-3 {
					t.Errorf("%s depth %d seed %d: %s scored %d, want %s scored %d (a win in 3 plies)", c.FEN, depth, seed, r.Move, r.Score, c.Win, WinScore-3)
				}
				if len(r.PV) < 3 || r.PV[0] != r.Move {
					t.Errorf("%s depth %d: PV %v does not start with %s and show the win", c.FEN, depth, r.PV, r.Move)
				}
			}
		}
	}
}

// TestWinInN checks that a longer forced win the oracle confirms is found
// (scored as a win in at most N plies) at every depth >= N.
func TestWinInN(t *testing.T) {
	// Two kings against one in the corner area: the oracle says White
	// wins within n plies; the engine must see it at depth n.
	for _, c := range []struct {
		fen string
		n   int
	}{
		{"W:WK18,K19:BK1", 7},
	} {
		g := rules.NewGame(evaltest.Position(t, c.fen))
		if !evaltest.ForcedWin(g, c.n) || evaltest.ForcedWin(g, c.n-2) {
			t.Fatalf("%s: the oracle does not confirm a win in exactly %d plies", c.fen, c.n)
		}
		for d := c.n; d <= c.n+2; d++ {
			r := search(t, New(Options{}), g, Limits{Depth: d}, 1)
			if r.Score != WinScore-c.n {
				t.Errorf("%s depth %d: %s scored %d, want %d (win in %d)", c.fen, d, r.Move, r.Score, WinScore-c.n, c.n)
			}
		}
	}
}

// matMini is a material-only minimax over plies, from us's side.
func matMini(p rules.Position, plies int, us rules.Color) int {
	ms := p.Legal(nil)
	if len(ms) == 0 {
		if p.Side() == us {
			return -100
		}
		return 100
	}
	if plies == 0 {
		a, b := p.Count(us)
		c, d := p.Count(us.Opponent())
		return a + b - c - d
	}
	best := -1000
	if p.Side() != us {
		best = 1000
	}
	for _, m := range ms {
		v := matMini(p.Play(m), plies-1, us)
		if p.Side() == us && v > best || p.Side() != us && v < best {
			best = v
		}
	}
	return best
}

func TestAvoidsLosingAPiece(t *testing.T) {
	// Each position has one move that keeps the material level within 4
	// and 6 plies (by the material oracle); every other move loses a man.
	for _, c := range []struct{ fen, safe string }{
		{"W:W7,16,18,21,23:B4,6,24,26,27", "7-3"},
		{"W:W8,9,13,19,28:B1,4,18,21,24", "28-23"},
		{"W:W20,27,29:B23,24,28", "27-22"},
	} {
		p := evaltest.Position(t, c.fen)
		for _, m := range p.Legal(nil) {
			safe := matMini(p.Play(m), 3, rules.White) >= 0 && matMini(p.Play(m), 5, rules.White) >= 0
			if safe != (m.String() == c.safe) {
				t.Fatalf("%s: oracle says %s safe=%v; the test expects only %s safe", c.fen, m, safe, c.safe)
			}
		}
		for d := 2; d <= 8; d += 2 {
			for seed := uint64(0); seed < 3; seed++ {
				if r := search(t, New(Options{}), rules.NewGame(p), Limits{Depth: d}, seed); r.Move.String() != c.safe {
					t.Errorf("%s depth %d seed %d: played %s (score %d), want %s", c.fen, d, seed, r.Move, r.Score, c.safe)
				}
			}
		}
	}
}

func TestScoresLossAndDraw(t *testing.T) {
	g := rules.NewGame(evaltest.Position(t, "B:W31,32,23:B19"))
	if !evaltest.ForcedLoss(g, 4) {
		t.Fatalf("test position is not a forced loss for Black")
	}
	if r := search(t, New(Options{}), g, Limits{Depth: 4}, 1); r.Score > -winBound {
		t.Errorf("lost position: score %d, want a loss", r.Score)
	}

	// Black, a king down, can repeat the start position a third time.
	g = rules.NewGame(evaltest.Position(t, "W:WK29,K32:BK1"))
	for _, mv := range []string{"29-25", "1-5", "25-29", "5-1", "29-25", "1-5", "25-29"} {
		playNamed(t, g, mv)
	}
	if g.Repetitions() != 1 {
		t.Fatalf("repetitions = %d, want 1", g.Repetitions())
	}
	for _, noTable := range []bool{false, true} {
		for d := 3; d <= 9; d += 2 {
			if r := search(t, New(Options{NoTable: noTable}), g, Limits{Depth: d}, 1); r.Score != 0 || r.Move.String() != "5-1" {
				t.Errorf("depth %d, no table %v: a king down with a repetition available: %s scored %d, want 5-1 scored 0", d, noTable, r.Move, r.Score)
			}
		}
	}
	// Two plies earlier, White to move, the same draw is reachable below
	// the root: Black's reply 5-1 repeats. White, a king up, avoids it only
	// by another move; either way the score must not be a fake draw from
	// the table, and with the table and without it agree.
	g.Undo()
	g.Undo()
	for d := 4; d <= 8; d += 2 {
		a := search(t, New(Options{NoTable: true}), g, Limits{Depth: d}, 1)
		b := search(t, New(Options{}), g, Limits{Depth: d}, 1)
		if a.Score != b.Score {
			t.Errorf("depth %d with a repetition below the root: score %d without the table, %d with it", d, a.Score, b.Score)
		}
	}

	// The 40-move rule: one ply before the limit, any king move draws.
	// Kings wander without captures or repeated positions to get there;
	// White, two kings up, must still score the draw.
	for seed := uint64(0); ; seed++ {
		if seed == 20 {
			t.Fatalf("could not reach ply %d of the 40-move rule", rules.QuietLimit-1)
		}
		rng := rand.New(rand.NewPCG(seed, 0))
		g = rules.NewGame(evaltest.Position(t, "W:WK29,K30,K32:BK1"))
		for g.QuietPlies() < rules.QuietLimit-1 {
			ms := g.Legal(nil)
			rng.Shuffle(len(ms), func(i, j int) { ms[i], ms[j] = ms[j], ms[i] })
			moved := false
			for _, m := range ms {
				g.PlayUnchecked(m)
				p := g.Position()
				if !g.Outcome().Over() && g.Repetitions() == 0 && !p.HasCapture(rules.White) && !p.HasCapture(rules.Black) {
					moved = true
					break
				}
				g.Undo()
			}
			if !moved {
				break
			}
		}
		if g.QuietPlies() == rules.QuietLimit-1 {
			break
		}
	}
	if g.Outcome().Over() || g.QuietPlies() != rules.QuietLimit-1 {
		t.Fatalf("setup: outcome %v, quiet plies %d", g.Outcome(), g.QuietPlies())
	}
	if r := search(t, New(Options{}), g, Limits{Depth: 3}, 1); r.Score != 0 {
		t.Errorf("one ply from the 40-move draw: score %d, want 0", r.Score)
	}
}

// testPositions returns positions from seeded games between engines at a
// low depth, a mix of openings, middle games and endings.
func testPositions(t *testing.T, n int) []*rules.Game {
	rng := rand.New(rand.NewPCG(3, 4))
	var out []*rules.Game
	for len(out) < n {
		g := rules.NewGame(rules.Start())
		e := New(Options{})
		for ply := 0; ply < 200 && len(out) < n && !g.Outcome().Over(); ply++ {
			var m rules.Move
			if ply < 6 || rng.IntN(4) == 0 {
				ms := g.Legal(nil)
				m = ms[rng.IntN(len(ms))]
			} else {
				m = search(t, e, g, Limits{Depth: 3}, rng.Uint64()).Move
			}
			g.PlayUnchecked(m)
			if ply%5 == 0 && !g.Outcome().Over() {
				c := rules.NewGame(g.Start())
				for _, m := range g.Moves() {
					c.PlayUnchecked(m)
				}
				out = append(out, c)
			}
		}
	}
	return out
}

// TestTableKeepsScores: with cutoffs taken only from entries of exactly the
// depth needed, the table must not change the score of a fixed-depth
// search (the minimax value does not depend on move order); with the
// normal table the best move may differ only where a deeper entry saw more.
func TestTableKeepsScores(t *testing.T) {
	depth := 6
	if testing.Short() {
		depth = 5
	}
	gs := testPositions(t, 40)
	same := 0
	for i, g := range gs {
		plain := search(t, New(Options{NoTable: true}), g, Limits{Depth: depth}, 9)
		e := New(Options{TableMiB: 1})
		e.exactDepth = true
		exact := search(t, e, g, Limits{Depth: depth}, 9)
		if plain.Score != exact.Score {
			t.Errorf("position %d %s: score %d without the table, %d with it", i, g.Position().FEN(), plain.Score, exact.Score)
		}
		if exact.Nodes > plain.Nodes {
			t.Logf("position %d: the table searched more nodes (%d > %d)", i, exact.Nodes, plain.Nodes)
		}
		if normal := search(t, New(Options{}), g, Limits{Depth: depth}, 9); normal.Move == plain.Move {
			same++
		}
	}
	if same < len(gs)*3/4 {
		t.Errorf("the normal table changed the best move in %d of %d positions", len(gs)-same, len(gs))
	}
}

// playGame plays a whole game between two engines with node limits.
func playGame(t *testing.T, seed uint64, nodes int64) []rules.Move {
	g := rules.NewGame(rules.Start())
	es := [2]*Engine{New(Options{TableMiB: 1}), New(Options{TableMiB: 1})}
	rngs := [2]*rand.Rand{rand.New(rand.NewPCG(seed, 1)), rand.New(rand.NewPCG(seed, 2))}
	for ply := 0; ply < 120 && !g.Outcome().Over(); ply++ {
		s := g.Position().Side()
		r, err := es[s].Search(context.Background(), g, Limits{Nodes: nodes}, rngs[s])
		if err != nil {
			t.Fatal(err)
		}
		if r.Nodes > nodes+200_000 {
			t.Fatalf("node limit %d: searched %d", nodes, r.Nodes)
		}
		if err := g.Play(r.Move); err != nil {
			t.Fatal(err)
		}
	}
	return g.Moves()
}

func TestNodeLimitIsReproducible(t *testing.T) {
	a, b := playGame(t, 5, 3000), playGame(t, 5, 3000)
	if len(a) != len(b) {
		t.Fatalf("same seed: games of %d and %d plies", len(a), len(b))
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("same seed: games differ at ply %d (%s, %s)", i, a[i], b[i])
		}
	}
	c := playGame(t, 6, 3000)
	differ := len(c) != len(a)
	for i := 0; !differ && i < len(a); i++ {
		differ = a[i] != c[i]
	}
	if !differ {
		t.Errorf("seeds 5 and 6 played the same game")
	}
}

func TestTimeLimit(t *testing.T) {
	g := rules.NewGame(rules.Start())
	r := search(t, New(Options{}), g, Limits{Time: 20 * time.Millisecond}, 1)
	if err := g.Play(r.Move); err != nil {
		t.Errorf("time-limited search played an illegal move: %v", err)
	}
	if r.Depth < 1 {
		t.Errorf("time-limited search completed depth %d, want at least 1", r.Depth)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := New(Options{}).Search(ctx, rules.NewGame(rules.Start()), Limits{Depth: 30}, rand.New(rand.NewPCG(1, 1)))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled search: err %v, want context.Canceled", err)
	}
}

func TestBadInput(t *testing.T) {
	g := rules.NewGame(rules.Start())
	rng := rand.New(rand.NewPCG(1, 1))
	for _, lim := range []Limits{{}, {Depth: -1}, {Depth: MaxDepth + 1}, {Nodes: -5}, {Time: -time.Second}} {
		if _, err := New(Options{}).Search(context.Background(), g, lim, rng); err == nil {
			t.Errorf("limits %+v: want an error", lim)
		}
	}
	if _, err := New(Options{}).Search(context.Background(), g, Limits{Depth: 2}, nil); err == nil {
		t.Errorf("nil rng: want an error")
	}
	over := rules.NewGame(evaltest.Position(t, "W:W22:B18"))
	playNamed(t, over, "22x13")
	if _, err := New(Options{}).Search(context.Background(), over, Limits{Depth: 2}, rng); err == nil {
		t.Errorf("finished game: want an error")
	}
}

func TestSearchDoesNotAllocatePerNode(t *testing.T) {
	g := rules.NewGame(rules.Start())
	e := New(Options{TableMiB: 1})
	search(t, e, g, Limits{Depth: 6}, 1) // warm up
	allocs := testing.AllocsPerRun(3, func() {
		if _, err := e.Search(context.Background(), g, Limits{Depth: 8}, rand.New(rand.NewPCG(1, 1))); err != nil {
			t.Fatal(err)
		}
	})
	// A few per iteration (the PV copies and the rng), none per node.
	if allocs > 40 {
		t.Errorf("a depth-8 search allocates %.0f times, want a few per iteration", allocs)
	}
}

// fakeClock advances by step at each reading, so that a time-limited
// search stops after a fixed number of readings, whatever the machine.
type fakeClock struct {
	t    time.Time
	step time.Duration
}

func (c *fakeClock) now() time.Time {
	c.t = c.t.Add(c.step)
	return c.t
}

func TestTimeLimitStopsAtTheClock(t *testing.T) {
	run := func(limit time.Duration) Result {
		c := &fakeClock{t: time.Unix(0, 0), step: time.Millisecond}
		e := New(Options{Now: c.now})
		return search(t, e, rules.NewGame(rules.Start()), Limits{Time: limit}, 1)
	}
	short, long := run(10*time.Millisecond), run(200*time.Millisecond)
	t.Logf("10 fake ms: depth %d, %d nodes; 200 fake ms: depth %d, %d nodes", short.Depth, short.Nodes, long.Depth, long.Nodes)
	// The clock is read every 1024 nodes and once after each depth; at a
	// millisecond a reading, 10ms allow about ten readings past depth 1.
	if short.Depth < 1 || short.Nodes > 16*1024 {
		t.Errorf("10 fake ms: depth %d, %d nodes; want depth >= 1 and at most %d nodes", short.Depth, short.Nodes, 16*1024)
	}
	if long.Depth < short.Depth || long.Nodes <= short.Nodes {
		t.Errorf("200 fake ms searched depth %d (%d nodes), 10 fake ms depth %d (%d nodes): more time must search at least as deep", long.Depth, long.Nodes, short.Depth, short.Nodes)
	}
	if long.Depth >= MaxDepth {
		t.Errorf("200 fake ms reached depth %d: the limit did not stop the search", long.Depth)
	}
	// The move played is the first move of the last completed depth's
	// principal variation.
	if len(long.PV) == 0 || long.PV[0] != long.Move {
		t.Errorf("move %v, principal variation %v: want the move to lead it", long.Move, long.PV)
	}
}
