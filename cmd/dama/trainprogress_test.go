package main

import (
	"bytes"
	"regexp"
	"testing"

	"dama/train"
)

// Outside a terminal the trainer's progress events are drawn as one plain
// line per stage, in the words the trainer used to write itself.
func TestTrainProgressLines(t *testing.T) {
	var buf bytes.Buffer
	p := &trainProgress{w: &buf}
	p.event(train.Event{Kind: train.GenerationStarted, Gen: 3})
	stage := func(s train.Stage, total int, more bool, scores ...float64) {
		e := train.Event{Kind: train.StageStarted, Gen: 3, Stage: s, Total: total, MoreGames: more}
		p.event(e)
		for i := range total {
			e.Kind, e.Done = train.StageProgress, i+1
			if i < len(scores) {
				switch scores[i] {
				case 1:
					e.Wins++
				case 0:
					e.Losses++
				default:
					e.Draws++
				}
			}
			p.event(e)
		}
		e.Kind = train.StageFinished
		p.event(e)
	}
	stage(train.StageWait, 2, false)
	stage(train.StageSelfPlay, 2, false)
	stage(train.StageSelfPlay, 1, true)
	stage(train.StageTrain, 5, false)
	stage(train.StageArena, 4, false, 1, 0.5, 0.5, 0)
	// A gate stopped early: the line shows what the record counts, the
	// game of an unfinished pair apart (issue 19, item 6).
	p.event(train.Event{Kind: train.StageStarted, Gen: 3, Stage: train.StageArena, Total: 8})
	p.event(train.Event{Kind: train.StageProgress, Gen: 3, Stage: train.StageArena, Total: 8, Done: 7, Wins: 6, Unpaired: 1})
	p.event(train.Event{Kind: train.StageFinished, Gen: 3, Stage: train.StageArena, Total: 8, Done: 7, Wins: 6, Unpaired: 1})
	stage(train.StageLadder, 2, false)
	want := regexp.MustCompile(`^gen 3: waiting for workers' games: 2/2 in [0-9.]+s( \([0-9.]+/s\))?
gen 3: self-play: 2/2 in [0-9.]+s( \([0-9.]+/s\))?
gen 3: self-play \(more games: the replay window needs train.window_min positions\): 1/1 in [0-9.]+s( \([0-9.]+/s\))?
gen 3: training: 5/5 in [0-9.]+s( \([0-9.]+/s\))?
gen 3: arena \+1 =2 -1: 4/4 in [0-9.]+s( \([0-9.]+/s\))?
gen 3: arena \+6 =0 -0 \(1 unpaired game not counted\): 7/8 in [0-9.]+s( \([0-9.]+/s\))?
gen 3: ladder: 2/2 in [0-9.]+s( \([0-9.]+/s\))?
$`)
	if !want.MatchString(buf.String()) {
		t.Errorf("progress lines:\n%s", buf.String())
	}
}
