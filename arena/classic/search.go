package classic

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"dama/rules"
)

// MaxDepth bounds Limits.Depth (plies at full width).
const MaxDepth = 40

// Search scores. A win found at ply n scores WinScore-n.
const (
	WinScore = 1_000_000
	infScore = WinScore + 1
	// winBound separates win scores from evaluations.
	winBound = WinScore - 1000
)

// Decisive reports whether a search score is a forced result within the
// horizon (a win or a loss for the side it is scored for), not an
// evaluation.
func Decisive(score int) bool { return score >= winBound || score <= -winBound }

// maxPly bounds the plies from the root (full width, extensions and
// captures past the horizon together).
const maxPly = 128

// defaultTableMiB is the transposition table size when Options leaves it 0.
const defaultTableMiB = 16

// Options configures an Engine. A zero field means its documented default.
type Options struct {
	// TableMiB is the transposition table size in MiB (default
	// defaultTableMiB, 16). NoTable turns the table off (for tests).
	TableMiB int
	NoTable  bool
	// Weights are the evaluation weights (default DefaultWeights).
	Weights *Weights
	// NoThreatExtension turns off the one-ply extension at the horizon
	// when the side not to move threatens a capture.
	NoThreatExtension bool
	// Now is the clock of Limits.Time (default time.Now), for tests that
	// stop a search at a given count of clock readings.
	Now func() time.Time
}

// Limits bounds one search. At least one field must be set; the search stops
// at the first limit reached. Depth and Nodes give reproducible searches;
// Time reads the clock.
type Limits struct {
	Depth int           // plies at full width, 1..MaxDepth; 0 for MaxDepth
	Nodes int64         // nodes searched; 0 for no limit
	Time  time.Duration // wall-clock time; 0 for no limit
}

// Validate reports a limit out of range.
func (l Limits) Validate() error {
	switch {
	case l.Depth < 0 || l.Depth > MaxDepth:
		return fmt.Errorf("classic: depth %d out of range 1..%d", l.Depth, MaxDepth)
	case l.Nodes < 0:
		return fmt.Errorf("classic: node limit %d is negative", l.Nodes)
	case l.Time < 0:
		return fmt.Errorf("classic: time limit %v is negative", l.Time)
	case l.Depth == 0 && l.Nodes == 0 && l.Time == 0:
		return errors.New("classic: no limit set (want a depth, a node count or a time)")
	}
	return nil
}

// Result is the outcome of a search.
type Result struct {
	Move  rules.Move   // the move to play
	Score int          // centi-men from the side to move; ±(WinScore-n) for a win in n plies
	Depth int          // the deepest iteration completed (0 when there was one legal move)
	Nodes int64        // nodes searched
	PV    []rules.Move // the principal variation, Move first
}

// Engine searches positions of one game at a time. It is not safe for
// concurrent use; keep one per game and goroutine. Its transposition table
// persists between searches.
type Engine struct {
	w       Weights
	tt      table
	threats bool
	now     func() time.Time
	// exactDepth, for tests, takes table cutoffs only from entries of
	// exactly the depth needed, so that the score equals a search without
	// the table.
	exactDepth bool

	g     *rules.Game // private copy of the searched game
	moves [maxPly][]rules.Move
	order [maxPly][rules.MaxMoves]uint8
	score [maxPly][rules.MaxMoves]int32
	pv    [maxPly + 1][maxPly]rules.Move
	pvLen [maxPly + 1]int

	killers [maxPly][2]uint16
	history [2][rules.NumSquares + 1][rules.NumSquares + 1]int32

	nodes     int64
	nodeLimit int64
	// historyDraws counts the draws by repetition or the 40-move rule met
	// so far: a node that saw one below it does not store its score.
	historyDraws int64
	deadline     time.Time
	ctx          context.Context
	stop         bool
	err          error
}

// New returns an engine with its own transposition table.
func New(opt Options) *Engine {
	e := &Engine{w: DefaultWeights, threats: !opt.NoThreatExtension, now: opt.Now}
	if e.now == nil {
		e.now = time.Now
	}
	if opt.Weights != nil {
		e.w = *opt.Weights
	}
	if !opt.NoTable {
		mib := opt.TableMiB
		if mib <= 0 {
			mib = defaultTableMiB
		}
		e.tt = newTable(mib << 20)
	}
	for i := range e.moves {
		e.moves[i] = make([]rules.Move, 0, rules.MaxMoves)
	}
	return e
}

