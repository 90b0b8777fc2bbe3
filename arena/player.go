package arena

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"dama/rules"
)

// Player is a contestant. Start is called once per game and must be safe for
// concurrent use: a match plays many games at the same time. A Player that
// holds resources (a network evaluator) may also implement io.Closer; Match
// never closes players, their owner does.
type Player interface {
	// Name identifies the player in results and logs, e.g. "alphabeta:4".
	Name() string
	// Start begins a game that stands at g (usually the opening position,
	// before any move). rng is the player's own source of randomness for
	// this game; the GamePlayer may keep it.
	Start(ctx context.Context, g *rules.Game, rng *rand.Rand) (GamePlayer, error)
}

// GamePlayer plays one side of one game. It is used by one goroutine only
// and may keep state between moves (a search tree to reuse).
type GamePlayer interface {
	// Move chooses a legal move for the side to move in g, which holds the
	// whole game so far (the opponent's replies included). g is not over.
	Move(ctx context.Context, g *rules.Game) (rules.Move, error)
	// Close releases what the game held.
	Close()
}

// PlayerFactory makes a player from a textual spec such as "random",
// "alphabeta:4" or a checkpoint path.
type PlayerFactory func(spec string) (Player, error)

// maxAlphaBetaDepth bounds alphaBeta.Depth.
const maxAlphaBetaDepth = 20

// ParsePlayers splits a comma-separated list of baseline specs (spaces
// around each ignored) and checks each with ParsePlayer.
func ParsePlayers(list string) ([]string, error) {
	var specs []string
	for _, p := range strings.Split(list, ",") {
		p = strings.TrimSpace(p)
		if _, err := ParsePlayer(p); err != nil {
			return nil, err
		}
		specs = append(specs, p)
	}
	return specs, nil
}

// ParsePlayer is the PlayerFactory for the built-in baselines: "random",
// "alphabeta" (depth 4) and "alphabeta:D" with D in 1..maxAlphaBetaDepth (the simple
// bottom rung), and the reference engine of package classic: "classic:D" (fixed depth
// D in 1..classic.MaxDepth), "classic:nN" (N nodes per move),
// "classic:tSECONDS" (seconds per move: "classic:t0.25", see ParseMoveTime)
// and "classic:tMS" (MS milliseconds per move, the older spelling).
func ParsePlayer(spec string) (Player, error) {
	name, arg, hasArg := strings.Cut(strings.TrimSpace(spec), ":")
	switch strings.ToLower(name) {
	case "random":
		if hasArg {
			return nil, fmt.Errorf("arena: player %q: random takes no argument", spec)
		}
		return randomPlayer{}, nil
	case "alphabeta", "ab":
		d := 4
		if hasArg {
			var err error
			d, err = strconv.Atoi(arg)
			if err != nil || d < 1 || d > maxAlphaBetaDepth {
				return nil, fmt.Errorf("arena: player %q: depth %q must be an integer in 1..%d", spec, arg, maxAlphaBetaDepth)
			}
		}
		return alphaBeta{Depth: d}, nil
	case "classic":
		if !hasArg {
			return nil, fmt.Errorf("arena: player %q: want classic:DEPTH, classic:nNODES, classic:tSECONDS or classic:tMILLISECONDS", spec)
		}
		return parseClassic(spec, strings.ToLower(arg))
	}
	return nil, fmt.Errorf("arena: unknown player %q (want random, alphabeta:DEPTH, classic:DEPTH, classic:nNODES, classic:tSECONDS or classic:tMILLISECONDS)", spec)
}

// randomPlayer plays a uniformly random legal move.
type randomPlayer struct{}

// Name returns "random".
func (randomPlayer) Name() string { return "random" }

// Start returns a player for one game drawing from rng.
func (randomPlayer) Start(_ context.Context, _ *rules.Game, rng *rand.Rand) (GamePlayer, error) {
	if rng == nil {
		return nil, fmt.Errorf("arena: random player needs a rng")
	}
	return &randomGame{rng: rng, buf: make([]rules.Move, 0, rules.MaxMoves)}, nil
}

type randomGame struct {
	rng *rand.Rand
	buf []rules.Move
}

func (r *randomGame) Move(_ context.Context, g *rules.Game) (rules.Move, error) {
	r.buf = g.Legal(r.buf)
	if len(r.buf) == 0 {
		return rules.Move{}, fmt.Errorf("arena: random: no legal move in %s", g.Position().FEN())
	}
	return r.buf[r.rng.IntN(len(r.buf))], nil
}

func (r *randomGame) Close() {}
