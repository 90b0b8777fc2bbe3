package arena

import (
	"errors"
	"fmt"
	"runtime"
	"time"

	"dama/internal/cputime"
	"dama/mcts"
)

// CPUClock tells the CPU time (user and system) used so far by the calling
// OS thread, as a time since the epoch. A player timed by it (WithCPUTime)
// spends its time per move in CPU time of the thread that plays the move,
// which holds the move's goroutine for the move (runtime.LockOSThread), so
// that other work on the machine (a training run beside a match) takes
// nothing from either player: a timed match on a loaded machine then
// takes longer but measures what it measures alone. It implements
// engine.Clock; CPUClock{}.Now is a classic.Options.Now.
type CPUClock struct{}

// Now implements engine.Clock.
func (CPUClock) Now() time.Time {
	d, _ := cputime.Thread()
	return time.Unix(0, int64(d))
}

// CheckCPUClock reports whether this system measures a thread's CPU time
// (Linux does).
func CheckCPUClock() error {
	if _, ok := cputime.Thread(); !ok {
		return errors.New("arena: this system does not measure the CPU time of a thread (Linux does): time per move must be wall-clock time here")
	}
	return nil
}

// WithCPUTime returns p with its time per move counted in CPU time of the
// thread that plays each move (CPUClock) instead of wall-clock time: a
// timed classic player, or a timed *MCTSPlayer (changed in place:
// MCTSPlayer.CPUTime). A player without a
// time per move is returned as it is: its limits need no clock.
func WithCPUTime(p Player) (Player, error) {
	if err := CheckCPUClock(); err != nil {
		return nil, err
	}
	switch q := p.(type) {
	case classicPlayer:
		if q.Limits.Time > 0 {
			q.Options.Now = CPUClock{}.Now
			q.cpu = true
		}
		return q, nil
	case *MCTSPlayer:
		if q.Time > 0 {
			if err := q.cpuReady(); err != nil {
				return nil, err
			}
			q.CPUTime = true
		}
		return q, nil
	}
	return p, nil
}

// cpuReady checks that the player's whole search runs on the goroutine
// that plays the move, as a CPU-timed player needs: one search thread,
// over an evaluator that evaluates its batches on the calling goroutine.
func (p *MCTSPlayer) cpuReady() error {
	if p.Options.Threads > 1 {
		return fmt.Errorf("arena: MCTS player %s: a time in CPU time needs one search thread, not %d", p.Label, p.Options.Threads)
	}
	if _, ok := p.Evaluator.(mcts.BatchEvaluator); !ok {
		return fmt.Errorf("arena: MCTS player %s: a time in CPU time needs an evaluator that evaluates on the searching goroutine (an mcts.BatchEvaluator), not a %T", p.Label, p.Evaluator)
	}
	return nil
}

// onThread runs f with the calling goroutine locked to its OS thread when
// lock is set, so that CPUClock reads the one thread that does f's work.
func onThread[T any](lock bool, f func() (T, error)) (T, error) {
	if lock {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
	}
	return f()
}
