package suite

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"

	"dama/arena/classic"
	"dama/rules"
	"dama/tactics"
	"dama/tb"
)

// BuildOptions say which positions of a game make the suite. The defaults
// are the project suite's.
type BuildOptions struct {
	// ProvingDepth is the depth of the reference engine's search that
	// proves a position (default 12).
	ProvingDepth int
	// ShallowDepth is the depth of the search that must not see it
	// (default 3).
	ShallowDepth int
	// MinGain is the material the best line must win, in centi-men after
	// its captures (default 100: a man); a forced win counts as any gain.
	MinGain int
	// MinMargin is how much the best move's score must beat every other
	// move's, in centi-men (default 100).
	MinMargin int
	// MinPly skips a game's first plies (the random openings; default 8).
	MinPly int
	// ScreenDepth is the depth of a cheaper search that picks the
	// positions worth the proving search (default 8): those where it
	// chooses another move than the shallow search, or scores at least
	// MinGain/2 more. A combination that only the proving depth sees is
	// missed; the screen makes a suite of a hundred positions an hour's
	// work on a busy core rather than a day's.
	ScreenDepth int
	// MaxNodes caps each search of the reference engine (default 1<<21,
	// about half a second): a position whose proving searches do not
	// complete their depth within it (king endings, mostly) is skipped.
	MaxNodes int64
}

func (o BuildOptions) withDefaults() BuildOptions {
	positive(&o.ProvingDepth, 12)
	positive(&o.ShallowDepth, 3)
	positive(&o.MinGain, tactics.ManValue)
	positive(&o.MinMargin, tactics.ManValue)
	positive(&o.MinPly, 8)
	positive(&o.ScreenDepth, min(8, o.ProvingDepth))
	if o.MaxNodes <= 0 {
		o.MaxNodes = 1 << 21
	}
	return o
}

func positive(v *int, def int) {
	if *v <= 0 {
		*v = def
	}
}

// Builder examines positions for a suite with the reference engine. It is
// not safe for concurrent use.
type Builder struct {
	opt BuildOptions
	e   *classic.Engine
	rng *rand.Rand
}

// NewBuilder returns a builder; its searches are reproducible (a fixed
// seed, fixed depths).
func NewBuilder(opt BuildOptions) (*Builder, error) {
	opt = opt.withDefaults()
	if opt.ProvingDepth > classic.MaxDepth || opt.ShallowDepth >= opt.ProvingDepth {
		return nil, fmt.Errorf("tactics: proving depth %d must be above the shallow depth %d and at most %d", opt.ProvingDepth, opt.ShallowDepth, classic.MaxDepth)
	}
	if opt.ScreenDepth > opt.ProvingDepth {
		return nil, fmt.Errorf("tactics: screen depth %d above the proving depth %d", opt.ScreenDepth, opt.ProvingDepth)
	}
	return &Builder{opt: opt, e: classic.New(classic.Options{}), rng: rand.New(rand.NewPCG(1, 2))}, nil
}

// Options returns the builder's options, defaults filled in.
func (b *Builder) Options() BuildOptions { return b.opt }

// search runs the engine on a fresh game from pos to depth d; ok is
// false when the node cap stopped it before.
func (b *Builder) search(ctx context.Context, pos rules.Position, d int) (r classic.Result, ok bool, err error) {
	b.e.Clear()
	r, err = b.e.Search(ctx, rules.NewGame(pos), classic.Limits{Depth: d, Nodes: b.opt.MaxNodes}, b.rng)
	// A forced result inside the horizon ends the deepening early.
	done := r.Depth >= d || r.Score >= classic.WinScore-1000 || r.Score <= -classic.WinScore+1000
	return r, err == nil && done, err
}

