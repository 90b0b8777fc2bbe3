package selfplay

import (
	"context"
	"slices"
	"strings"
	"testing"

	"dama/internal/evaltest"
	"dama/mcts"
)

func playAll(t *testing.T, cfg Config, n int) []*Game {
	t.Helper()
	games := make([]*Game, n)
	pl, err := NewPlayer(evaltest.Material{}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for i := range games {
		if games[i], err = pl.Play(context.Background(), GameSeed(cfg.Seed, i)); err != nil {
			t.Fatal(err)
		}
	}
	return games
}

// TestSolverAndGumbelGames plays games with the solver and with Gumbel
// search: they are valid games whose full searches spend exactly their
// visits.
func TestSolverAndGumbelGames(t *testing.T) {
	for _, cfg := range []Config{
		{Visits: 24, MaxPlies: 80, Seed: 1, Solver: true},
		{Visits: 24, MaxPlies: 80, Seed: 1, PassForced: true, CheapVisits: 8, LeavesInFlight: 2},
		{Visits: 24, MaxPlies: 80, Seed: 1, RootSearch: "gumbel", CheapVisits: 8},
		{Visits: 24, MaxPlies: 80, Seed: 1, RootSearch: "gumbel", Solver: true, LeavesInFlight: 2},
	} {
		for _, g := range playAll(t, cfg, 3) {
			checkGame(t, g, cfg)
		}
	}
}

// TestPolicyTargetPruning plays the same games with forced playouts with
// and without pruning: the games are the same, and the pruned targets keep
// the most visited move and take away at most the forced playouts.
func TestPolicyTargetPruning(t *testing.T) {
	cfg := Config{Visits: 64, MaxPlies: 60, Seed: 7, ForcedPlayoutsK: 2, DirichletFraction: 0.5}
	plain := playAll(t, cfg, 2)
	cfg.PolicyTargetPruning = true
	pruned := playAll(t, cfg, 2)
	changed := 0
	for gi := range plain {
		a, b := plain[gi], pruned[gi]
		if !slices.Equal(a.Moves(), b.Moves()) {
			t.Fatalf("game %d: pruning changed the moves played", gi)
		}
		for i := range a.Plies {
			va, vb := a.Plies[i].Visits, b.Plies[i].Visits
			if !b.Plies[i].Full {
				if !slices.Equal(va, vb) {
					t.Errorf("game %d ply %d: a cheap or forced search pruned", gi, i)
				}
				continue
			}
			best := slices.Index(va, slices.Max(va))
			if vb[best] != va[best] {
				t.Errorf("game %d ply %d: most visited move from %d to %d visits", gi, i, va[best], vb[best])
			}
			var total uint32
			for _, v := range va {
				total += v
			}
			for j := range va {
				if vb[j] > va[j] {
					t.Errorf("game %d ply %d: visits grew from %d to %d", gi, i, va[j], vb[j])
				}
				// Forced playouts of the noised prior: at most sqrt(2 N).
				if vb[j] > 0 && float64(va[j]-vb[j]) > mcts.ForcedPlayouts(2, 1, float64(total)) {
					t.Errorf("game %d ply %d: %d of %d visits pruned, more than any forced playouts", gi, i, va[j]-vb[j], va[j])
				}
				if vb[j] == 1 {
					t.Errorf("game %d ply %d: a move left with one visit", gi, i)
				}
				if vb[j] != va[j] {
					changed++
				}
			}
		}
	}
	if changed == 0 {
		t.Errorf("pruning changed no target")
	}
}

func TestTechniqueConfig(t *testing.T) {
	if (Config{RootSearch: "puct"}).Digest() != (Config{}).Digest() {
		t.Errorf("root_search puct and the default have different digests")
	}
	if (Config{Solver: true}).Digest() == (Config{}).Digest() {
		t.Errorf("the solver does not change the digest")
	}
	if (Config{PassForced: true}).Digest() == (Config{}).Digest() {
		t.Errorf("pass_forced does not change the digest")
	}
	if !(Config{PassForced: true}).searchOptions().PassForced || (Config{}).searchOptions().PassForced {
		t.Errorf("pass_forced does not reach the search")
	}
	g := Config{RootSearch: "gumbel"}.WithDefaults()
	if g.GumbelM != mcts.DefaultGumbelM || g.GumbelCVisit != mcts.DefaultGumbelCVisit || g.GumbelCScale != mcts.DefaultGumbelCScale {
		t.Errorf("gumbel defaults %+v", g)
	}
	for _, tc := range []struct {
		c   Config
		msg string
	}{
		{Config{RootSearch: "mcts"}, "root_search"},
		{Config{ForcedPlayoutsK: -1}, "forced_playouts_k"},
		{Config{ForcedPlayoutsK: 2, RootSearch: "gumbel"}, "forced_playouts_k"},
		{Config{PolicyTargetPruning: true}, "policy_target_pruning"},
		{Config{RootSearch: "gumbel", GumbelM: 500}, "gumbel_m"},
	} {
		if err := tc.c.Validate(); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%+v: err %v, want one naming %s", tc.c, err, tc.msg)
		}
	}
}
