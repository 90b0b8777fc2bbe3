package arena

import (
	"context"
	"fmt"
	"math/bits"
	"math/rand/v2"

	"dama/rules"
)

// alphaBeta is a fixed-depth negamax alpha-beta searcher with a material
// evaluation, a baseline for the ladder.
//
// Terminal positions are scored exactly by the rules, through the game's
// history: a side without a move loses (faster wins score higher), and
// threefold repetition and the 40-move rule are draws. At the horizon the
// search goes on while the side to move must capture (a capture is
// mandatory, so there is no "stand pat"), up to quiescencePlies more plies.
// The evaluation, from the side to move, counts a man 100 and a king 150,
// plus 2 per row a man has advanced and 4 for a piece on the central
// 4x4 squares.
//
// Move ordering puts captures first (in draughts a capture excludes every
// simple move, so this is automatic) and promotions next. Root moves are
// shuffled with the game's rng and the first of equally good moves is
// played, so games vary with the seed yet repeat exactly for the same seed.
type alphaBeta struct {
	Depth int // plies searched at full width, 1..maxAlphaBetaDepth
}

// quiescencePlies bounds the capture sequences searched past the horizon.
const quiescencePlies = 24

// Search scores. A win found at ply n scores winScore-n.
const (
	winScore = 1_000_000
	infScore = winScore + 1
)

// Name returns "alphabeta:D".
func (a alphaBeta) Name() string { return fmt.Sprintf("alphabeta:%d", a.Depth) }

// Start returns a searcher for one game.
func (a alphaBeta) Start(_ context.Context, _ *rules.Game, rng *rand.Rand) (GamePlayer, error) {
	if a.Depth < 1 || a.Depth > maxAlphaBetaDepth {
		return nil, fmt.Errorf("arena: alphabeta depth %d out of range 1..%d", a.Depth, maxAlphaBetaDepth)
	}
	if rng == nil {
		return nil, fmt.Errorf("arena: alphabeta player needs a rng")
	}
	return &abGame{depth: a.Depth, rng: rng}, nil
}

type abGame struct {
	depth int
	rng   *rand.Rand
	s     searcher
}

func (a *abGame) Move(ctx context.Context, g *rules.Game) (rules.Move, error) {
	m, _, err := a.s.search(ctx, g, a.depth, a.rng)
	return m, err
}

func (a *abGame) Close() {}

// searcher holds a private copy of the game, kept in step with the match
// game, and one move buffer per ply.
type searcher struct {
	g     *rules.Game
	bufs  [][]rules.Move
	root  []rules.Move
	nodes int64
	err   error
}

// sync makes s.g equal to g, replaying only the moves it has not seen.
func (s *searcher) sync(g *rules.Game) { s.g = rules.Follow(s.g, g) }

func (s *searcher) buf(ply int) []rules.Move {
	for len(s.bufs) <= ply {
		s.bufs = append(s.bufs, make([]rules.Move, 0, rules.MaxMoves))
	}
	return s.bufs[ply]
}

// search returns the best move in g at depth and its score for the side to
// move. Ties go to the earliest move after shuffling with rng.
func (s *searcher) search(ctx context.Context, g *rules.Game, depth int, rng *rand.Rand) (rules.Move, int, error) {
	s.sync(g)
	s.err = nil
	s.root = s.g.Position().Legal(s.root[:0])
	if len(s.root) == 0 || s.g.Outcome().Over() {
		return rules.Move{}, 0, fmt.Errorf("arena: alphabeta asked to move in a finished game (%s)", g.Position().FEN())
	}
	rng.Shuffle(len(s.root), func(i, j int) { s.root[i], s.root[j] = s.root[j], s.root[i] })
	orderMoves(s.g.Position(), s.root)
	best, bestScore := s.root[0], -infScore
	alpha := -infScore
	for _, m := range s.root {
		s.g.PlayUnchecked(m)
		v := -s.negamax(ctx, depth-1, 1, -infScore, -alpha)
		s.g.Undo()
		if s.err != nil {
			return rules.Move{}, 0, s.err
		}
		if v > bestScore {
			best, bestScore = m, v
			alpha = v
		}
	}
	return best, bestScore, nil
}

func (s *searcher) negamax(ctx context.Context, depth, ply, alpha, beta int) int {
	s.nodes++
	if s.nodes&4095 == 0 && s.err == nil {
		s.err = ctx.Err()
	}
	if s.err != nil {
		return 0
	}
	p := s.g.Position()
	moves := p.Legal(s.buf(ply))
	if len(moves) == 0 {
		return -winScore + ply
	}
	if s.g.Repetitions() >= 2 || s.g.QuietPlies() >= rules.QuietLimit {
		return 0
	}
	if depth <= 0 && (!moves[0].IsCapture() || -depth >= quiescencePlies) {
		return evaluate(p)
	}
	orderMoves(p, moves)
	best := -infScore
	for _, m := range moves {
		s.g.PlayUnchecked(m)
		v := -s.negamax(ctx, depth-1, ply+1, -beta, -alpha)
		s.g.Undo()
		if v > best {
			best = v
			if v > alpha {
				alpha = v
				if alpha >= beta {
					break
				}
			}
		}
	}
	return best
}

// orderMoves moves promotions to the front, keeping the order otherwise.
// (Captures need no ordering: when one exists, every legal move captures.)
func orderMoves(p rules.Position, moves []rules.Move) {
	kings := p.Kings(p.Side())
	n := 0
	for i, m := range moves {
		to := m.To().Row()
		if !kings.Has(m.From()) && (to == 0 || to == 7) {
			moves[n], moves[i] = moves[i], moves[n]
			n++
		}
	}
}

// Evaluation weights, in hundredths of a man.
const (
	manValue     = 100
	kingValue    = 150
	advanceValue = 2
	centreValue  = 4
)

var (
	// advance[c][s] is the bonus of c's man on s; centre[s] that of any piece.
	advance [2][rules.NumSquares + 1]int
	centre  [rules.NumSquares + 1]int
)

func init() {
	for s := rules.Square(1); s <= rules.NumSquares; s++ {
		r, f := s.Row(), s.File()
		advance[rules.White][s] = advanceValue * (7 - r)
		advance[rules.Black][s] = advanceValue * r
		if r >= 2 && r <= 5 && f >= 2 && f <= 5 {
			centre[s] = centreValue
		}
	}
}

// evaluate scores p for the side to move.
func evaluate(p rules.Position) int {
	side := p.Side()
	return evalSide(p, side) - evalSide(p, side.Opponent())
}

func evalSide(p rules.Position, c rules.Color) int {
	v := 0
	for x := p.Men(c); x != 0; x &= x - 1 {
		s := rules.Square(lowBit(uint32(x)))
		v += manValue + advance[c][s] + centre[s]
	}
	for x := p.Kings(c); x != 0; x &= x - 1 {
		s := rules.Square(lowBit(uint32(x)))
		v += kingValue + centre[s]
	}
	return v
}

// lowBit returns the square of the lowest set bit of a SquareSet.
func lowBit(x uint32) int { return bits.TrailingZeros32(x) + 1 }
