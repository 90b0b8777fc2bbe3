package selfplay

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"dama/internal/evaltest"
	"dama/mcts"
)

// skewed is evaltest.Material with most of the prior on the first legal
// move, so that a temperature of the priors changes the search (it leaves
// uniform priors as they are).
type skewed struct{ evaltest.Material }

func (s skewed) Evaluate(ctx context.Context, q mcts.Query, out *mcts.Evaluation) error {
	if err := s.Material.Evaluate(ctx, q, out); err != nil || len(out.Priors) < 2 {
		return err
	}
	rest := 0.1 / float32(len(out.Priors)-1)
	for i := range out.Priors {
		out.Priors[i] = rest
	}
	out.Priors[0] = 0.9
	return nil
}

// TestPolicyTempKey: selfplay.policy_temp reaches the player's search as
// mcts.Options.PolicyTemperature (not gating's and the ladder's), its
// games are valid and differ from those with the priors as given, and 0
// and 1 play the same games with the digest of before the key.
func TestPolicyTempKey(t *testing.T) {
	play := func(temp float64) ([]*Game, Config) {
		cfg := testConfig(5, func(c *Config) { c.Visits, c.MaxPlies, c.PolicyTemp = 32, 60, temp })
		pl, err := newPlayer(skewed{}, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if got := pl.search.Options().PolicyTemperature; got != temp {
			t.Fatalf("policy_temp %v: the search has PolicyTemperature %v", temp, got)
		}
		games := make([]*Game, 3)
		for i := range games {
			if games[i], err = pl.Play(context.Background(), GameSeed(cfg.Seed, i)); err != nil {
				t.Fatal(err)
			}
			checkGame(t, games[i], cfg)
		}
		return games, cfg
	}
	plain, cfg0 := play(0)
	one, cfg1 := play(1)
	flat, cfgT := play(1.8)
	differ := 0
	for i := range plain {
		if !slices.Equal(plain[i].Moves(), one[i].Moves()) {
			t.Errorf("game %d: policy_temp 1 played other moves than 0", i)
		}
		if !slices.Equal(plain[i].Moves(), flat[i].Moves()) {
			differ++
		}
	}
	if differ == 0 {
		t.Error("policy_temp 1.8 changed no game")
	}
	if cfg0.Digest() != testConfig(5, func(c *Config) { c.Visits, c.MaxPlies = 32, 60 }).Digest() || cfg1.Digest() != cfg0.Digest() {
		t.Error("policy_temp 0 or 1 changes the digest")
	}
	if cfgT.Digest() == cfg0.Digest() {
		t.Error("policy_temp 1.8 leaves the digest as it was")
	}
	if got := MatchOptions(cfgT.SelfPlay, 0).PolicyTemperature; got != 0 {
		t.Errorf("gating and ladder games search with PolicyTemperature %v", got)
	}
	for _, bad := range []float64{-1, 0.05, 10.5, math.NaN(), math.Inf(1)} {
		c := testConfig(0, func(c *Config) { c.PolicyTemp = bad })
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "selfplay.policy_temp") {
			t.Errorf("policy_temp %v: %v, want an error naming the key", bad, err)
		}
		if _, err := newPlayer(skewed{}, c); err == nil {
			t.Errorf("policy_temp %v: newPlayer took it", bad)
		}
	}
	for _, ok := range []float64{0.1, 10} {
		if err := testConfig(0, func(c *Config) { c.PolicyTemp = ok }).Validate(); err != nil {
			t.Errorf("policy_temp %v: %v", ok, err)
		}
	}
}