// Clear forgets what earlier searches learnt (table, killers, history).
func (e *Engine) Clear() {
	e.tt.clear()
	e.killers = [maxPly][2]uint16{}
	e.history = [2][rules.NumSquares + 1][rules.NumSquares + 1]int32{}
}

// Evaluate returns the static evaluation of p for the side to move.
func (e *Engine) Evaluate(p rules.Position) int { return e.w.Evaluate(p) }

// sync makes e.g equal to g, replaying only the moves it has not seen.
func (e *Engine) sync(g *rules.Game) { e.g = rules.Follow(e.g, g) }

// Search finds a move for the side to move in g within lim. Root moves are
// shuffled with rng before ordering, and the first of equally good moves is
// kept, so games vary with the seed yet repeat exactly for the same seed
// when lim has no Time. ctx cancels the search with ctx's error.
func (e *Engine) Search(ctx context.Context, g *rules.Game, lim Limits, rng *rand.Rand) (Result, error) {
	if rng == nil {
		return Result{}, errors.New("classic: Search needs a rng")
	}
	rootMoves, err := e.begin(ctx, g, lim)
	if err != nil {
		return Result{}, err
	}
	rng.Shuffle(len(rootMoves), func(i, j int) { rootMoves[i], rootMoves[j] = rootMoves[j], rootMoves[i] })
	if len(rootMoves) == 1 && lim.Time > 0 {
		// Nothing to choose, and the clock counts: answer at once.
		m := rootMoves[0]
		return Result{Move: m, Score: e.w.Evaluate(e.g.Position()), Nodes: 0, PV: []rules.Move{m}}, nil
	}
	var res Result
	err = e.deepen(lim, func(d int) (int, bool) {
		score := e.root(d, rootMoves)
		if e.stop {
			return 0, false
		}
		res = Result{Move: rootMoves[0], Score: score, Depth: d, PV: append([]rules.Move(nil), e.pv[0][:e.pvLen[0]]...)}
		return score, true
	})
	if err != nil {
		return Result{}, err
	}
	res.Nodes = e.nodes
	return res, nil
}

// begin checks lim, takes g's position as the root and sets up a search
// of it within lim, returning the root's legal moves.
func (e *Engine) begin(ctx context.Context, g *rules.Game, lim Limits) ([]rules.Move, error) {
	if err := lim.Validate(); err != nil {
		return nil, err
	}
	e.sync(g)
	root := e.g.Position()
	rootMoves := root.Legal(e.moves[0])
	if len(rootMoves) == 0 || e.g.Outcome().Over() {
		return nil, fmt.Errorf("classic: asked to move in a finished game (%s)", root.FEN())
	}
	e.nodes, e.stop, e.err, e.ctx = 0, false, nil, ctx
	e.nodeLimit = lim.Nodes
	e.deadline = time.Time{}
	if lim.Time > 0 {
		e.deadline = e.now().Add(lim.Time)
	}
	e.tt.gen++
	e.killers = [maxPly][2]uint16{}
	for c := range e.history {
		for f := range e.history[c] {
			for t := range e.history[c][f] {
				e.history[c][f][t] /= 8
			}
		}
	}
	return rootMoves, nil
}

// deepen runs iteration(d) for d = 1, 2, ... within lim: iteration
// searches the root to depth d and returns its score, and false when the
// search was stopped during it (its result is then not to be kept). Depth
// 1 always finishes. It stops after a forced result within the horizon,
// and in a timed search when half the time is gone (the next iteration
// would most likely not finish).
func (e *Engine) deepen(lim Limits, iteration func(d int) (score int, done bool)) error {
	maxDepth := lim.Depth
	if maxDepth == 0 {
		maxDepth = MaxDepth
	}
	start := e.now()
	nodeLimit, deadline := e.nodeLimit, e.deadline
	for d := 1; d <= maxDepth; d++ {
		if d == 1 {
			// Depth 1 always finishes: it is small, and a move is needed.
			e.nodeLimit, e.deadline = 0, time.Time{}
		}
		score, done := iteration(d)
		if d == 1 {
			e.nodeLimit, e.deadline = nodeLimit, deadline
		}
		if e.err != nil {
			return e.err
		}
		if !done {
			break
		}
		if score >= winBound || score <= -winBound {
			if WinScore-abs(score) <= d {
				break // a forced result within the horizon: deeper search cannot change it
			}
		}
		if lim.Time > 0 && e.now().Sub(start) > lim.Time/2 {
			break // the next iteration would most likely not finish
		}
		if e.nodeLimit > 0 && e.nodes >= e.nodeLimit {
			break
		}
	}
	return e.err
}

