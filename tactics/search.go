package tactics

import (
	"sync"

	"dama/rules"
)

// Material values in centi-men, as the reference engine counts them
// (arena/classic's default weights): ManValue is a man, the unit of
// Material, Settled and the suite's gains and margins.
const (
	ManValue  = 100
	kingValue = 150
)

// winScore scores a side left without a move at ply n as -(winScore-n).
const winScore = 1_000_000

// winBound separates win scores from material balances.
const winBound = winScore - 1000

// maxPly bounds the plies of one shallow search, full width, forced moves
// and captures past the horizon together (a capture takes a piece, so a
// line of captures is at most 24 long).
const maxPly = 64

// searcher holds the move lists of one shallow search, ply by ply, so a
// search does not allocate. Searchers come from a pool: the oracle and the
// evaluator are asked by many goroutines at once.
type searcher struct {
	moves [maxPly][]rules.Move
	line  [maxPly + 1]rules.Position // positions from the leaf, for repetitions
	nodes int
}

var searchers = sync.Pool{New: func() any {
	s := &searcher{}
	for i := range s.moves {
		s.moves[i] = make([]rules.Move, 0, rules.MaxMoves)
	}
	return s
}}

func getSearcher() *searcher {
	s := searchers.Get().(*searcher)
	s.nodes = 0
	return s
}

func putSearcher(s *searcher) { searchers.Put(s) }

// Material returns the material balance of p in centi-men for its side to
// move: a man is 100, a king 150.
func Material(p rules.Position) int {
	us, them := p.Side(), p.Side().Opponent()
	um, uk := p.Count(us)
	tm, tk := p.Count(them)
	return ManValue*(um-tm) + kingValue*(uk-tk)
}

// quiesce returns the material balance of p for its side to move once the
// captures are played out: captures are compulsory, so while the side to
// move can take it must (every legal move is a capture), and a side without
// a move has lost. Alpha-beta within [alpha, beta].
func (s *searcher) quiesce(p rules.Position, ply, alpha, beta int) int {
	s.nodes++
	if !p.HasCapture(p.Side()) {
		if !p.HasMoves() {
			return -(winScore - ply)
		}
		return Material(p)
	}
	if ply >= maxPly {
		return Material(p)
	}
	moves := p.Legal(s.moves[ply][:0])
	best := -winScore - 1
	for _, m := range moves {
		v := -s.quiesce(p.Play(m), ply+1, -beta, -alpha)
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

// alphaBeta returns the material balance of p for its side to move after
// depth plies at full width and the captures after them (quiesce), or a
// win score. A position with one legal move does not count against depth
// (forcing lines, mostly captures, are followed to their end), up to
// maxPly.
func (s *searcher) alphaBeta(p rules.Position, depth, ply, alpha, beta int) int {
	if depth <= 0 || ply >= maxPly {
		return s.quiesce(p, ply, alpha, beta)
	}
	s.nodes++
	moves := p.Legal(s.moves[ply][:0])
	if len(moves) == 0 {
		return -(winScore - ply)
	}
	next := depth - 1
	if len(moves) == 1 {
		next = depth
	}
	best := -winScore - 1
	for _, m := range moves {
		v := -s.alphaBeta(p.Play(m), next, ply+1, -beta, -alpha)
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

// Outcomes of prove, for the side to move.
type outcome int8

const (
	unknown outcome = iota
	won
	lost
)

// prove returns whether the side to move in p, the leaf, wins or loses
// under the rules within depth plies at full width, positions with one
// legal move not counted (up to maxPly plies), and unknown otherwise;
// quiet is the leaf's 40-move counter. A draw counts as unknown, and so
// does every position whose draw the search cannot rule out (see open).
func (s *searcher) prove(p rules.Position, depth, quiet int) outcome {
	switch {
	case s.wins(p, depth, 0, quiet, -1):
		return won
	case s.loses(p, depth, 0, quiet, -1):
		return lost
	}
	return unknown
}

// open reports whether the position p at ply plies below the leaf (not a
// loss by the rules: its side has a move) may be a draw, or may not be
// searched further: one reached from the leaf by reversible moves only
// (king moves without capture), which may repeat a position of the game
// before the leaf; one that repeats a position of the line after its last
// irreversible move (at ply irrev, -1 while there is none); one where the
// 40-move counter quiet has reached rules.QuietLimit; and one at maxPly.
func (s *searcher) open(p rules.Position, ply, quiet, irrev int) bool {
	s.line[ply] = p
	if ply >= maxPly || quiet >= rules.QuietLimit || (ply > 0 && irrev < 0) {
		return true
	}
	for i := max(irrev, 0); i < ply; i++ {
		if s.line[i] == p {
			return true
		}
	}
	return false
}

// wins reports whether the side to move in p can leave the opponent
// without a move within depth plies (see prove).
func (s *searcher) wins(p rules.Position, depth, ply, quiet, irrev int) bool {
	s.nodes++
	// open's answer assumes a move; without one the position is lost,
	// so not won either way.
	if depth < 1 || s.open(p, ply, quiet, irrev) {
		return false
	}
	moves := p.Legal(s.moves[ply][:0])
	if len(moves) == 0 {
		return false
	}
	next := depth - 1
	if len(moves) == 1 {
		next = depth
	}
	for _, m := range moves {
		ir := irrev
		if !p.Reversible(m) {
			ir = ply + 1
		}
		if s.loses(p.Play(m), next, ply+1, rules.QuietAfter(p, m, quiet), ir) {
			return true
		}
	}
	return false
}

// loses reports whether the side to move in p has no move, or loses
// within depth plies whatever it plays (see prove).
func (s *searcher) loses(p rules.Position, depth, ply, quiet, irrev int) bool {
	s.nodes++
	if !p.HasMoves() {
		return true // the rules look at this before any draw
	}
	if depth < 1 || s.open(p, ply, quiet, irrev) {
		return false
	}
	moves := p.Legal(s.moves[ply][:0])
	next := depth - 1
	switch {
	case len(moves) == 1:
		next = depth
	case next < 1:
		return false // wins at depth 0 is false: the first move refutes
	}
	for _, m := range moves {
		ir := irrev
		if !p.Reversible(m) {
			ir = ply + 1
		}
		if !s.wins(p.Play(m), next, ply+1, rules.QuietAfter(p, m, quiet), ir) {
			return false
		}
	}
	return true
}

// Settled returns the material balance of p in centi-men for its side to
// move once the pending captures are played out (a quiescence search;
// where they leave a side without a move, ±(1,000,000-n) after n plies).
func Settled(p rules.Position) int {
	s := getSearcher()
	defer putSearcher(s)
	return s.quiesce(p, 0, -winScore-1, winScore+1)
}
