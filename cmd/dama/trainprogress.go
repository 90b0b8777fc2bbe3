package main

import (
	"fmt"
	"io"

	"dama/arena"
	"dama/internal/progress"
	"dama/train"
)

// trainProgress draws the trainer's progress events on w: a bar per stage
// on a terminal, one plain line per stage elsewhere.
type trainProgress struct {
	w   io.Writer
	bar *progress.Bar
}

// stageDesc describes a stage in progress, as its bar and line show it.
func stageDesc(e train.Event) string {
	switch e.Stage {
	case train.StageWait:
		return fmt.Sprintf("gen %d: waiting for workers' games", e.Gen)
	case train.StageSelfPlay:
		if e.MoreGames {
			return fmt.Sprintf("gen %d: self-play (more games: the replay window needs train.window_min positions)", e.Gen)
		}
		return fmt.Sprintf("gen %d: self-play", e.Gen)
	case train.StageTrain:
		return fmt.Sprintf("gen %d: training", e.Gen)
	case train.StageArena:
		if e.Done > 0 {
			t := arena.Tally{Wins: e.Wins, Draws: e.Draws, Losses: e.Losses, Unpaired: e.Unpaired}
			return fmt.Sprintf("gen %d: arena %s", e.Gen, t)
		}
		return fmt.Sprintf("gen %d: arena", e.Gen)
	case train.StageLadder:
		return fmt.Sprintf("gen %d: ladder", e.Gen)
	}
	return fmt.Sprintf("gen %d: stage %d", e.Gen, e.Stage)
}

// event is a train.Options.Progress.
func (p *trainProgress) event(e train.Event) {
	switch e.Kind {
	case train.StageStarted:
		// A stage stopped by an error has no end event: its bar is
		// dropped, as the error ends the command.
		p.bar = progress.New(p.w, e.Total, stageDesc(e))
	case train.StageProgress:
		if e.Stage == train.StageArena {
			p.bar.Describe(stageDesc(e))
		}
		p.bar.Set(e.Done)
	case train.StageFinished:
		p.bar.Finish()
		p.bar = nil
	}
}
