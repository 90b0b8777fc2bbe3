package arena

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"dama/arena/classic"
	"dama/rules"
)

func TestParseClassic(t *testing.T) {
	for spec, want := range map[string]classic.Limits{
		"classic:1":        {Depth: 1},
		"classic:12":       {Depth: 12},
		"Classic:N20000":   {Nodes: 20000},
		"classic:n20000":   {Nodes: 20000},
		"classic:t1000":    {Time: time.Second},
		" classic:t5 ":     {Time: 5 * time.Millisecond},
		"classic:40":       {Depth: classic.MaxDepth},
		"classic:n1":       {Nodes: 1},
		"classic:t3600000": {Time: time.Hour},
		"classic:t0.25":    {Time: 250 * time.Millisecond},
		"classic:t1.5":     {Time: 1500 * time.Millisecond},
		"classic:t2s":      {Time: 2 * time.Second},
		"classic:t250ms":   {Time: 250 * time.Millisecond},
		"classic:t3600.0":  {Time: time.Hour},
	} {
		p, err := ParsePlayer(spec)
		if err != nil {
			t.Errorf("ParsePlayer(%q): %v", spec, err)
			continue
		}
		c, ok := p.(classicPlayer)
		if !ok || c.Limits != want {
			t.Errorf("ParsePlayer(%q) = %#v, want limits %+v", spec, p, want)
			continue
		}
		// The name parses back to the same player.
		if q, err := ParsePlayer(p.Name()); err != nil || q.(classicPlayer).Limits != want {
			t.Errorf("ParsePlayer(%q) (the name of %q) = %v, %v", p.Name(), spec, q, err)
		}
		if name := strings.ToLower(strings.TrimSpace(spec)); strings.Contains(spec, ":t") && p.Name() != name {
			t.Errorf("ParsePlayer(%q).Name() = %q, want the spec's spelling %q", spec, p.Name(), name)
		}
	}
	for spec, range_ := range map[string]string{
		"classic":          "classic:DEPTH",
		"classic:":         "1..40",
		"classic:0":        "1..40",
		"classic:41":       "1..40",
		"classic:x":        "1..40",
		"classic:nfoo":     "1..1000000000",
		"classic:n0":       "1..1000000000",
		"classic:n-3":      "1..1000000000",
		"classic:t0":       "1..3600000",
		"classic:t3600001": "1..3600000",
		"classic:t-5":      "0.001..3600",
		"classic:t":        "0.001..3600",
		"classic:t0.0":     "0.001..3600",
		"classic:t-0.25":   "0.001..3600",
		"classic:tnan":     "0.001..3600",
		"classic:t+inf":    "0.001..3600",
		"classic:t3600.5":  "0.001..3600",
		"classic:t1e9s":    "0.001..3600",
		"classic:t0.25x":   "0.001..3600",
		"classic:4:5":      "1..40",
	} {
		_, err := ParsePlayer(spec)
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%q", spec)) || !strings.Contains(err.Error(), range_) || strings.Contains(err.Error(), "\n") {
			t.Errorf("ParsePlayer(%q): err %v, want an error quoting the spec and naming %s", spec, err, range_)
		}
	}
}

// TestClassicBeatsBaselines plays short fixed-seed matches: the reference
// engine must crush random play and beat the simple alpha-beta of the same
// depth (60-72% over 40 games for seeds 11..14, 72% over 80).
func TestClassicBeatsBaselines(t *testing.T) {
	for _, c := range []struct {
		b     Player
		games int
		min   float64
	}{
		{randomPlayer{}, 10, 0.95},
		{alphaBeta{Depth: 4}, 40, 0.55},
	} {
		res, err := Match(context.Background(), classicPlayer{Limits: classic.Limits{Depth: 4}}, c.b, MatchOptions{Games: c.games, Parallel: 2, Seed: 11})
		if err != nil {
			t.Fatal(err)
		}
		if res.Score() < c.min {
			t.Errorf("classic:4 against %s: %v; want a score of at least %.2f", c.b.Name(), res, c.min)
		}
	}
}

func TestClassicNodeLimitedMatchRepeats(t *testing.T) {
	p := classicPlayer{Limits: classic.Limits{Nodes: 2000}}
	var runs [2][]string
	for i := range runs {
		_, err := Match(context.Background(), p, alphaBeta{Depth: 2}, MatchOptions{Games: 4, Parallel: 2, Seed: 4,
			OnGame: func(g GameResult) { runs[i] = append(runs[i], fmt.Sprint(g.Index, g.Moves)) }})
		if err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(runs[0])
	slices.Sort(runs[1])
	a, b := strings.Join(runs[0], "\n"), strings.Join(runs[1], "\n")
	if a != b {
		t.Errorf("classic:n2000: the same seed gave different games")
	}
}

func TestClassicByTimePlaysLegalGames(t *testing.T) {
	// A short time per move on a shared machine: only legality and a
	// finished match are checked, never the time taken.
	res, err := Match(context.Background(), classicPlayer{Limits: classic.Limits{Time: 5 * time.Millisecond}}, randomPlayer{}, MatchOptions{Games: 2, Parallel: 2, Seed: 2, MaxPlies: 60})
	if err != nil {
		t.Fatal(err)
	}
	if res.Games() != 2 {
		t.Errorf("classic:t5 against random: %d games counted, want 2", res.Games())
	}
}

func TestClassicByTimeMoveEndsNearItsLimit(t *testing.T) {
	p, err := ParsePlayer("classic:t0.02")
	if err != nil {
		t.Fatal(err)
	}
	g := rules.NewGame(rules.Start())
	gp, err := p.Start(context.Background(), g, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	defer gp.Close()
	start := time.Now()
	if _, err := gp.Move(context.Background(), g); err != nil {
		t.Fatal(err)
	}
	// Generous: the search reads the clock every 1024 nodes and after each
	// depth, so only a limit that was not kept could take this long (the
	// start position to full depth would take hours).
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("a classic:t0.02 move took %v", took)
	}
}

// TestArenaRandomAgainstClassicByTime plays a match between random and
// classic:t0.01, the specs parsed as the arena command parses them.
func TestArenaRandomAgainstClassicByTime(t *testing.T) {
	a, err := ParsePlayer("random")
	if err != nil {
		t.Fatal(err)
	}
	b, err := ParsePlayer("classic:t0.01")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Match(context.Background(), a, b, MatchOptions{Games: 2, Parallel: 2, Seed: 6, MaxPlies: 80})
	if err != nil {
		t.Fatal(err)
	}
	if res.Games() != 2 || !strings.Contains(res.String(), "classic:t0.01") {
		t.Errorf("random against classic:t0.01: %s, want 2 games", res)
	}
}
