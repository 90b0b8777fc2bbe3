package classic

import (
	"context"
	"fmt"

	"dama/rules"
)

// Verdict is what Verify found about a move.
type Verdict struct {
	// Move is the move to play: the verified move, or the best move that
	// scored at least the margin more than it at Depth.
	Move     rules.Move
	Replaced bool // Move is not the verified move
	Score    int  // Move's score at Depth (the verified move's when not Replaced)
	Held     int  // the verified move's score at Depth
	Depth    int  // the deepest iteration completed (0: one legal move, nothing searched)
	Nodes    int64
	PV       []rules.Move // Move's principal variation when Replaced; else the verified move's
	// HeldPV is the verified move's principal variation at Depth (PV
	// itself when not Replaced), so that a caller can judge both lines.
	HeldPV []rules.Move
}

// Decisive reports whether a search score is a forced result within the
// horizon (a win or a loss for the side it is scored for), not an
// evaluation.
func Decisive(score int) bool { return score >= winBound || score <= -winBound }

// Verify checks a move another search chose (an MCTS's) by iterative
// deepening within lim: each iteration scores m exactly and tests every
// other root move with a null window at m's score plus margin, so that
// only a move better by at least margin costs a full search. The verdict
// of the deepest completed iteration holds: the best move that beat m by
// margin there, or m. With margin about a man (100), positional
// preferences of the evaluation do not overrule the other search, and a
// combination it missed (a move winning material, or m losing it) does.
// The clock counts when lim has a Time; a depth or node limit gives a
// reproducible verdict. ctx cancels with ctx's error.
func (e *Engine) Verify(ctx context.Context, g *rules.Game, m rules.Move, margin int, lim Limits) (Verdict, error) {
	if margin < 1 {
		return Verdict{}, fmt.Errorf("classic: verify margin %d, want at least 1", margin)
	}
	moves, err := e.begin(ctx, g, lim)
	if err != nil {
		return Verdict{}, err
	}
	at := -1
	for i, x := range moves {
		if x == m {
			at = i
		}
	}
	if at < 0 {
		return Verdict{}, fmt.Errorf("classic: verify %s: not a legal move in %s", m, e.g.Position().FEN())
	}
	moves[0], moves[at] = moves[at], moves[0]
	v := Verdict{Move: m, PV: []rules.Move{m}, HeldPV: []rules.Move{m}}
	if len(moves) == 1 {
		return v, nil
	}
	err = e.deepen(lim, func(d int) (int, bool) {
		held, best, bi, heldPV := e.verifyRoot(d, moves, margin)
		if e.stop {
			return 0, false
		}
		v = Verdict{Move: moves[bi], Replaced: bi != 0, Score: best, Held: held, Depth: d, PV: append([]rules.Move(nil), e.pv[0][:e.pvLen[0]]...), HeldPV: heldPV}
		if bi == 0 {
			v.HeldPV = v.PV
		}
		if bi != 0 {
			// Search the replacement right after m next time, so that
			// its score raises the bound early.
			x := moves[bi]
			copy(moves[2:bi+1], moves[1:bi])
			moves[1] = x
		}
		// deepen stops on a forced result within the horizon: a win for
		// the move to play, or a loss for m that nothing replaced.
		return best, true
	})
	if err != nil {
		return Verdict{}, err
	}
	v.Nodes = e.nodes
	return v, nil
}

// verifyRoot is one iteration of Verify at depth d over moves (moves[0]
// the verified move): it returns the verified move's score held, the best
// score best and its move's index bi (0 unless a move beat held by margin),
// and, when bi is not 0, the verified move's line heldPV. e.pv[0] holds
// the line of moves[bi].
func (e *Engine) verifyRoot(d int, moves []rules.Move, margin int) (held, best, bi int, heldPV []rules.Move) {
	e.pvLen[0] = 0
	e.g.PlayUnchecked(moves[0])
	held = -e.search(d-1, 1, -infScore, infScore, true)
	e.g.Undo()
	if e.stop {
		return 0, 0, 0, nil
	}
	e.pv[0][0] = moves[0]
	copy(e.pv[0][1:], e.pv[1][:e.pvLen[1]])
	e.pvLen[0] = 1 + e.pvLen[1]
	best = held
	if held >= winBound {
		return held, best, 0, nil // nothing is better than a forced win
	}
	line := e.pv[0][:e.pvLen[0]]
	// A move must score more than alpha, at least held+margin, to replace
	// moves[0] (a forced loss is beaten by anything that does not lose).
	alpha := min(held+margin, winBound) - 1
	for i := 1; i < len(moves); i++ {
		e.g.PlayUnchecked(moves[i])
		s := -e.search(d-1, 1, -alpha-1, -alpha, false)
		if s > alpha && !e.stop {
			s = -e.search(d-1, 1, -infScore, -alpha, true)
		}
		e.g.Undo()
		if e.stop {
			return 0, 0, 0, nil
		}
		if s > alpha {
			if bi == 0 {
				heldPV = append([]rules.Move(nil), line...)
			}
			alpha, best, bi = s, s, i
			e.pv[0][0] = moves[i]
			copy(e.pv[0][1:], e.pv[1][:e.pvLen[1]])
			e.pvLen[0] = 1 + e.pvLen[1]
		}
	}
	return held, best, bi, heldPV
}