// Examine reports whether pos is a tactical position: at least two legal
// moves; every search completes its depth within BuildOptions.MaxNodes;
// the screen passes it (BuildOptions.ScreenDepth); the proving
// search's best move differs from the shallow search's; its line wins at least MinGain of material (or the game); and
// every other move, searched to the same depth, scores at least MinMargin
// less. The position is searched as a fresh game from its FEN, as the
// suite is solved.
func (b *Builder) Examine(ctx context.Context, pos rules.Position, source string) (Position, bool, error) {
	legal := pos.Legal(nil)
	if len(legal) < 2 {
		return Position{}, false, nil
	}
	shallow, _, err := b.search(ctx, pos, b.opt.ShallowDepth)
	if err != nil {
		return Position{}, false, err
	}
	if b.opt.ScreenDepth < b.opt.ProvingDepth {
		screen, ok, err := b.search(ctx, pos, b.opt.ScreenDepth)
		if err != nil || !ok {
			return Position{}, false, err
		}
		if screen.Move == shallow.Move && screen.Score-shallow.Score < b.opt.MinGain/2 {
			return Position{}, false, nil
		}
	}
	deep, ok, err := b.search(ctx, pos, b.opt.ProvingDepth)
	if err != nil || !ok {
		return Position{}, false, err
	}
	if deep.Move == shallow.Move {
		return Position{}, false, nil
	}
	gain := lineGain(pos, deep)
	if gain < b.opt.MinGain {
		return Position{}, false, nil
	}
	second := -classic.WinScore - 1
	for _, m := range legal {
		if m == deep.Move {
			continue
		}
		after := pos.Play(m)
		v := classic.WinScore // the opponent has no move: a win, as good as the best
		if after.HasMoves() {
			r, ok, err := b.search(ctx, after, b.opt.ProvingDepth-1)
			if err != nil || !ok {
				return Position{}, false, err
			}
			v = -r.Score
		}
		second = max(second, v)
		if deep.Score-second < b.opt.MinMargin {
			return Position{}, false, nil
		}
	}
	return Position{
		FEN: pos.FEN(), Best: []string{deep.Move.String()},
		Score: deep.Score, Second: second, Gain: gain, Depth: b.opt.ProvingDepth,
		Shallow: shallow.Move.String(), Source: source,
	}, true, nil
}

// lineGain returns the material that the principal variation of r wins
// for pos's side to move, in centi-men, after the captures at its end
// (tactics.Settled); a line that ends the game in the side's favour
// counts as classic.WinScore.
func lineGain(pos rules.Position, r classic.Result) int {
	if r.Score > classic.WinScore-1000 {
		return classic.WinScore
	}
	p := pos
	for _, m := range r.PV {
		p = p.Play(m)
	}
	end := tactics.Settled(p)
	if len(r.PV)%2 == 1 {
		end = -end // the opponent is to move at the end of the line
	}
	return end - tactics.Material(pos)
}

// Game examines every position of a recorded game from ply
// BuildOptions.MinPly on whose FEN take accepts (take(fen) reports whether
// the FEN is new: positions repeat between games), and returns the
// tactical ones. name names the game in Source.
func (b *Builder) Game(ctx context.Context, rec rules.Record, name string, take func(fen string) bool) ([]Position, error) {
	var out []Position
	p := rec.Start
	for ply, m := range rec.Moves {
		if ply >= b.opt.MinPly && take(p.FEN()) {
			t, ok, err := b.Examine(ctx, p, fmt.Sprintf("%s ply %d", name, ply+1))
			if err != nil {
				return nil, err
			}
			if ok {
				out = append(out, t)
			}
		}
		p = p.Play(m)
	}
	return out, nil
}

// Game is a recorded game to find positions in, with the name its
// positions' Source gives it ("FILE game N").
type Game struct {
	Name   string
	Record rules.Record
}

// GamesOptions say how Builder.Games works through its games.
type GamesOptions struct {
	Base     *Suite // the suite whose positions come first (nil: none); CanExtend must accept it
	Parallel int    // games examined at once (at least 1)
	Most     int    // the most positions to add (0: no limit)
	// Done, when not nil, is called after each game examined, one call at
	// a time: its name, the positions it gave and the suite's so far.
	Done func(name string, found, total int)
}

