package train

import (
	"bytes"
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"dama/runfolder"
)

// fakeSink records the progress events of a run and checks their shape as
// they come: each stage started, its progress counted up by one, then
// finished, within a started generation.
type fakeSink struct {
	t      *testing.T
	events []Event
}

func (f *fakeSink) event(e Event) { f.events = append(f.events, e) }

// stages returns the stages in the order they ran, with the steps each
// reported done, checking the order of events within each.
func (f *fakeSink) stages() (order []Stage, done []int, last []Event) {
	f.t.Helper()
	gen := 0
	var cur *Event
	for i, e := range f.events {
		switch e.Kind {
		case GenerationStarted:
			if cur != nil || e.Gen != gen+1 {
				f.t.Errorf("event %d: generation %d starts after generation %d, within stage %v", i, e.Gen, gen, cur)
			}
			gen = e.Gen
		case StageStarted:
			if cur != nil || e.Gen != gen || e.Done != 0 || e.Total <= 0 {
				f.t.Errorf("event %d: %+v starts within stage %v of generation %d", i, e, cur, gen)
			}
			order = append(order, e.Stage)
			done = append(done, 0)
			cur = &f.events[i]
		case StageProgress:
			if cur == nil || e.Stage != cur.Stage || e.Gen != gen || e.Total != cur.Total || e.Done != done[len(done)-1]+1 {
				f.t.Errorf("event %d: %+v does not follow on in stage %v", i, e, cur)
				continue
			}
			done[len(done)-1] = e.Done
			if e.Stage == StageArena && (e.Wins+e.Draws+e.Losses+e.Unpaired != e.Done || (e.Wins+e.Draws+e.Losses)%2 != 0) {
				f.t.Errorf("event %d: arena +%d =%d -%d and %d unpaired after %d games", i, e.Wins, e.Draws, e.Losses, e.Unpaired, e.Done)
			}
		case StageFinished:
			if cur == nil || e.Stage != cur.Stage || e.Done != done[len(done)-1] {
				f.t.Errorf("event %d: %+v ends stage %v", i, e, cur)
			}
			last = append(last, e)
			cur = nil
		default:
			f.t.Errorf("event %d: unknown kind %d", i, e.Kind)
		}
	}
	if cur != nil {
		f.t.Errorf("stage %v never finished", cur)
	}
	return order, done, last
}

// A tiny run of one generation with a ladder reports, in order: the
// generation, its self-play games, training steps, arena games and ladder
// games, each stage from start to finish with every step counted; a run
// with no sink works as before. The loop itself draws nothing (issue 11,
// point 4).
func TestProgressEvents(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a tiny network for one generation")
	}
	cfg := ratedConfig(t)
	sink := &fakeSink{t: t}
	var log strings.Builder
	dir := filepath.Join(t.TempDir(), "run")
	if err := Loop(context.Background(), Options{Config: cfg, Dir: dir, SelfPlay: true, Revision: "test", Progress: sink.event, Log: &log}); err != nil {
		t.Fatal(err)
	}
	if len(sink.events) == 0 || sink.events[0] != (Event{Kind: GenerationStarted, Gen: 1}) {
		t.Fatalf("first event %+v, want generation 1 started", sink.events[:min(1, len(sink.events))])
	}
	order, done, last := sink.stages()
	want := []Stage{StageSelfPlay, StageTrain, StageArena, StageLadder}
	if len(order) != len(want) {
		t.Fatalf("stages %v, want %v", order, want)
	}
	for i, s := range want {
		if order[i] != s {
			t.Errorf("stage %d is %v, want %v", i, order[i], s)
		}
	}
	// Self-play and training run to the end; the gate may stop early.
	for i, n := range []int{4, 5, 4, 4} { // games, steps, games, games
		if done[i] != n && (order[i] != StageArena || done[i] < 1 || done[i] > n) {
			t.Errorf("stage %v counted %d steps, want %d", order[i], done[i], n)
		}
	}
	// The arena's last event counts what the generation's record counts
	// (issue 19, item 6: the line said +6 =0 -1 where the record said
	// 6 games, 6-0-0).
	run, err := runfolder.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	var r runfolder.ArenaRecord
	if ok, err := runfolder.LastJSONL(run, runfolder.ArenaFile, &r); !ok || err != nil {
		t.Fatalf("no arena record: %v", err)
	}
	for _, e := range last {
		if e.Stage == StageArena && (e.Wins != r.Wins || e.Draws != r.Draws || e.Losses != r.Losses) {
			t.Errorf("arena progress +%d =%d -%d, the record %d-%d-%d", e.Wins, e.Draws, e.Losses, r.Wins, r.Draws, r.Losses)
		}
	}
	if !strings.Contains(log.String(), "gen 1: games 4") || !strings.Contains(log.String(), "gen 1: ladder") {
		t.Errorf("log lacks the generation's summary and ladder lines:\n%s", log.String())
	}

	// Resumed, the finished run reports nothing more.
	sink.events = nil
	if err := Loop(context.Background(), Options{Config: cfg, Dir: dir, SelfPlay: true, Revision: "test", Progress: sink.event}); err != nil {
		t.Fatal(err)
	}
	if len(sink.events) != 0 {
		t.Errorf("a finished run reported %+v", sink.events)
	}
}