// root searches the root moves to depth d, keeping the best first (stable:
// the first of equal moves stays ahead).
func (e *Engine) root(d int, moves []rules.Move) int {
	alpha, beta := -infScore, infScore
	best := -infScore
	bestIdx := 0
	e.pvLen[0] = 0
	for i, m := range moves {
		e.g.PlayUnchecked(m)
		var v int
		if i == 0 {
			v = -e.search(d-1, 1, -beta, -alpha, true)
		} else {
			v = -e.search(d-1, 1, -alpha-1, -alpha, false)
			if v > alpha && !e.stop {
				v = -e.search(d-1, 1, -beta, -alpha, true)
			}
		}
		e.g.Undo()
		if e.stop {
			break
		}
		if v > best {
			best, bestIdx = v, i
			alpha = v
			e.pv[0][0] = m
			copy(e.pv[0][1:], e.pv[1][:e.pvLen[1]])
			e.pvLen[0] = 1 + e.pvLen[1]
		}
	}
	if !e.stop && bestIdx != 0 {
		m := moves[bestIdx]
		copy(moves[1:bestIdx+1], moves[:bestIdx])
		moves[0] = m
	}
	return best
}

// checkStop counts a node and sets e.stop when a limit is reached.
func (e *Engine) checkStop() {
	e.nodes++
	if e.nodeLimit > 0 && e.nodes >= e.nodeLimit {
		e.stop = true
		return
	}
	if e.nodes&1023 == 0 {
		if err := e.ctx.Err(); err != nil {
			e.err, e.stop = err, true
		} else if !e.deadline.IsZero() && e.now().After(e.deadline) {
			e.stop = true
		}
	}
}

// Move ordering keys: the table move, then captures by what they take,
// promotions, killers, and the history score below.
const (
	keyTT      = 1 << 30
	keyCapture = 1 << 28
	keyPromote = 1 << 27
	keyKiller  = 1 << 26
)

func moveKey(m rules.Move) uint16 { return uint16(m.From())<<8 | uint16(m.To()) }

