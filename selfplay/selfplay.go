// Package selfplay plays games of a model against itself with MCTS and
// records every position with its search statistics as training data.
//
// Many games run at once in one process, each in its own goroutine with its
// own mcts.Search, all sharing one mcts.Evaluator so that a batched network
// evaluator sees full batches. Every game draws its randomness (noise,
// temperature, playout cap, resignation share) from its own generator seeded
// by GameSeed(Config.Seed, index), so a run is reproducible game by game.
//
// Games are stored in versioned, compressed, checksummed chunk files (see
// FormatVersion for the layout) and can also be written as PDN.
//
// Worker is the self-play worker of a training run, whatever carries the
// run: a ModelSource says which model is the best and loads it (the run
// folder, the broker), a ChunkSink stores its chunks (DirSink for a games
// folder, the broker's stream). It keeps its evaluator until the best model
// changes. It plays by Config (the run configuration's self-play section
// and a seed) with an evaluator opened with EvaluatorOptions (options.go).
//
// BenchmarkSelfplayEvaluatorLoad measures how busy self-play keeps a
// network evaluator, against the same evaluator fed back to back, in one
// run. At the defaults (32 games, one leaf each, batch 32, one batcher) on
// a 2-core machine shared with two training runs (the process got about
// one core), self-play reached 76-91% of the standalone positions/s with
// the small network and 93-95% with the workstation one: the batcher,
// which does not wait for more work, takes batches of 5-8 positions.
package selfplay

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"

	"golang.org/x/sync/errgroup"

	"dama/configs"
	"dama/mcts"
	"dama/rules"
	"dama/tb"
)

// Termination says how a game ended.
type Termination uint8

// Ways a game ends. The first three are rules of the game, with the
// numbers of rules.Reason; LengthCap, Resigned and Tables are
// adjudications.
const (
	NoMoves    Termination = iota + 1 // the side to move had no legal move and lost
	Repetition                        // threefold repetition, a draw
	FortyMoves                        // the 40-move rule, a draw
	LengthCap                         // Config.MaxPlies reached, adjudicated a draw
	Resigned                          // the side to move resigned
	Tables                            // the final position is in the endgame tables (Config.Tables): their exact result
)

// String names the termination.
func (t Termination) String() string {
	switch t {
	case NoMoves, Repetition, FortyMoves:
		return rules.Reason(t).String()
	case LengthCap:
		return "length cap"
	case Resigned:
		return "resignation"
	case Tables:
		return "table adjudication"
	}
	return fmt.Sprintf("termination(%d)", uint8(t))
}

// Adjudicated reports whether the result was decided outside the rules.
func (t Termination) Adjudicated() bool { return t == LengthCap || t == Resigned || t == Tables }

// Ply is one position of a game and what the search found there.
type Ply struct {
	Pos    rules.Position
	Legal  []rules.Move // the legal moves of Pos
	Visits []uint32     // search visits of each legal move: the policy target
	// Policy is a policy target per legal move that replaces the visits,
	// stored quantised to multiples of 1/65535; nil when the visits are the
	// target. Self-play no longer writes one: the Gumbel root search's
	// completed-Q policy did, and files keep it (docs/experiments.md).
	Policy      []float32
	Move        int        // index in Legal of the move played
	WDL         [3]float32 // root win/draw/loss for the side to move (all 0 when the root had no visits)
	Repetitions int        // earlier occurrences of Pos in the game (0..2)
	QuietPlies  int        // the 40-move counter at Pos (0..rules.QuietLimit)
	// Full reports a full search: its visits are a policy target. Cheap
	// searches (playout cap randomisation) and forced moves (one legal
	// move, no search) are not.
	Full bool
}

// Query returns the ply's position as the search asked the evaluator
// about it.
func (p *Ply) Query() mcts.Query {
	return mcts.Query{Pos: p.Pos, Legal: p.Legal, Repetitions: p.Repetitions, QuietPlies: p.QuietPlies}
}

// Q returns the root value W-L in [-1, 1] for the side to move.
func (p *Ply) Q() float32 { return p.WDL[0] - p.WDL[2] }

// Played returns the move played.
func (p *Ply) Played() rules.Move { return p.Legal[p.Move] }

