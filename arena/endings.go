package arena

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"

	"dama/rules"
	"dama/tb"
)

// EndingOptions configure Endings.
type EndingOptions struct {
	Pieces  int   // the positions' pieces: every signature of that many
	Games   int   // won positions played, each twice
	Seed    int64 // draws the positions
	MinDist int   // the least distance of a position played (default 15: wins that take some play, not a capture at once)
	// Lost, when not nil, is called with each game the winning side did
	// not win.
	Lost func(EndingGame)
}

// endingMaxPlies ends a game of Endings that is not over: it is not won.
const endingMaxPlies = 400

// EndingGame is a game of Endings.
type EndingGame struct {
	Start      rules.Position // the won position, its side to move the winner
	WithTables bool           // the winner played with the tables
	Outcome    rules.Outcome
	Plies      int
	Moves      []string
}

// String says what the game was and how it ended, with its moves.
func (g EndingGame) String() string {
	how := g.Outcome.Reason.String()
	if !g.Outcome.Over() {
		how = fmt.Sprint(endingMaxPlies, " plies")
	}
	with := "without tables"
	if g.WithTables {
		with = "with tables"
	}
	return fmt.Sprintf("%s (%s wins) %s: %s by %s after %d plies: %s", g.Start.FEN(), g.Start.Side(), with, g.Outcome.Result, how, g.Plies, strings.Join(g.Moves, " "))
}

// Endings plays won positions of the tables t (of opt.Pieces pieces, at
// least opt.MinDist plies from their conversion) with p on both sides,
// each twice: once as p is, once with the tables for the winning side
// (their proofs in its tree and their moves played, as with an Oracle of
// them and the solver). It returns how many of the opt.Games positions
// were won without and with the tables.
func Endings(ctx context.Context, t *tb.Tables, p *MCTSPlayer, opt EndingOptions) (won [2]int, err error) {
	if opt.MinDist <= 0 {
		opt.MinDist = 15
	}
	with := *p
	with.Options.Oracle, with.Options.Solver = tb.Oracle{T: t}, true
	var sigs []tb.Material
	for _, m := range tb.Signatures(opt.Pieces) {
		if m.Pieces() == opt.Pieces {
			sigs = append(sigs, m)
		}
	}
	r := rand.New(rand.NewPCG(uint64(opt.Seed), 22))
	for n := 0; n < opt.Games; {
		pos := tb.RandomPosition(r, sigs[r.IntN(len(sigs))])
		if e, err := t.Probe(pos); err != nil || e.Type != tb.Win || e.Dist < opt.MinDist {
			continue
		}
		n++
		for i, hero := range []*MCTSPlayer{p, &with} {
			g, moves, err := playEnding(ctx, pos, hero, p, r)
			if err != nil {
				return won, err
			}
			o := g.Outcome()
			if w, ok := o.Result.Winner(); ok && w == pos.Side() {
				won[i]++
			} else if opt.Lost != nil {
				opt.Lost(EndingGame{Start: pos, WithTables: i == 1, Outcome: o, Plies: g.Ply(), Moves: moves})
			}
		}
	}
	return won, nil
}

// playEnding plays the game from pos of hero, the side to move, against
// defender, to its end or endingMaxPlies, and returns it with its moves.
func playEnding(ctx context.Context, pos rules.Position, hero, defender Player, r *rand.Rand) (*rules.Game, []string, error) {
	g := rules.NewGame(pos)
	hp, err := hero.Start(ctx, g, r)
	if err != nil {
		return nil, nil, err
	}
	dp, err := defender.Start(ctx, g, r)
	if err != nil {
		return nil, nil, err
	}
	defer hp.Close()
	defer dp.Close()
	var moves []string
	for !g.Outcome().Over() && g.Ply() < endingMaxPlies {
		pl := dp
		if g.Position().Side() == pos.Side() {
			pl = hp
		}
		m, err := pl.Move(ctx, g)
		if err != nil {
			return nil, nil, err
		}
		moves = append(moves, m.String())
		if err := g.Play(m); err != nil {
			return nil, nil, err
		}
	}
	return g, moves, nil
}
