package tactics

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"dama/arena/classic"
	"dama/mcts"
	"dama/rules"
)

// Defaults of a Verifier.
const (
	// DefaultVerifyMargin is the gain, in centi-men, a move must show over
	// the chosen one to replace it: a man, so that only material (or a
	// forced result) overrules the tree, never the evaluation's positional
	// terms.
	DefaultVerifyMargin = 100
	// DefaultVerifyShare is the share of a timed search's time the
	// verification takes; DefaultVerifyKingShare the share where a king
	// is on the board, in the endings where the network is weakest and
	// the full-width search sees furthest.
	DefaultVerifyShare     = 0.25
	DefaultVerifyKingShare = 0.6
	// DefaultVerifyQuietShare is the share in a quiet position (Quiet):
	// none, as a combination starts with a capture or a sacrifice, so the
	// tree keeps the whole time where neither is on the board.
	DefaultVerifyQuietShare = 0
	// verifyTableMiB is the transposition table of each verifying engine.
	verifyTableMiB = 8
)

// Verifier is an mcts.MoveCheck: before the move an MCTS chose is played,
// the reference engine's full-width alpha-beta search (package classic)
// verifies it at the root (classic.Engine.Verify) and plays instead a move
// that scores at least Margin more, the combination the tree's policy
// prior kept it from seeing. This is minimax at the root of a hybrid
// (Baier and Winands' hybrids put it in the selection, the leaves or the
// backups): one search per move, so it costs a fixed share of the move's
// time. Safe for concurrent use: each check takes an engine from a pool.
type Verifier struct {
	Depth  int     // deepest iteration, 1..classic.MaxDepth
	Margin int     // centi-men to gain over the chosen move (DefaultVerifyMargin)
	Share  float64 // share of a timed search's time (DefaultVerifyShare)
	// KingShare is the share where a king is on the board
	// (DefaultVerifyKingShare).
	KingShare float64
	// QuietShare is the share in a quiet position without kings (Quiet;
	// DefaultVerifyQuietShare). A timed search does not check a move
	// where the share is 0.
	QuietShare float64
	// Judge, if set, has the last word on a replacement that is not a
	// forced result: the network (the evaluator the tree searches with)
	// is asked at the end of both lines, the replacement's and the chosen
	// move's, and the replacement stands only where it values the
	// replacement's line more. A forced win of the replacement, or a
	// forced loss of the chosen move, always stands.
	Judge mcts.Evaluator
	// AheadOnly checks a move only where the side to move is at least
	// Margin ahead once the pending captures are played out (Ahead): a
	// position it should win, where the tree's time is worth the least
	// and a forced win the tree plays on slowly, or more material, is
	// what converts it. Elsewhere the tree keeps the whole time.
	AheadOnly bool
	// ProofOnly lets a replacement stand only where it is a forced result
	// within the search: the replacement proven to win, or the chosen
	// move proven to lose. A move a margin better by the evaluation alone,
	// which in a position already won is too rarely better in play
	// (docs/rating.md#tactics), is turned down (counted as vetoed).
	ProofOnly bool
	// Spare checks a timed move in the time the tree leaves once its
	// choice is settled or decided (mcts.SpareCheck), besides the shares
	// above, wherever AheadOnly allows; the abs hybrid sets every share
	// to 0, so that only that time is the check's.
	Spare bool
	// Clock, if set, reads the time of a check's budget (default the
	// wall clock): a player timed in CPU time sets it (SetClock).
	Clock func() time.Time

	pool               sync.Pool
	checked, replaced  atomic.Int64
	vetoed             atomic.Int64
	nodes, depthsTotal atomic.Int64
}

// NewVerifier returns a Verifier searching to depth plies with the default
// margin and time share.
func NewVerifier(depth int) (*Verifier, error) {
	if depth < 1 || depth > classic.MaxDepth {
		return nil, fmt.Errorf("tactics: verification depth %d out of range 1..%d", depth, classic.MaxDepth)
	}
	return &Verifier{Depth: depth, Margin: DefaultVerifyMargin, Share: DefaultVerifyShare, KingShare: DefaultVerifyKingShare, QuietShare: DefaultVerifyQuietShare}, nil
}

// TimeShare implements mcts.MoveCheck: 0 with AheadOnly where the side
// to move is not ahead, else KingShare where a king is on the board, else
// QuietShare in a quiet position, else Share.
func (v *Verifier) TimeShare(p rules.Position) float64 {
	switch {
	case v.AheadOnly && !Ahead(p, v.Margin):
		return 0
	case p.Kings(rules.White)|p.Kings(rules.Black) != 0:
		return v.KingShare
	case Quiet(p):
		return v.QuietShare
	}
	return v.Share
}

// SpareTime implements mcts.SpareCheck: with Spare, wherever AheadOnly
// allows a check.
func (v *Verifier) SpareTime(p rules.Position) bool {
	return v.Spare && (!v.AheadOnly || Ahead(p, v.Margin))
}

// Quiet reports whether no capture is near in p: the side to move has
// none, the other side would have none if it moved, and no move of the
// side to move gives it one. A combination starts with a capture or with
// a sacrifice that forces one, so none starts in a quiet position; one
// the opponent prepares takes it a move more.
func Quiet(p rules.Position) bool {
	me := p.Side()
	op := me.Opponent()
	if p.HasCapture(me) || p.HasCapture(op) {
		return false
	}
	var buf [64]rules.Move
	for _, m := range p.Legal(buf[:0]) {
		if p.Play(m).HasCapture(op) {
			return false
		}
	}
	return true
}