// Game is one finished self-play game.
type Game struct {
	Seed   uint64 // the game's seed (see GameSeed)
	Start  rules.Position
	Plies  []Ply // one per move played, in order
	Result rules.Result
	End    Termination
	// NoResign marks a game of the share that never resigns.
	NoResign bool
	// WouldResign is, in a NoResign game, the first ply at which the side
	// to move would have resigned; -1 if none.
	WouldResign int
	// ResignWDL is, in a game ended by resignation, the root win/draw/loss
	// of the search at which the side to move resigned (the resigning
	// position is not a Ply); zeros in files before format version 4.
	ResignWDL [3]float32
}

// Moves returns the moves played.
func (g *Game) Moves() []rules.Move {
	ms := make([]rules.Move, len(g.Plies))
	for i := range g.Plies {
		ms[i] = g.Plies[i].Played()
	}
	return ms
}

// FalseResignation reports, for a NoResign game in which a side would have
// resigned, that side's fate: checked is true, and false is true when it
// did not in fact lose.
func (g *Game) FalseResignation() (checked, false bool) {
	if g.WouldResign < 0 || g.WouldResign >= len(g.Plies) {
		return false, false
	}
	side := g.Plies[g.WouldResign].Pos.Side()
	return true, g.Result != rules.WinFor(side.Opponent())
}

