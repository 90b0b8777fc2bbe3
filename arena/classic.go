package arena

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"dama/arena/classic"
	"dama/rules"
)

// classicPlayer is the reference engine of package classic as a player: alpha-beta
// with a transposition table, quiescence and a hand-made evaluation. Its
// limit names it (ParsePlayer reads these names; a player given several
// limits programmatically is named classic:dD,nN,tMS):
//
//	classic:D        fixed depth D (1..classic.MaxDepth) per move
//	classic:nN       fixed N nodes per move (1..maxClassicNodes)
//	classic:tSECONDS seconds per move, with a decimal point or a unit
//	                 (classic:t0.25, classic:t2s, classic:t250ms; ParseMoveTime)
//	classic:tMS      MS milliseconds per move (1..maxClassicMillis), the
//	                 older spelling of classic:tMSms
//
// A time per move is wall-clock time on the one goroutine that searches
// (CPU time of its thread after WithCPUTime): iterative deepening until
// the time is spent, playing the best move of the last completed depth. With a depth or a node count a game repeats exactly
// for the same seed; with time it depends on the machine.
type classicPlayer struct {
	Limits classic.Limits
	// Options configure each game's engine (the zero value: the defaults).
	Options classic.Options
	// label is the name as the spec spelt it (lower case); empty: made
	// from Limits.
	label string
	// cpu holds each move on its OS thread, whose CPU time Options.Now
	// reads (WithCPUTime).
	cpu bool
}

// Bounds of the classic:nN and classic:tMS specs.
const (
	maxClassicNodes  = 1_000_000_000
	maxClassicMillis = 3_600_000
)

// parseClassic reads the argument of a classic spec: "D", "nN" or "tMS".
func parseClassic(spec, arg string) (classicPlayer, error) {
	bad := func(what string, lo, hi int64) (classicPlayer, error) {
		return classicPlayer{}, fmt.Errorf("arena: player %q: %s must be an integer in %d..%d (classic:D, classic:nNODES, classic:tSECONDS or classic:tMILLISECONDS)", spec, what, lo, hi)
	}
	switch {
	case strings.HasPrefix(arg, "n"):
		n, err := strconv.ParseInt(arg[1:], 10, 64)
		if err != nil || n < 1 || n > maxClassicNodes {
			return bad("node count "+strconv.Quote(arg[1:]), 1, maxClassicNodes)
		}
		return classicPlayer{Limits: classic.Limits{Nodes: n}}, nil
	case strings.HasPrefix(arg, "t") && isDigits(arg[1:]):
		ms, err := strconv.ParseInt(arg[1:], 10, 64)
		if err != nil || ms < 1 || ms > maxClassicMillis {
			return bad("milliseconds "+strconv.Quote(arg[1:]), 1, maxClassicMillis)
		}
		return classicPlayer{Limits: classic.Limits{Time: time.Duration(ms) * time.Millisecond}, label: "classic:" + arg}, nil
	case strings.HasPrefix(arg, "t"):
		t, err := ParseMoveTime(arg[1:])
		if err != nil {
			return classicPlayer{}, fmt.Errorf("arena: player %q: %w", spec, err)
		}
		return classicPlayer{Limits: classic.Limits{Time: t}, label: "classic:" + arg}, nil
	}
	d, err := strconv.Atoi(arg)
	if err != nil || d < 1 || d > classic.MaxDepth {
		return bad("depth "+strconv.Quote(arg), 1, classic.MaxDepth)
	}
	return classicPlayer{Limits: classic.Limits{Depth: d}}, nil
}

// isDigits reports whether s is a non-empty run of ASCII digits.
func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// Name returns the spec's spelling, or "classic:D", "classic:nN" or
// "classic:tMS" for a player made from Limits.
func (c classicPlayer) Name() string {
	if c.label != "" {
		return c.label
	}
	switch l := c.Limits; {
	case l.Nodes > 0 && l.Depth == 0 && l.Time == 0:
		return fmt.Sprintf("classic:n%d", l.Nodes)
	case l.Time > 0 && l.Depth == 0 && l.Nodes == 0:
		return fmt.Sprintf("classic:t%d", l.Time.Milliseconds())
	case l.Depth > 0 && l.Nodes == 0 && l.Time == 0:
		return fmt.Sprintf("classic:%d", l.Depth)
	}
	return fmt.Sprintf("classic:d%d,n%d,t%d", c.Limits.Depth, c.Limits.Nodes, c.Limits.Time.Milliseconds())
}

// Start returns an engine with its own table for one game.
func (c classicPlayer) Start(_ context.Context, _ *rules.Game, rng *rand.Rand) (GamePlayer, error) {
	if err := c.Limits.Validate(); err != nil {
		return nil, fmt.Errorf("arena: %s: %w", c.Name(), err)
	}
	if rng == nil {
		return nil, fmt.Errorf("arena: classic player needs a rng")
	}
	return &classicGame{e: classic.New(c.Options), lim: c.Limits, rng: rng, cpu: c.cpu}, nil
}

type classicGame struct {
	e   *classic.Engine
	lim classic.Limits
	rng *rand.Rand
	cpu bool // the move holds its thread (classicPlayer.cpu)
}

func (c *classicGame) Move(ctx context.Context, g *rules.Game) (rules.Move, error) {
	return onThread(c.cpu, func() (rules.Move, error) {
		r, err := c.e.Search(ctx, g, c.lim, c.rng)
		return r.Move, err
	})
}

func (c *classicGame) Close() { c.e = nil }