func TestEventDescribe(t *testing.T) {
	for _, tc := range []struct {
		e    Event
		want string
	}{
		{Event{Gen: 2, Stage: StageWait}, "gen 2: waiting for workers' games"},
		{Event{Gen: 2, Stage: StageSelfPlay}, "gen 2: self-play"},
		{Event{Gen: 2, Stage: StageSelfPlay, MoreGames: true}, "gen 2: self-play (more games: the replay window needs train.window_min positions)"},
		{Event{Gen: 2, Stage: StageTrain, Done: 5}, "gen 2: training"},
		{Event{Gen: 2, Stage: StageArena}, "gen 2: arena"},
		{Event{Gen: 2, Stage: StageArena, Done: 3, Wins: 1, Draws: 1, Losses: 0, Unpaired: 1}, "gen 2: arena +1 =1 -0 (1 unpaired game not counted)"},
		{Event{Gen: 2, Stage: StageLadder}, "gen 2: ladder"},
		{Event{Gen: 2, Stage: 9}, "gen 2: stage 9"},
	} {
		if got := tc.e.Describe(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.e, got, tc.want)
		}
	}
}

// Outside a terminal the trainer's progress events are drawn as one plain
// line per stage, in the words the trainer used to write itself.
func TestTrainProgressLines(t *testing.T) {
	var buf bytes.Buffer
	p := Bars(&buf)
	p(Event{Kind: GenerationStarted, Gen: 3})
	stage := func(s Stage, total int, more bool, scores ...float64) {
		e := Event{Kind: StageStarted, Gen: 3, Stage: s, Total: total, MoreGames: more}
		p(e)
		for i := range total {
			e.Kind, e.Done = StageProgress, i+1
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
			p(e)
		}
		e.Kind = StageFinished
		p(e)
	}
	stage(StageWait, 2, false)
	stage(StageSelfPlay, 2, false)
	stage(StageSelfPlay, 1, true)
	stage(StageTrain, 5, false)
	stage(StageArena, 4, false, 1, 0.5, 0.5, 0)
	// A gate stopped early: the line shows what the record counts, the
	// game of an unfinished pair apart (issue 19, item 6).
	p(Event{Kind: StageStarted, Gen: 3, Stage: StageArena, Total: 8})
	p(Event{Kind: StageProgress, Gen: 3, Stage: StageArena, Total: 8, Done: 7, Wins: 6, Unpaired: 1})
	p(Event{Kind: StageFinished, Gen: 3, Stage: StageArena, Total: 8, Done: 7, Wins: 6, Unpaired: 1})
	stage(StageLadder, 2, false)
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
