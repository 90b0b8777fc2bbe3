package selfplay

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"dama/internal/evaltest"
	"dama/mcts"
	"dama/rules"
	"dama/tactics"
	"dama/tb"
	"dama/tb/tbtest"
)

// TestHybridsKey: selfplay.hybrids puts the tactics hybrids into the
// player's search: the Minimax oracle with the solver (after the tables'
// oracle when there are tables), the Combinations and Priors evaluators
// around the network; none leaves the search as it was; the verifier ab
// and a bad list are errors naming the key.
func TestHybridsKey(t *testing.T) {
	pl, err := newPlayer(evaltest.Material{}, testConfig(0, func(c *Config) { c.Hybrids = "mm4,cmb3,ip3" }))
	if err != nil {
		t.Fatal(err)
	}
	opt := pl.search.Options()
	if o, ok := opt.Oracle.(*tactics.Minimax); !ok || o.Depth != 4 || !opt.Solver {
		t.Errorf("mm4: oracle %#v, solver %v", opt.Oracle, opt.Solver)
	}
	var o mcts.Options
	ev, err := searchHybrids(testConfig(0, func(c *Config) { c.Hybrids = "cmb2,ip3" }).SelfPlay, &o, evaltest.Material{})
	if p, ok := ev.(*tactics.Priors); !ok || p.Depth != 3 {
		t.Fatalf("cmb2,ip3: evaluator %#v, %v", ev, err)
	} else if c, ok := p.Inner.(*tactics.Combinations); !ok || c.Depth != 2 || c.Inner != (evaltest.Material{}) {
		t.Errorf("cmb2,ip3: inside the priors %#v", p.Inner)
	}
	if o.Oracle != nil || o.Solver {
		t.Errorf("cmb2,ip3: oracle %v, solver %v", o.Oracle, o.Solver)
	}
	for _, none := range []string{"", "none"} {
		var o mcts.Options
		ev, err := searchHybrids(testConfig(0, func(c *Config) { c.Hybrids = none }).SelfPlay, &o, evaltest.Material{})
		if err != nil || ev != (evaltest.Material{}) || o.Oracle != nil || o.Solver {
			t.Errorf("%q: evaluator %#v, oracle %v, solver %v, %v", none, ev, o.Oracle, o.Solver, err)
		}
	}

	dir, _ := tbtest.Tables(t, 2)
	pl, err = newPlayer(evaltest.Material{}, testConfig(0, func(c *Config) { c.Tables, c.Hybrids = dir, "mm3" }))
	if err != nil {
		t.Fatal(err)
	}
	if ors, ok := pl.search.Options().Oracle.(mcts.Oracles); !ok || len(ors) != 2 {
		t.Errorf("tables and mm3: oracle %#v", pl.search.Options().Oracle)
	} else if _, ok := ors[0].(tb.Oracle); !ok {
		t.Errorf("tables and mm3: the tables do not answer first: %#v", ors)
	}

	for _, bad := range []string{"ab", "mm4,ab12", "mm9", "mm,mm"} {
		_, err := newPlayer(evaltest.Material{}, testConfig(0, func(c *Config) { c.Hybrids = bad }))
		if err == nil || !strings.Contains(err.Error(), "selfplay.hybrids") || strings.Contains(err.Error(), "\n") {
			t.Errorf("selfplay.hybrids %q: %v", bad, err)
		}
		var o mcts.Options
		if _, err := searchHybrids(testConfig(0, func(c *Config) { c.Hybrids = bad }).SelfPlay, &o, evaltest.Material{}); err == nil || !strings.Contains(err.Error(), "selfplay.hybrids") {
			t.Errorf("searchHybrids %q: %v", bad, err)
		}
	}
}

// TestHybridsProve: a self-play player with mm4 proves each win in 3 of
// evaltest in a handful of visits (the oracle's proofs are counted); the
// same player without hybrids does not.
func TestHybridsProve(t *testing.T) {
	for _, pz := range evaltest.WinIn3 {
		p, err := rules.ParseFEN(pz.FEN)
		if err != nil {
			t.Fatal(err)
		}
		visits := len(p.Legal(nil)) + 1
		run := func(hybrids string) mcts.Result {
			pl, err := newPlayer(evaltest.Material{}, testConfig(0, func(c *Config) { c.Hybrids, c.DirichletFraction, c.TemperaturePlies = hybrids, 0, 0 }))
			if err != nil {
				t.Fatal(err)
			}
			res, err := pl.search.Run(context.Background(), rules.NewGame(p), mcts.Limit{Visits: visits}, nil)
			if err != nil {
				t.Fatal(err)
			}
			return res
		}
		if res := run(""); res.Proof == mcts.ProofWin || res.Proved != 0 {
			t.Fatalf("%s without hybrids: proof %v, %d leaves proved: the test shows nothing", pz.FEN, res.Proof, res.Proved)
		}
		if res := run("mm4"); res.Proof != mcts.ProofWin || res.Proved == 0 || res.Move.String() != pz.Win {
			t.Errorf("%s with mm4: proof %v, move %v (want %s), %d leaves proved", pz.FEN, res.Proof, res.Move, pz.Win, res.Proved)
		}
	}
}

