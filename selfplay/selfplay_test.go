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

	"dama/configs"
	"dama/internal/evaltest"
	"dama/mcts"
	"dama/rules"
)

// checkGame replays g through rules.Game and checks every recorded field
// that the rules determine.
func checkGame(t *testing.T, g *Game, cfg Config) {
	t.Helper()
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
	cfg := testConfig(1, func(c *Config) { c.Visits, c.MaxPlies, c.TemperaturePlies = 24, 80, 10 })
	pl, err := newPlayer(evaltest.Material{}, cfg)
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
	cfg := testConfig(42, func(c *Config) { c.Visits, c.MaxPlies, c.Parallel, c.LeavesInFlight, c.CheapVisits = 16, 60, 3, 2, 4 })
	play := func() []*Game {
		games := runGames(t, evaltest.Material{}, cfg, 10, 5)
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
	cfg := testConfig(3, func(c *Config) {
		c.Visits, c.MaxPlies, c.ResignThreshold, c.ResignMoves, c.NoResignShare, c.Parallel = 16, 150, 0.2, 2, 0.5, 4
	})
	games := runGames(t, evaltest.Material{Steep: 3}, cfg, 0, 12)
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
	err := Run(ctx, evaltest.Material{}, testConfig(0, func(c *Config) { c.Visits, c.MaxPlies, c.Parallel = 8, 40, 4 }), 0, 1000, func(g *Game) error {
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
	err = Run(context.Background(), evaltest.Material{}, testConfig(0, func(c *Config) { c.Visits, c.MaxPlies, c.Parallel = 8, 40, 2 }), 0, 100, func(g *Game) error { return stop })
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
	err := Run(context.Background(), &failingEval{n: 200}, testConfig(0, func(c *Config) { c.Visits, c.MaxPlies, c.Parallel = 8, 40, 3 }), 0, 1000, func(g *Game) error {
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

// testConfig returns the default self-play settings (configs.Default) with
// the base seed seed, changed by set when it is not nil.
func testConfig(seed uint64, set func(c *Config)) Config {
	c := Config{SelfPlay: configs.Default().SelfPlay, Seed: seed}
	if set != nil {
		set(&c)
	}
	return c
}

func TestConfig(t *testing.T) {
	c := testConfig(0, nil)
	if err := c.Validate(); err != nil {
		t.Fatalf("default settings: %v", err)
	}
	if c.Digest() == testConfig(0, func(c *Config) { c.Visits = 201 }).Digest() || c.Digest() == testConfig(1, nil).Digest() {
		t.Errorf("digests do not follow the settings")
	}
	if c.Digest() != testConfig(0, func(c *Config) { c.EvalBatch, c.CacheSize, c.Backend = 7, 0, "fp32" }).Digest() {
		t.Errorf("the evaluator's settings change the digest")
	}
	for _, tc := range []struct {
		set  func(c *Config)
		want string
	}{
		{func(c *Config) { c.CheapVisits = 300 }, "selfplay.cheap_visits"},
		{func(c *Config) { c.FullSearchProb = 2 }, "selfplay.full_search_prob"},
		{func(c *Config) { c.ResignThreshold = 1 }, "selfplay.resign_threshold"},
		{func(c *Config) { c.CPuct = -1 }, "selfplay.cpuct"},
		{func(c *Config) { c.FPUReduction = -1 }, "selfplay.fpu_reduction"},
		{func(c *Config) { c.DirichletFraction = -1 }, "selfplay.dirichlet_fraction"},
		{func(c *Config) { c.Visits = 0 }, "selfplay.visits"},
	} {
		bad := testConfig(0, tc.set)
		if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error naming it", tc.want, err)
		}
		if _, err := newPlayer(evaltest.Material{}, bad); err == nil {
			t.Errorf("%s: newPlayer took it", tc.want)
		}
	}
}

// TestZeroIsOff checks that a zero amount in the settings reaches the
// search as zero (none), not as a default.
func TestZeroIsOff(t *testing.T) {
	c := testConfig(0, func(c *Config) {
		c.FPUReduction, c.DirichletFraction, c.TemperaturePlies, c.NoResignShare = 0, 0, 0, 0
	})
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	o := SearchOptions(c.SelfPlay)
	if o.FPUReduction != 0 || o.DirichletFraction != 0 || o.Temperature != nil || o.Solver || o.PassForced {
		t.Errorf("zero settings: search options %+v, want every one of them off", o)
	}
	if s := mcts.New(evaltest.Material{}, o); s.Options().FPUReduction != 0 || s.Options().DirichletFraction != 0 {
		t.Errorf("the search took defaults for zero: %+v", s.Options())
	}
	if m := MatchOptions(c.SelfPlay, 0); m.FPUReduction != 0 || m.MaxPlies != 0 {
		t.Errorf("match options %+v, want no reduction and no cap", m)
	}
	d := testConfig(0, nil)
	o, m := SearchOptions(d.SelfPlay), MatchOptions(d.SelfPlay, 120)
	if o.FPUReduction != mcts.StandardFPUReduction || o.DirichletFraction != mcts.StandardDirichletFraction || o.CPuct != mcts.DefaultCPuct ||
		o.MaxPlies != d.MaxPlies || o.Parallel != d.LeavesInFlight || o.Temperature == nil {
		t.Errorf("default settings: search options %+v", o)
	}
	if m.CPuct != d.CPuct || m.FPUReduction != d.FPUReduction || m.MaxPlies != 120 || m.DirichletFraction != 0 || m.Temperature != nil {
		t.Errorf("default settings: match options %+v", m)
	}
}

// TestDigestGolden holds the digest of settings to the value the versions
// before configs.SelfPlay was self-play's own settings gave the same
// settings (recorded with them), so game files keep their config digests;
// the last two were recorded with the version before Gumbel root search
// and forced playouts were removed (commit 0edde8a), so their removal from
// the digest's form changes no digest of settings without them.
func TestDigestGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    Config
		want string
	}{
		{"defaults", testConfig(0, nil), "3db669026db60639c32a58368c9ce1c9bab9fbaf44e23d971f301a969809cee0"},
		{"defaults, seed 5", testConfig(5, nil), "556cfc2ff3a4d85f54ec0392fde964655707a8c7e2594c3e3a1943389d2fd6ba"},
		{"no fpu reduction", testConfig(3, func(c *Config) { c.Visits, c.Parallel, c.MaxPlies, c.FPUReduction = 8, 1, 20, 0 }),
			"23182b358453a4afc5ad30435d8b0486187dec4beb01d52d2bb3eec887d5b1e9"},
		{"pass_forced, resignation, amounts off", testConfig(9, func(c *Config) {
			c.Visits, c.PassForced, c.ResignThreshold = 64, true, 0.05
			c.NoResignShare, c.DirichletFraction, c.TemperaturePlies = 0, 0, 0
		}), "c1b0d55a195d1d2c6bd236f94bc1d86a99af8ea6884fc5bd3822f96f35635622"},
		{"puct constants", testConfig(0, func(c *Config) { c.CPuct, c.DirichletAlpha = 2, 0.3 }),
			"818cae70b3d2157dfe650c70a31524b603911359511a9f3b38b8b3ca64954d33"},
	} {
		if got := tc.c.Digest(); got != tc.want {
			t.Errorf("%s: digest %s, want %s", tc.name, got, tc.want)
		}
	}
}

// The rules' terminations keep rules.Reason's numbers (game files store
// them) and names.
func TestTerminationIsRulesReason(t *testing.T) {
	for _, tc := range []struct {
		r    rules.Reason
		want Termination
	}{{rules.NoMoves, NoMoves}, {rules.Repetition, Repetition}, {rules.FortyMoves, FortyMoves}} {
		if got := Termination(tc.r); got != tc.want || got.String() != tc.r.String() {
			t.Errorf("Termination(%v) = %d %q, want %d %q", tc.r, got, got, tc.want, tc.r)
		}
	}
	if LengthCap.String() != "length cap" || Resigned.String() != "resignation" || Tables.String() != "table adjudication" {
		t.Errorf("adjudications named %q, %q, %q", LengthCap, Resigned, Tables)
	}
	if !Tables.Adjudicated() || Tables != 6 {
		t.Errorf("Tables is %d, adjudicated %v: game files store 6", Tables, Tables.Adjudicated())
	}
}

// runGames plays n games from game number first with Run and returns
// them in the order Run hands them over; an error fails tb.
func runGames(tb testing.TB, ev mcts.Evaluator, cfg Config, first, n int) []*Game {
	tb.Helper()
	var games []*Game
	if err := Run(context.Background(), ev, cfg, first, n, func(g *Game) error {
		games = append(games, g)
		return nil
	}); err != nil {
		tb.Fatal(err)
	}
	return games
}
