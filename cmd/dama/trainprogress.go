package main

import (
	"io"

	"dama/internal/progress"
	"dama/train"
)

// trainProgress draws the trainer's progress events on w: a bar per stage
// on a terminal, one plain line per stage elsewhere.
type trainProgress struct {
	w   io.Writer
	bar *progress.Bar
}

// event is a train.Options.Progress.
func (p *trainProgress) event(e train.Event) {
	switch e.Kind {
	case train.StageStarted:
		// A stage stopped by an error has no end event: its bar is
		// dropped, as the error ends the command.
		p.bar = progress.New(p.w, e.Total, e.Describe())
	case train.StageProgress:
		if e.Stage == train.StageArena {
			p.bar.Describe(e.Describe())
		}
		p.bar.Set(e.Done)
	case train.StageFinished:
		p.bar.Finish()
		p.bar = nil
	}
}