// TestHybridsGames: games with the hybrids (all three, and each of the
// evaluators alone) from the seeds of games without them are valid games,
// and not the same games: the hybrids are searched with.
func TestHybridsGames(t *testing.T) {
	cfg := testConfig(3, func(c *Config) { c.Visits, c.MaxPlies = 24, 60 })
	plain := playAll(t, cfg, 3)
	for _, h := range []string{"mm4,cmb3,ip3", "cmb3", "ip3"} {
		cfg.Hybrids = h
		with := playAll(t, cfg, 3)
		differ := 0
		for i := range with {
			checkGame(t, with[i], cfg)
			if !slices.Equal(plain[i].Moves(), with[i].Moves()) {
				differ++
			}
		}
		if differ == 0 {
			t.Errorf("%s changed no game", h)
		}
	}
}

// TestHybridsDigest: the hybrids are in the games' settings digest when
// set, as written with every depth ("mm" is "mm4"); "" and none leave the
// digest as it was before the key.
func TestHybridsDigest(t *testing.T) {
	d := testConfig(0, nil).Digest()
	with := func(h string) string { return testConfig(0, func(c *Config) { c.Hybrids = h }).Digest() }
	if with("none") != d || with("") != d {
		t.Error("none changes the digest")
	}
	if with("mm4") == d || with("mm4") == with("mm3") || with("cmb3") == with("ip3") {
		t.Error("the hybrids do not change the digest")
	}
	if with("mm") != with("mm4") || with("ip3,mm4") != with("mm4,ip3") {
		t.Error("equal hybrids written differently have different digests")
	}
}

// TestHybridsSettings: ValidateSettings, which every self-play path calls
// before its first game, takes the lists of dama play --hybrids without
// ab and refuses a bad list and the verifier ab with one line naming the
// key and the value, as configs names its keys; a worker refuses them
// before it asks for a model.
func TestHybridsSettings(t *testing.T) {
	for _, s := range []string{"", "none", "mm4,cmb3,ip3", "ip2", "cmb,mm8"} {
		c := testConfig(0, func(c *Config) { c.Hybrids = s })
		if err := ValidateSettings(c.SelfPlay); err != nil {
			t.Errorf("selfplay.hybrids=%s: %v", s, err)
		}
	}
	for _, tc := range []struct{ value, want string }{
		{"mm9", "DEPTH in 1..8"},
		{"cmb0", "DEPTH in 1..8"},
		{"mm3,mm4", "each at most once"},
		{"mm4;cmb3", "comma-separated"},
		{"mm4, cmb3", "comma-separated"},
		{"bogus", "mm[DEPTH], cmb[DEPTH] and ip[DEPTH]"},
		{"pass", "mm[DEPTH], cmb[DEPTH] and ip[DEPTH]"},
		{"ab", "ab was removed: "},
		{"mm4,abn12", "abn was removed: "},
	} {
		c := testConfig(0, func(c *Config) { c.Hybrids = tc.value })
		for _, err := range []error{ValidateSettings(c.SelfPlay), c.Validate(), Run(context.Background(), evaltest.Material{}, c, 0, 1, nil)} {
			if err == nil {
				t.Errorf("selfplay.hybrids=%s: no error", tc.value)
				continue
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") || !strings.Contains(msg, `selfplay.hybrids = "`+tc.value+`": want `) || !strings.Contains(msg, tc.want) {
				t.Errorf("selfplay.hybrids=%s: error %q, want one line with the key, the value and %q", tc.value, msg, tc.want)
			}
		}
		// No Source or Sink: the worker stops before it asks them.
		w := &Worker{Name: "w", Settings: c.SelfPlay}
		if err := w.Run(context.Background()); err == nil || !strings.Contains(err.Error(), "selfplay.hybrids") {
			t.Errorf("Worker.Run with selfplay.hybrids=%s: %v", tc.value, err)
		}
		if err := w.Play(context.Background(), 1, 1, 0); err == nil || !strings.Contains(err.Error(), "selfplay.hybrids") {
			t.Errorf("Worker.Play with selfplay.hybrids=%s: %v", tc.value, err)
		}
	}
	// Every other field is still checked, with the hybrids' error.
	c := testConfig(0, func(c *Config) { c.Hybrids, c.Visits = "ab", 0 })
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "selfplay.visits") || !strings.Contains(err.Error(), "selfplay.hybrids") {
		t.Errorf("visits 0 and ab: %v", err)
	}
}

// TestHybridsDocs: the documentation of selfplay.hybrids in configs (its
// field's comment and the presets, which configs' own test of the
// documented ranges no longer holds, as configs does not read the list)
// states the depths that HybridsError checks and refuses ab.
func TestHybridsDocs(t *testing.T) {
	depth := fmt.Sprintf("DEPTH in 1..%d", tactics.MaxMinimaxDepth)
	if err := HybridsError("mm9"); err == nil || !strings.Contains(err.Error(), depth) {
		t.Fatalf("HybridsError(mm9) = %v, want %q", err, depth)
	}
	for _, f := range []string{"config.go", "quick.yaml", "workstation.yaml"} {
		b, err := os.ReadFile(filepath.Join("..", "configs", f))
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		i := strings.Index(text, "// Hybrids are")
		if strings.HasSuffix(f, ".yaml") {
			i = strings.Index(text, "# MCTS-minimax hybrids")
		}
		if i < 0 {
			t.Errorf("configs/%s does not document selfplay.hybrids", f)
			continue
		}
		doc := strings.Join(strings.Fields(strings.NewReplacer("//", " ", "#", " ").Replace(text[i:min(len(text), i+1500)])), " ")
		for _, want := range []string{depth, "not the verifier ab"} {
			if !strings.Contains(strings.ToLower(doc), strings.ToLower(want)) {
				t.Errorf("configs/%s: the doc of selfplay.hybrids lacks %q", f, want)
			}
		}
	}
}