// CanExtend reports, as an error naming the suite name, whether s was
// built with other options than b's: Games adds to a suite only
// positions chosen as its own were.
func (b *Builder) CanExtend(s *Suite, name string) error {
	o := b.opt
	if s.ProvingDepth != o.ProvingDepth || s.ShallowDepth != o.ShallowDepth || s.ScreenDepth != o.ScreenDepth || s.MinGain != o.MinGain || s.MinMargin != o.MinMargin {
		return fmt.Errorf("%s was built with depths %d/%d/%d (proving/shallow/screen), gain %d, margin %d; this build has %d/%d/%d, %d, %d", name,
			s.ProvingDepth, s.ShallowDepth, s.ScreenDepth, s.MinGain, s.MinMargin, o.ProvingDepth, o.ShallowDepth, o.ScreenDepth, o.MinGain, o.MinMargin)
	}
	return nil
}

// Games examines the games (Game), opt.Parallel at a time on builders of
// b's options, and returns the suite of b's options with the positions of
// opt.Base and then those found, in the games' order, each FEN once.
// Cancelled, it returns the positions of the games finished by then, or
// ctx's error when there are none; a suite without positions is an error.
func (b *Builder) Games(ctx context.Context, games []Game, opt GamesOptions) (*Suite, error) {
	s := &Suite{ProvingDepth: b.opt.ProvingDepth, ShallowDepth: b.opt.ShallowDepth, MinGain: b.opt.MinGain, MinMargin: b.opt.MinMargin, ScreenDepth: b.opt.ScreenDepth}
	found := make([][]Position, len(games))
	var mu sync.Mutex
	seen := map[string]bool{}
	next, total, most := 0, 0, opt.Most
	if opt.Base != nil {
		s.Positions = opt.Base.Positions
		for _, p := range opt.Base.Positions {
			seen[p.FEN] = true
		}
		if most > 0 {
			most += len(opt.Base.Positions)
		}
		total = len(opt.Base.Positions)
	}
	take := func(fen string) bool {
		mu.Lock()
		defer mu.Unlock()
		if seen[fen] {
			return false
		}
		seen[fen] = true
		return true
	}
	var wg sync.WaitGroup
	errs := make([]error, max(opt.Parallel, 1))
	for w := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			wb, _ := NewBuilder(b.opt)
			for {
				mu.Lock()
				if next == len(games) || (most > 0 && total >= most) || ctx.Err() != nil {
					mu.Unlock()
					return
				}
				i := next
				next++
				mu.Unlock()
				ps, err := wb.Game(ctx, games[i].Record, games[i].Name, take)
				if ctx.Err() != nil {
					return // cancelled: the games finished so far are kept
				}
				if err != nil {
					errs[w] = err
					return
				}
				mu.Lock()
				found[i] = ps
				total += len(ps)
				if opt.Done != nil {
					opt.Done(games[i].Name, len(ps), total)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	for _, ps := range found {
		s.Positions = append(s.Positions, ps...)
	}
	if most > 0 && len(s.Positions) > most {
		s.Positions = s.Positions[:most]
	}
	if len(s.Positions) == 0 {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("no tactical position in %d games", len(games))
	}
	return s, nil
}

// Audit returns p with Wins set to every other move that wins the game
// too, when p's best move is a forced win: those a search to depth plies
// (each within nodes) proves, and with tables (nil for none) those that
// lead into a position the tables prove won or that a search as deep
// ending in them proves (tableProof). With tables a position that wins
// material is audited too where they prove its best move a win of the
// game, as they do in most positions of their pieces: there the material
// does not change the result. The tables are exact at the 40-move counter
// of a fresh game from the FEN, as a player is scored. Any other position
// is returned as it is. A proof needs no complete iteration at depth: a
// forced win found at a shallower one is as sound. So a player that plays
// a slower win is told apart from one that misses the win (Answer.Won).
func (b *Builder) Audit(ctx context.Context, p Position, depth int, nodes int64, tables *tb.Tables) (Position, error) {
	if depth < 2 || depth > classic.MaxDepth || nodes < 1 {
		return Position{}, fmt.Errorf("tactics: audit depth %d (want 2..%d) or node cap %d (want at least 1)", depth, classic.MaxDepth, nodes)
	}
	pos, best, err := p.Parsed()
	if err != nil {
		return Position{}, err
	}
	p.Wins = nil
	won := classic.Decisive(p.Score) && p.Score > 0
	if !won && tables != nil {
		if won, err = tableWin(pos, best[0], depth, nodes, tables); err != nil {
			return Position{}, err
		}
	}
	if !won {
		return p, nil
	}
	for _, m := range pos.Legal(nil) {
		if slices.Contains(best, m) {
			continue
		}
		after := pos.Play(m)
		won := !after.HasMoves()
		if !won && (tables == nil || !tables.Has(after)) {
			b.e.Clear()
			r, err := b.e.Search(ctx, rules.NewGame(after), classic.Limits{Depth: depth - 1, Nodes: nodes}, b.rng)
			if err != nil {
				return Position{}, err
			}
			won = classic.Decisive(r.Score) && r.Score < 0 // for the side that played m
		}
		if !won && tables != nil {
			if won, err = tableWin(pos, m, depth, nodes, tables); err != nil {
				return Position{}, err
			}
		}
		if !won {
			continue
		}
		p.Wins = append(p.Wins, m.String())
	}
	return p, nil
}

// tableWin reports whether m wins the game at pos (a fresh game from it)
// by the tables: the position after it is one they prove lost, or a
// search depth-1 plies deep within nodes that ends in them (tableProof)
// proves it lost.
func tableWin(pos rules.Position, m rules.Move, depth int, nodes int64, tables *tb.Tables) (bool, error) {
	after, quiet := pos.Play(m), rules.QuietAfter(pos, m, 0)
	if tables.Has(after) {
		e, err := tables.Probe(after)
		if err != nil {
			return false, err
		}
		return e.Under(quiet) == tb.Loss, nil
	}
	tp := tableProof{t: tables}
	return tp.proves(after, quiet, depth-1, nodes, tb.Loss), nil
}

// Audit audits every position of s (Builder.Audit, at depth within
// nodes a search, with tables when not nil), positions parallel at a
// time, and sets s.AuditDepth and s.AuditTables. A builder's searches are
// reproducible, so with parallel 1 so is the audit. It returns the number
// of positions given Wins and of moves in them.
func Audit(ctx context.Context, s *Suite, depth int, nodes int64, tables *tb.Tables, parallel int) (positions, moves int, err error) {
	opt := BuildOptions{ProvingDepth: s.ProvingDepth, ShallowDepth: s.ShallowDepth, ScreenDepth: s.ScreenDepth, MinGain: s.MinGain, MinMargin: s.MinMargin}
	if _, err := NewBuilder(opt); err != nil {
		return 0, 0, err
	}
	if depth <= s.ProvingDepth {
		return 0, 0, fmt.Errorf("tactics: audit depth %d: want a depth above the suite's proving depth %d (a win that shallow would be a best move)", depth, s.ProvingDepth)
	}
	out := slices.Clone(s.Positions)
	errs := make([]error, len(out))
	err = eachPosition(ctx, len(out), parallel, func() func(int) {
		b, _ := NewBuilder(opt)
		return func(i int) { out[i], errs[i] = b.Audit(ctx, out[i], depth, nodes, tables) }
	})
	if err != nil {
		return 0, 0, err
	}
	for i, err := range errs {
		if err != nil {
			return 0, 0, fmt.Errorf("tactics: position %d: %w", i+1, err)
		}
		if n := len(out[i].Wins); n > 0 {
			positions++
			moves += n
		}
	}
	s.Positions, s.AuditDepth, s.AuditTables = out, depth, 0
	if tables != nil {
		s.AuditTables = tables.Pieces()
	}
	return positions, moves, nil
}
