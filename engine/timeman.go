package engine

import (
	"time"

	"dama/mcts"
)

// Time management. A search has a soft and a hard deadline. It stops at
// the soft one unless the move is critical, and never passes the hard one:
//
//   - level move-time=S (Limits.Time) is fixed: soft = hard = S less the
//     safety margin timeMargin(S) (or all of S with WholeTime);
//   - a clock (Limits.Left, Inc, MovesToGo: level time=T inc=I moves=M)
//     is planned by planMove: the soft time is the clock's share of one
//     move, the hard cap a few times that but never more than half of
//     what is left (all of it on the last move before the control), and
//     a reserve is never planned (clockReserve: a margin, and an overhead
//     for every move to go);
//   - at the soft deadline a critical move gets more time, half the soft
//     time again each time it is still critical, up to the hard cap: the
//     most visited move changed in the second half of the search so far,
//     or the two most visited moves' values are within closeValues (and
//     the best is not decided: a value beyond ±decidedValue, a won or
//     lost game, gains nothing from more time).
//
// A batch of leaves that would end past the current deadline is not
// started (mcts.Limit.Deadline, which reads the time itself rather than
// waiting for a timer), and a batch in flight at the hard deadline is cut
// short (a context deadline). All times are read from the Searcher's
// Clock, so tests run the whole of it on a fake clock.

// Clock tells the time; a Searcher reads its deadlines from one. Tests
// give a fake clock that moves when the evaluator is called.
type Clock interface {
	Now() time.Time
}

// realClock is the wall clock.
type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

// Planning constants.
const (
	// suddenDeathMoves is the number of moves a clock without moves to go
	// is shared over.
	suddenDeathMoves = 30
	// hardFactor is how many soft times one move may take at most.
	hardFactor = 3
	// closeValues is the difference of the values W-L of the two most
	// visited root moves below which a move counts as critical.
	closeValues = 0.05
	// decidedValue is the value beyond which close values do not count:
	// the game is as good as won or lost whichever move is played.
	decidedValue = 0.9
	// minMoveTime is the least soft time of a clocked move.
	minMoveTime = 5 * time.Millisecond
	// moveOverhead is the time kept back for each move to go (counting
	// this one) for what the search does not see: reading the position,
	// answering, the GUI, a loaded machine.
	moveOverhead = 10 * time.Millisecond
)

// clockReserve is what a clock with left on it keeps back, and never
// plans to spend, with movesToGo moves to go (0: sudden death, counted as
// suddenDeathMoves): 20 ms, a twentieth of left (at most 1 s), and
// moveOverhead for every move to go. As the clock runs down, the moves get
// shorter and the overhead of the moves to come stays covered.
func clockReserve(left time.Duration, movesToGo int) time.Duration {
	if movesToGo <= 0 {
		movesToGo = suddenDeathMoves
	}
	return 20*time.Millisecond + min(left/20, time.Second) + time.Duration(movesToGo)*moveOverhead
}

// planMove returns the soft and hard time of one move on a clock with
// left on it, increment inc and movesToGo moves to the next time control
// (0: sudden death). soft <= hard, and hard never exceeds what is left
// less clockReserve (or 1 ms when less than the reserve is left: a move
// on the root's evaluation).
func planMove(left, inc time.Duration, movesToGo int) (soft, hard time.Duration) {
	usable := left - clockReserve(left, movesToGo)
	if usable <= time.Millisecond {
		return time.Millisecond, time.Millisecond
	}
	mtg := movesToGo
	if mtg <= 0 {
		mtg = suddenDeathMoves
	}
	soft = usable/time.Duration(mtg) + inc*3/4
	hard = usable
	if mtg > 1 {
		hard = min(hardFactor*soft, usable/2)
	}
	soft = min(max(soft, minMoveTime), hard)
	return soft, hard
}

// timePlan is the deadlines of one search.
type timePlan struct {
	soft, hard time.Time // zero: no time limit
	extend     time.Duration
}

// plan returns the deadlines of a search with lim that starts at start.
func plan(lim Limits, start time.Time) timePlan {
	switch {
	case lim.Time > 0:
		d := lim.Time
		if !lim.WholeTime {
			d -= timeMargin(d)
		}
		return timePlan{soft: start.Add(d), hard: start.Add(d)}
	case lim.Left > 0:
		soft, hard := planMove(lim.Left, lim.Inc, lim.MovesToGo)
		return timePlan{soft: start.Add(soft), hard: start.Add(hard), extend: soft / 2}
	}
	return timePlan{}
}

// timed reports whether the plan has a time limit.
func (p timePlan) timed() bool { return !p.hard.IsZero() }

// stability follows the most visited root move through a search.
type stability struct {
	best     int       // index of the most visited move, -1 before the first result
	changed  time.Time // when it last changed
	critical bool      // the last Result was critical
}

// observe takes a result read at now.
func (st *stability) observe(r mcts.Result, now time.Time) {
	b, second := topTwo(r.Visits)
	if b != st.best {
		if st.best >= 0 {
			st.changed = now
		}
		st.best = b
	}
	st.critical = second >= 0 && r.Visits[second] > 0 && abs32(r.Q[b]-r.Q[second]) < closeValues && abs32(r.Q[b]) < decidedValue
}

// isCritical reports whether a search that began at start deserves more
// time at now: its best move changed in the second half of the search so
// far, or the two best moves' values are close.
func (st *stability) isCritical(start, now time.Time) bool {
	late := !st.changed.IsZero() && st.changed.Sub(start) > now.Sub(start)/2
	return late || st.critical
}

// topTwo returns the indices of the largest and second largest of v (the
// first on ties; -1 for none).
func topTwo(v []int) (first, second int) {
	first, second = -1, -1
	for i, x := range v {
		switch {
		case first < 0 || x > v[first]:
			first, second = i, first
		case second < 0 || x > v[second]:
			second = i
		}
	}
	return first, second
}

func abs32(x float32) float32 {
	if x < 0 {
		return -x
	}
	return x
}
