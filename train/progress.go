package train

import (
	"fmt"
	"io"

	"dama/arena"
	"dama/internal/progress"
)

// Stage is a part of a generation whose progress Loop reports.
type Stage int

// The stages of a generation, in the order they run.
const (
	// StageWait waits for the games of self-play workers in other
	// processes; Done counts the unconsumed games so far.
	StageWait Stage = iota + 1
	// StageSelfPlay plays games in this process; Done counts games.
	StageSelfPlay
	// StageTrain trains the candidate; Done counts training steps.
	StageTrain
	// StageArena plays the gating match; Done counts games, and Wins,
	// Draws, Losses and Unpaired are the candidate's so far.
	StageArena
	// StageLadder rates the best model on the ladder; Done counts games.
	StageLadder
)

// EventKind says what an Event reports.
type EventKind int

// The kinds of events, for each stage Started, any number of Progress and
// usually Finished (a stage stopped by an error or a cancelled context may
// end without it, as may a wait that is cancelled).
const (
	// GenerationStarted: Loop begins (or resumes) generation Gen.
	GenerationStarted EventKind = iota + 1
	// StageStarted: Stage begins with Total steps.
	StageStarted
	// StageProgress: Done of Total steps are done.
	StageProgress
	// StageFinished: the stage ended.
	StageFinished
)

// Event is one report of Loop's progress.
type Event struct {
	Kind  EventKind
	Gen   int
	Stage Stage // zero for GenerationStarted

	Done, Total int

	// Wins, Draws and Losses are the candidate's counted games of the
	// gating match so far (StageArena): those of whole pairs, as the
	// generation's record counts them. Unpaired are finished games whose
	// pair has not finished; a match stopped early never counts them.
	Wins, Draws, Losses, Unpaired int
	// MoreGames marks a self-play round played beyond the configured games
	// because the replay window needs train.window_min positions.
	MoreGames bool
}

// Describe says what the stage of e is doing, as a progress bar or line
// shows it ("gen 3: arena +1 =2 -1").
func (e Event) Describe() string {
	switch e.Stage {
	case StageWait:
		return fmt.Sprintf("gen %d: waiting for workers' games", e.Gen)
	case StageSelfPlay:
		if e.MoreGames {
			return fmt.Sprintf("gen %d: self-play (more games: the replay window needs train.window_min positions)", e.Gen)
		}
		return fmt.Sprintf("gen %d: self-play", e.Gen)
	case StageTrain:
		return fmt.Sprintf("gen %d: training", e.Gen)
	case StageArena:
		if e.Done > 0 {
			t := arena.Tally{Wins: e.Wins, Draws: e.Draws, Losses: e.Losses, Unpaired: e.Unpaired}
			return fmt.Sprintf("gen %d: arena %s", e.Gen, t)
		}
		return fmt.Sprintf("gen %d: arena", e.Gen)
	case StageLadder:
		return fmt.Sprintf("gen %d: ladder", e.Gen)
	}
	return fmt.Sprintf("gen %d: stage %d", e.Gen, e.Stage)
}

// Bars returns an Options.Progress that draws the events on w: a bar per
// stage on a terminal, one plain line per stage elsewhere.
func Bars(w io.Writer) func(Event) {
	var bar *progress.Bar
	return func(e Event) {
		switch e.Kind {
		case StageStarted:
			// A stage stopped by an error has no end event: its bar is
			// dropped, as the error ends the command.
			bar = progress.New(w, e.Total, e.Describe())
		case StageProgress:
			if e.Stage == StageArena {
				bar.Describe(e.Describe())
			}
			bar.Set(e.Done)
		case StageFinished:
			bar.Finish()
			bar = nil
		}
	}
}

// stage reports the progress of one stage to a sink; a nil sink, or a
// stage of no steps, reports nothing.
type stage struct {
	sink  func(Event)
	ev    Event
	tally arena.Tally // StageArena
}

// startStage reports the start of the stage ev describes (its Gen, Stage,
// Total and MoreGames).
func startStage(sink func(Event), ev Event) *stage {
	if sink == nil || ev.Total <= 0 {
		return nil
	}
	st := &stage{sink: sink, ev: ev}
	st.emit(StageStarted)
	return st
}

func (st *stage) emit(k EventKind) {
	st.ev.Kind = k
	st.sink(st.ev)
}

// set reports done steps.
func (st *stage) set(done int) {
	if st == nil {
		return
	}
	st.ev.Done = min(max(done, 0), st.ev.Total)
	st.emit(StageProgress)
}

// add reports k more steps done.
func (st *stage) add(k int) {
	if st != nil {
		st.set(st.ev.Done + k)
	}
}

// game reports one more game of the gating match, A the candidate.
func (st *stage) game(g arena.GameResult) {
	if st == nil {
		return
	}
	st.tally.Add(g)
	st.ev.Wins, st.ev.Draws, st.ev.Losses, st.ev.Unpaired = st.tally.Wins, st.tally.Draws, st.tally.Losses, st.tally.Unpaired
	st.add(1)
}

// finish reports the end of the stage.
func (st *stage) finish() {
	if st != nil {
		st.emit(StageFinished)
	}
}