// GameSeed derives the seed of game index from the base seed (splitmix64).
func GameSeed(base uint64, index int) uint64 {
	z := base + uint64(index+1)*0x9E3779B97F4A7C15
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// player plays self-play games one after another with one search tree. It
// is not safe for concurrent use; Run uses one player per goroutine.
type player struct {
	cfg    Config
	search *mcts.Search
	tables *tb.Tables // Config.Tables opened; nil without
}

// newPlayer returns a player for cfg that asks ev for evaluations.
func newPlayer(ev mcts.Evaluator, cfg Config) (*player, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	opt := SearchOptions(cfg.SelfPlay)
	pl := &player{cfg: cfg}
	t, err := OpenTables(cfg.SelfPlay, nil)
	if err != nil {
		return nil, fmt.Errorf("selfplay.tables: %w", err)
	}
	if t != nil {
		opt.Oracle = tb.Oracle{T: t}
		pl.tables = t
	}
	if ev, err = searchHybrids(cfg.SelfPlay, &opt, ev); err != nil {
		return nil, err
	}
	pl.search = mcts.New(ev, opt)
	return pl, nil
}

// OpenTables returns the endgame tables that s.Tables names, opened once
// per process (tb.Shared), or nil for none: a folder's, or for "auto:N"
// those of up to N pieces in the user's cache folder, generated there
// first where missing (tb.SharedCache; log, when not nil, gets its line).
func OpenTables(s configs.SelfPlay, log io.Writer) (*tb.Tables, error) {
	if n, ok := s.AutoTables(); ok {
		if n == 0 {
			return nil, fmt.Errorf("%q: want %sN with N in 2..%d", s.Tables, configs.AutoTablesPrefix, configs.MaxAutoTablePieces)
		}
		return tb.SharedCache(n, log)
	}
	if s.Tables == "" {
		return nil, nil
	}
	return tb.Shared(s.Tables)
}

// Play plays one game from the start position with the given seed.
func (pl *player) Play(ctx context.Context, seed uint64) (*Game, error) {
	cfg := pl.cfg
	rng := rand.New(rand.NewPCG(seed, seed^0x5DEECE66D))
	start := rules.Start()
	g := rules.NewGame(start)
	pl.search.Reset()
	game := &Game{Seed: seed, Start: start, WouldResign: -1}
	resign := cfg.ResignThreshold > 0
	if resign {
		game.NoResign = rng.Float64() < cfg.NoResignShare
	}
	var low [2]int // consecutive moves below the threshold, per side
	for {
		if o := g.Outcome(); o.Over() {
			game.Result = o.Result
			switch o.Reason {
			case rules.NoMoves, rules.Repetition, rules.FortyMoves:
				game.End = Termination(o.Reason)
			default:
				return nil, fmt.Errorf("selfplay: game ended by %v", o.Reason)
			}
			break
		}
		if r, ok := TableResult(pl.tables, g); ok {
			game.Result, game.End = r, Tables
			break
		}
		if cfg.MaxPlies > 0 && g.Ply() >= cfg.MaxPlies {
			game.Result, game.End = rules.Draw, LengthCap
			break
		}
		full, visits := true, cfg.Visits
		if cfg.CheapVisits > 0 && rng.Float64() >= cfg.FullSearchProb {
			full, visits = false, cfg.CheapVisits
		}
		noise := full && cfg.DirichletFraction > 0
		res, err := pl.search.Run(ctx, g, mcts.Limit{Visits: visits, Noise: noise}, rng)
		if err != nil {
			return nil, err
		}
		side := g.Position().Side()
		if resign && !res.Forced {
			if float64(res.WDL[0]+res.WDL[1]/2) < cfg.ResignThreshold {
				low[side]++
			} else {
				low[side] = 0
			}
			if low[side] >= cfg.ResignMoves {
				if !game.NoResign {
					game.Result, game.End = rules.WinFor(side.Opponent()), Resigned
					game.ResignWDL = res.WDL
					break
				}
				if game.WouldResign < 0 {
					game.WouldResign = g.Ply()
				}
			}
		}
		ply := Ply{
			Pos:         g.Position(),
			Legal:       res.Moves,
			Visits:      make([]uint32, len(res.Moves)),
			WDL:         res.WDL,
			Repetitions: g.Repetitions(),
			QuietPlies:  g.QuietPlies(),
			Full:        full && !res.Forced,
			Move:        -1,
		}
		for i, m := range res.Moves {
			ply.Visits[i] = uint32(res.Visits[i])
			if m == res.Move {
				ply.Move = i
			}
		}
		if ply.Move < 0 {
			return nil, fmt.Errorf("selfplay: search chose %v, not among the legal moves", res.Move)
		}
		game.Plies = append(game.Plies, ply)
		g.PlayUnchecked(res.Move)
		pl.search.Advance(res.Move)
	}
	return game, nil
}

// TableResult returns the exact result of g's current position from the
// tables t, as tb.Oracle proves it at the game's 40-move counter and
// repetitions: ok is false without tables, for a position with more
// pieces than they hold and for one that occurred before in the game
// (a repetition may draw it whatever the table says). Self-play ends a
// game there (Tables) and Checker checks that result.
func TableResult(t *tb.Tables, g *rules.Game) (rules.Result, bool) {
	if t == nil {
		return 0, false
	}
	p := g.Position()
	proof, ok := tb.Oracle{T: t}.Prove(mcts.Query{Pos: p, Repetitions: g.Repetitions(), QuietPlies: g.QuietPlies()})
	switch {
	case !ok:
		return 0, false
	case proof == mcts.ProofWin:
		return rules.WinFor(p.Side()), true
	case proof == mcts.ProofLoss:
		return rules.WinFor(p.Side().Opponent()), true
	}
	return rules.Draw, true
}

// Run plays games games, with indices first, first+1, ..., cfg.Parallel
// at a time, all sharing ev. Game i uses the seed
// GameSeed(cfg.Seed, i). done is called for each finished game, from one
// goroutine at a time, in order of completion; an error from done stops
// the run and is returned. When ctx is cancelled, games in progress are
// dropped and Run returns ctx.Err() after every finished game has been
// handed to done.
func Run(ctx context.Context, ev mcts.Evaluator, cfg Config, first, games int, done func(*Game) error) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	players := make([]*player, max(0, min(cfg.Parallel, games)))
	for w := range players {
		pl, err := newPlayer(ev, cfg)
		if err != nil {
			return err
		}
		players[w] = pl
	}
	next := make(chan int)
	finished := make(chan *Game)
	// The pool's error is the first game that failed on its own; a game cut
	// short by the cancellation is no failure.
	var pool errgroup.Group
	for _, pl := range players {
		pool.Go(func() error {
			for i := range next {
				g, err := pl.Play(ctx, GameSeed(cfg.Seed, i))
				if err != nil {
					if ctx.Err() != nil {
						return nil
					}
					cancel()
					return fmt.Errorf("selfplay: game %d: %w", i, err)
				}
				finished <- g // the collector drains finished to the end
			}
			return nil
		})
	}
	go func() {
		defer close(next)
		for i := first; i < first+games; i++ {
			select {
			case next <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	var poolErr error
	go func() {
		poolErr = pool.Wait()
		close(finished) // after poolErr is set: the collector reads it then
	}()
	var doneErr error
	for g := range finished {
		if doneErr != nil {
			continue
		}
		if err := done(g); err != nil {
			doneErr = err
			cancel()
		}
	}
	if doneErr != nil {
		return doneErr
	}
	if poolErr != nil {
		return poolErr
	}
	return ctx.Err()
}
