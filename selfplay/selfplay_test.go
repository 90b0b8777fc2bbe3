package selfplay

import (
	"context"
	"errors"
	"math"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"dama/internal/evaltest"
	"dama/mcts"
	"dama/rules"
)

// checkGame replays g through rules.Game and checks every recorded field
// that the rules determine.
func checkGame(t *testing.T, g *Game, cfg Config) {
	t.Helper()
	cfg = cfg.WithDefaults()
	rg := rules.NewGame(g.Start)
	for i := range g.Plies {
		p := &g.Plies[i]
		if p.Pos != rg.Position() {
			t.Fatalf("ply %d: position %v, replay has %v", i, p.Pos, rg.Position())
		}
		if !slices.Equal(p.Legal, rg.Legal(nil)) {
			t.Fatalf("ply %d: legal %v, want %v", i, p.Legal, rg.Legal(nil))
		}
		if p.Repetitions != rg.Repetitions() || p.QuietPlies != rg.QuietPlies() {
			t.Errorf("ply %d: repetitions %d quiet %d, want %d %d", i, p.Repetitions, p.QuietPlies, rg.Repetitions(), rg.QuietPlies())
		}
		var sum uint32
		for _, v := range p.Visits {
			sum += v
		}
		switch {
		case len(p.Legal) == 1 && p.Full:
			t.Errorf("ply %d: a forced move marked as a full search", i)
		case p.Full && int(sum) != cfg.Visits-1:
			t.Errorf("ply %d: full search with %d child visits, want %d", i, sum, cfg.Visits-1)
		case !p.Full && len(p.Legal) > 1 && int(sum) < cfg.CheapVisits-1:
			t.Errorf("ply %d: cheap search with %d child visits, want at least %d", i, sum, cfg.CheapVisits-1)
		}
		if len(p.Legal) > 1 {
			if w := p.WDL[0] + p.WDL[1] + p.WDL[2]; math.Abs(float64(w)-1) > 1e-4 {
				t.Errorf("ply %d: WDL %v sums to %v", i, p.WDL, w)
			}
		}
		rg.PlayUnchecked(p.Played())
	}
	o := rg.Outcome()
	switch g.End {
	case NoMoves, Repetition, FortyMoves:
		if o.Result != g.Result || Termination(o.Reason) != g.End {
			t.Errorf("game ends %v %v, the rules say %v %v", g.Result, g.End, o.Result, o.Reason)
		}
	case LengthCap:
		if o.Over() || g.Result != rules.Draw || len(g.Plies) != cfg.MaxPlies {
			t.Errorf("length cap after %d plies with result %v, rules %v", len(g.Plies), g.Result, o.Result)
		}
	case Resigned:
		if o.Over() || g.NoResign || g.Result != rules.WinFor(rg.Position().Side().Opponent()) {
			t.Errorf("resignation with result %v, side to move %v, no-resign %v", g.Result, rg.Position().Side(), g.NoResign)
		}
	default:
		t.Errorf("termination %v", g.End)
	}
}

func TestPlayGame(t *testing.T) {
	cfg := Config{Visits: 24, MaxPlies: 80, TemperaturePlies: 10, Seed: 1}
	pl, err := NewPlayer(evaltest.Material{}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		g, err := pl.Play(context.Background(), GameSeed(cfg.Seed, i))
		if err != nil {
			t.Fatal(err)
		}
		checkGame(t, g, cfg)
		if g.NoResign || g.WouldResign != -1 {
			t.Errorf("resignation off, but no-resign %v would-resign %d", g.NoResign, g.WouldResign)
		}
	}
}