// search is the negamax of the position after the moves in e.g, at ply from
// the root, with depth plies left at full width (at most 0: quiescence).
func (e *Engine) search(depth, ply, alpha, beta int, pvNode bool) int {
	e.pvLen[ply] = 0
	e.checkStop()
	if e.stop {
		return 0
	}
	p := e.g.Position()
	// Past the horizon with no capture to make, the node stands pat unless
	// threatened: settle that without generating the moves (most nodes).
	capture := p.HasCapture(p.Side())
	horizonQuiet := depth <= 0 && !capture
	if horizonQuiet && !p.HasMoves() {
		return -WinScore + ply
	}
	var moves []rules.Move
	if !horizonQuiet {
		moves = p.Legal(e.moves[ply])
		e.moves[ply] = moves
		if len(moves) == 0 {
			return -WinScore + ply
		}
	}
	quiet := e.g.QuietPlies()
	if quiet >= rules.QuietLimit || (quiet >= 8 && e.g.Repetitions() >= 2) {
		e.historyDraws++
		return 0
	}
	draws0 := e.historyDraws
	if ply >= maxPly-1 {
		return e.w.Evaluate(p)
	}
	childDepth := depth - 1
	if horizonQuiet {
		// The horizon, quiet for the side to move: it stands pat, unless
		// this is the first quiet node past the horizon (depth 0) and the
		// other side threatens a capture. Then one more ply is searched at
		// full width, without standing pat, and its children (depth -1)
		// only resolve captures: at most one extension per path.
		if !e.threats || depth < 0 || !p.HasCapture(p.Side().Opponent()) {
			return e.w.Evaluate(p)
		}
		childDepth = -1
		moves = p.Legal(e.moves[ply])
		e.moves[ply] = moves
	}

	// The table: a move for ordering always, a cutoff only where the score
	// cannot depend on history (see tt.go).
	key := p.Hash()
	var ttMove uint8
	useTT := depth > 0
	if useTT {
		if t := e.tt.probe(key); t != nil {
			ttMove = t.move
			trust := quiet == 0 || (!e.exactDepth && quiet+depth+2 < rules.QuietLimit)
			if trust && t.bound != boundMove && int(t.depth) >= depth && !pvNode && (!e.exactDepth || int(t.depth) == depth) {
				s := fromTT(int(t.score), ply)
				switch {
				case t.bound == boundExact,
					t.bound == boundLower && s >= beta,
					t.bound == boundUpper && s <= alpha:
					return s
				}
			}
		}
	}

	// Order.
	side := p.Side()
	kings := p.Kings(side)
	n := len(moves)
	ord := &e.order[ply]
	sc := &e.score[ply]
	k0, k1 := e.killers[ply][0], e.killers[ply][1]
	for i, m := range moves {
		ord[i] = uint8(i)
		var s int32
		switch {
		case ttMove != 0 && i == int(ttMove)-1:
			s = keyTT
		case capture:
			s = keyCapture + int32(m.Captured().Len())*16 + int32((m.Captured() & p.Kings(side.Opponent())).Len())
		default:
			from, to := m.From(), m.To()
			if !kings.Has(from) && (to.Row() == 0 || to.Row() == 7) {
				s = keyPromote
			} else if k := moveKey(m); k == k0 || k == k1 {
				s = keyKiller
				if k == k0 {
					s++
				}
			} else {
				s = e.history[side][from][to]
			}
		}
		sc[i] = s
	}

	best := -infScore
	bestIdx := -1
	alpha0 := alpha
	for i := 0; i < n; i++ {
		// Selection: bring the best remaining move to i.
		bi := i
		for j := i + 1; j < n; j++ {
			if sc[ord[j]] > sc[ord[bi]] {
				bi = j
			}
		}
		ord[i], ord[bi] = ord[bi], ord[i]
		mi := ord[i]
		m := moves[mi]

		e.g.PlayUnchecked(m)
		var v int
		if i == 0 || !pvNode {
			v = -e.search(childDepth, ply+1, -beta, -alpha, pvNode)
		} else {
			v = -e.search(childDepth, ply+1, -alpha-1, -alpha, false)
			if v > alpha && v < beta && !e.stop {
				v = -e.search(childDepth, ply+1, -beta, -alpha, true)
			}
		}
		e.g.Undo()
		if e.stop {
			return 0
		}
		if v > best {
			best, bestIdx = v, int(mi)
			if v > alpha {
				alpha = v
				if pvNode {
					e.pv[ply][0] = m
					copy(e.pv[ply][1:], e.pv[ply+1][:e.pvLen[ply+1]])
					e.pvLen[ply] = 1 + e.pvLen[ply+1]
				}
				if alpha >= beta {
					if !m.IsCapture() {
						if k := moveKey(m); k != e.killers[ply][0] {
							e.killers[ply][1] = e.killers[ply][0]
							e.killers[ply][0] = k
						}
						if depth > 0 {
							h := &e.history[side][m.From()][m.To()]
							*h += int32(depth * depth)
							if *h > keyKiller/2 {
								e.halveHistory()
							}
						}
					}
					break
				}
			}
		}
	}
	if useTT {
		bound := boundExact
		switch {
		case e.historyDraws != draws0:
			bound = boundMove // the score may owe to this path's history
		case best >= beta:
			bound = boundLower
		case best <= alpha0:
			bound = boundUpper
		}
		e.tt.store(key, int32(toTT(best, ply)), depth, bound, uint8(bestIdx+1))
	}
	return best
}

func (e *Engine) halveHistory() {
	for c := range e.history {
		for f := range e.history[c] {
			for t := range e.history[c][f] {
				e.history[c][f][t] /= 2
			}
		}
	}
}

// toTT and fromTT make win scores relative to the node, not the root.
func toTT(s, ply int) int {
	switch {
	case s >= winBound:
		return s + ply
	case s <= -winBound:
		return s - ply
	}
	return s
}

func fromTT(s, ply int) int {
	switch {
	case s >= winBound:
		return s - ply
	case s <= -winBound:
		return s + ply
	}
	return s
}