// Ahead reports whether the side to move in p is at least margin
// centi-men ahead once the captures pending are played out (a side that
// cannot move has lost: it is not ahead, its opponent is).
func Ahead(p rules.Position, margin int) bool { return Settled(p) >= margin }

// Settled returns the material balance of p in centi-men for its side to
// move once the pending captures are played out (a quiescence search;
// where they leave a side without a move, ±(1,000,000-n) after n plies).
func Settled(p rules.Position) int {
	s := getSearcher()
	defer putSearcher(s)
	return s.quiesce(p, 0, -winScore-1, winScore+1)
}

// SetClock sets the Clock of the checks' budgets; call it before the
// first check.
func (v *Verifier) SetClock(now func() time.Time) { v.Clock = now }

// CheckMove implements mcts.MoveCheck: it searches to v.Depth, within
// budget when budget is positive (the clock then decides how deep), and
// returns chosen or the move that beat it by v.Margin.
func (v *Verifier) CheckMove(ctx context.Context, g *rules.Game, chosen rules.Move, budget time.Duration) (rules.Move, error) {
	if v.AheadOnly && !Ahead(g.Position(), v.Margin) {
		return chosen, nil
	}
	e, _ := v.pool.Get().(*classic.Engine)
	if e == nil {
		e = classic.New(classic.Options{TableMiB: verifyTableMiB, Now: v.Clock})
	}
	defer v.pool.Put(e)
	verdict, err := e.Verify(ctx, g, chosen, v.Margin, classic.Limits{Depth: v.Depth, Time: budget})
	if err != nil {
		return rules.Move{}, fmt.Errorf("tactics: verifying %s: %w", chosen, err)
	}
	v.checked.Add(1)
	v.nodes.Add(verdict.Nodes)
	v.depthsTotal.Add(int64(verdict.Depth))
	if !verdict.Replaced {
		return chosen, nil
	}
	forced := classic.Decisive(verdict.Score) && verdict.Score > 0 || classic.Decisive(verdict.Held) && verdict.Held < 0
	if v.ProofOnly && !forced {
		v.vetoed.Add(1)
		return chosen, nil
	}
	if v.Judge != nil && !classic.Decisive(verdict.Score) && !classic.Decisive(verdict.Held) {
		ok, err := v.judged(ctx, g, verdict.PV, verdict.HeldPV)
		if err != nil {
			return rules.Move{}, fmt.Errorf("tactics: judging %s against %s: %w", verdict.Move, chosen, err)
		}
		if !ok {
			v.vetoed.Add(1)
			return chosen, nil
		}
	}
	v.replaced.Add(1)
	return verdict.Move, nil
}

// judged reports whether v.Judge values the end of the line pv more than
// the end of the line held, both played from g, for g's side to move.
func (v *Verifier) judged(ctx context.Context, g *rules.Game, pv, held []rules.Move) (bool, error) {
	a, err := lineValue(ctx, v.Judge, g, pv)
	if err != nil {
		return false, err
	}
	b, err := lineValue(ctx, v.Judge, g, held)
	if err != nil {
		return false, err
	}
	return a > b, nil
}

// lineValue plays line from g (on a copy) and returns the value, W-L for
// g's side to move, of where it ends: the rules' result if the game is
// over there, else ev's.
func lineValue(ctx context.Context, ev mcts.Evaluator, g *rules.Game, line []rules.Move) (float64, error) {
	c := rules.NewGame(g.Start())
	for _, m := range g.Moves() {
		c.PlayUnchecked(m)
	}
	root := g.Position().Side()
	for _, m := range line {
		if err := c.Play(m); err != nil {
			return 0, fmt.Errorf("line %v: %w", line, err)
		}
	}
	if o := c.Outcome(); o.Over() {
		w, ok := o.Result.Winner()
		switch {
		case !ok:
			return 0, nil
		case w == root:
			return 1, nil
		}
		return -1, nil
	}
	p := c.Position()
	q := mcts.Query{Pos: p, Legal: p.Legal(nil), Repetitions: c.Repetitions(), QuietPlies: c.QuietPlies()}
	e := mcts.Evaluation{Priors: make([]float32, len(q.Legal))}
	if err := ev.Evaluate(ctx, q, &e); err != nil {
		return 0, err
	}
	val := float64(e.WDL[0] - e.WDL[2])
	if p.Side() != root {
		val = -val
	}
	return val, nil
}

// VerifierStats counts what a Verifier did.
type VerifierStats struct {
	Checked, Replaced int64   // moves verified, and replaced
	Vetoed            int64   // replacements the Judge, or ProofOnly, turned down
	Nodes             int64   // nodes searched in all
	MeanDepth         float64 // mean depth reached
}

// Stats returns the counts so far.
func (v *Verifier) Stats() VerifierStats {
	s := VerifierStats{Checked: v.checked.Load(), Replaced: v.replaced.Load(), Vetoed: v.vetoed.Load(), Nodes: v.nodes.Load()}
	if s.Checked > 0 {
		s.MeanDepth = float64(v.depthsTotal.Load()) / float64(s.Checked)
	}
	return s
}