func TestRunReproducible(t *testing.T) {
	cfg := Config{Visits: 16, MaxPlies: 60, Parallel: 3, LeavesInFlight: 2, CheapVisits: 4, Seed: 42}
	play := func() []*Game {
		var games []*Game
		err := Run(context.Background(), evaltest.Material{}, cfg, 10, 5, func(g *Game) error {
			games = append(games, g)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		sort.Slice(games, func(i, j int) bool { return games[i].Seed < games[j].Seed })
		return games
	}
	a, b := play(), play()
	if len(a) != 5 {
		t.Fatalf("%d games, want 5", len(a))
	}
	if !reflect.DeepEqual(a, b) {
		t.Errorf("two runs with the same seed differ")
	}
	var want []uint64
	for i := 10; i < 15; i++ {
		want = append(want, GameSeed(42, i))
	}
	slices.Sort(want)
	full, cheap := 0, 0
	for i, g := range a {
		if g.Seed != want[i] {
			t.Errorf("game seeds %v, want %v", g.Seed, want[i])
		}
		checkGame(t, g, cfg)
		for _, p := range g.Plies {
			if p.Full {
				full++
			} else if len(p.Legal) > 1 {
				cheap++
			}
		}
	}
	// With full searches at probability 0.25, both kinds occur.
	if full == 0 || cheap < full {
		t.Errorf("%d full and %d cheap searches, want about 1:3", full, cheap)
	}
}

func TestResignation(t *testing.T) {
	cfg := Config{Visits: 16, MaxPlies: 150, ResignThreshold: 0.2, ResignMoves: 2, NoResignShare: 0.5, Parallel: 4, Seed: 3}
	var games []*Game
	err := Run(context.Background(), evaltest.Material{Steep: 3}, cfg, 0, 12, func(g *Game) error {
		games = append(games, g)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	resigned, checked, noResign := 0, 0, 0
	for _, g := range games {
		checkGame(t, g, cfg)
		if g.End == Resigned {
			resigned++
		}
		if g.NoResign {
			noResign++
		}
		if g.WouldResign >= 0 {
			if !g.NoResign {
				t.Errorf("a resigning game has a would-resign ply")
			}
			ok, false_ := g.FalseResignation()
			side := g.Plies[g.WouldResign].Pos.Side()
			if !ok || false_ != (g.Result != rules.WinFor(side.Opponent())) {
				t.Errorf("FalseResignation %v %v for %v would-resign by %v", ok, false_, g.Result, side)
			}
			checked++
		}
	}
	if resigned == 0 || checked == 0 || noResign == 0 || noResign == len(games) {
		t.Errorf("%d resigned, %d checked for false resignation, %d of %d never resigning", resigned, checked, noResign, len(games))
	}
}

func TestRunCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	n := 0
	err := Run(ctx, evaltest.Material{}, Config{Visits: 8, MaxPlies: 40, Parallel: 4}, 0, 1000, func(g *Game) error {
		mu.Lock()
		defer mu.Unlock()
		n++
		if n == 3 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err %v, want context.Canceled", err)
	}
	if n < 3 || n > 3+4 {
		t.Errorf("%d games handed over, want 3 and at most the 4 in flight", n)
	}
	stop := errors.New("stop")
	err = Run(context.Background(), evaltest.Material{}, Config{Visits: 8, MaxPlies: 40, Parallel: 2}, 0, 100, func(g *Game) error { return stop })
	if !errors.Is(err, stop) {
		t.Errorf("err %v, want the callback's", err)
	}
}

// failingEval fails every evaluation after the first n.
type failingEval struct {
	mu sync.Mutex
	n  int
}

var errEval = errors.New("evaluator broke")

func (e *failingEval) Evaluate(ctx context.Context, q mcts.Query, out *mcts.Evaluation) error {
	e.mu.Lock()
	e.n--
	n := e.n
	e.mu.Unlock()
	if n < 0 {
		return errEval
	}
	return evaltest.Material{}.Evaluate(ctx, q, out)
}

// TestRunEvaluatorError checks that a failing game stops the run with its
// error, named by the game, after the finished games were handed over.
func TestRunEvaluatorError(t *testing.T) {
	n := 0
	err := Run(context.Background(), &failingEval{n: 200}, Config{Visits: 8, MaxPlies: 40, Parallel: 3}, 0, 1000, func(g *Game) error {
		n++
		return nil
	})
	if !errors.Is(err, errEval) || !strings.HasPrefix(err.Error(), "selfplay: game ") {
		t.Errorf("err %v, want the evaluator's named by its game", err)
	}
	if n >= 1000 {
		t.Errorf("%d games handed over, want the run stopped", n)
	}
}

func TestConfig(t *testing.T) {
	var c Config
	d := c.WithDefaults()
	if d.Visits != 200 || d.MaxPlies != 300 || d.Parallel != 32 || d.ResignThreshold != 0 || d.NoResignShare != 0.1 || d.TemperaturePlies != 16 {
		t.Errorf("defaults %+v", d)
	}
	if off := (Config{MaxPlies: -1, NoResignShare: -1, DirichletFraction: -1}).WithDefaults(); off.MaxPlies != 0 || off.NoResignShare != 0 || off.DirichletFraction != 0 {
		t.Errorf("negative fields not turned off: %+v", off)
	}
	if c.Digest() != d.Digest() || c.Digest() == (Config{Visits: 201}).Digest() {
		t.Errorf("digests do not follow the settings")
	}
	for _, bad := range []Config{{CheapVisits: 300}, {FullSearchProb: 2}, {ResignThreshold: 1}, {CPuct: -1}} {
		if err := bad.Validate(); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}
