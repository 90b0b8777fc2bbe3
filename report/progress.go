package report

import (
	"fmt"
	"os"
	"strings"
	"time"

	"dama/configs"
	"dama/runfolder"
	"dama/selfplay"
)

// The stages of a generation as its files show them, in the order they
// run (train.Stage as seen from outside the trainer).
const (
	StageSelfPlay = "self-play" // gathering the generation's games: no plan yet
	StageTraining = "training"  // the plan is written, no candidate yet
	StageGating   = "gating"    // the candidate is saved, its match not recorded
	StageLadder   = "ladder"    // the generation is recorded, its ladder rating not
)

// Progress is the generation in progress as the run folder shows it: what
// a trainer is doing now, read by another process (dama report, dama
// serve) from the files each stage leaves.
type Progress struct {
	Gen   int    `json:"gen"`
	Stage string `json:"stage"` // one of the Stage constants
	// Done of Total units of the stage: self-play games in the chunks no
	// plan takes yet, training steps logged, or (gating, ladder) games,
	// whose count only the match's end records (Done -1). Total is 0 where
	// the configuration does not say.
	Done  int    `json:"done"`
	Total int    `json:"total"`
	Unit  string `json:"unit"` // "games" or "steps"
	// Since is when the stage began as its files show it (zero when they
	// do not say); Last is the newest sign of work (a chunk, a step).
	Since time.Time `json:"since"`
	Last  time.Time `json:"last"`
	// Training: the last step's losses and speed.
	PolicyLoss    float64 `json:"policy_loss,omitempty"`
	ValueLoss     float64 `json:"value_loss,omitempty"`
	SamplesPerSec float64 `json:"samples_per_s,omitempty"`
}

// maxHeaderReads bounds the waiting chunks whose headers one report reads
// to count their games; past it Done counts the games of those read.
const maxHeaderReads = 512

// progressOf finds the generation in progress of r, after Load has read
// its records into rep; nil when the run has done its planned generations
// or shows nothing to do yet. stepsOf counts the metric lines of each
// generation, waiting lists the chunk files no plan takes.
func progressOf(r *runfolder.Run, rep *Report, stepsOf map[int]int, waiting []string) (*Progress, error) {
	cfg, err := configs.Load(r.Path(runfolder.ConfigFile), nil, nil)
	if err != nil {
		cfg = nil // a run folder without its configuration: the totals are unknown
	}
	var last *runfolder.GenerationRecord
	if n := len(rep.Generations); n > 0 {
		last = &rep.Generations[n-1].GenerationRecord
	}
	if last != nil && cfg != nil && ladderDue(cfg.Ladder, last, rep.Ladder) {
		p := &Progress{Gen: last.Gen, Stage: StageLadder, Done: -1, Total: cfg.Ladder.Games, Unit: "games", Since: last.Finished, Last: last.Finished}
		return p, nil
	}
	gen := 1
	if last != nil {
		gen = last.Gen + 1
		if cfg != nil && cfg.Run.Generations > 0 && last.Gen >= cfg.Run.Generations {
			return nil, nil
		}
	}
	p := &Progress{Gen: gen, Unit: "games"}
	if last != nil {
		p.Since = last.Finished
		for _, l := range rep.Ladder {
			if l.Gen == last.Gen && l.Time.After(p.Since) {
				p.Since = l.Time // the ladder ran after the record
			}
		}
	}
	plan, err := r.ReadPlan(gen)
	if err != nil {
		return nil, err
	}
	m := rep.LastMetric
	switch {
	case plan == nil && stepsOf[gen] == 0:
		p.Stage = StageSelfPlay
		if cfg != nil {
			p.Total = cfg.SelfPlay.GamesPerGeneration
		}
		for i, name := range waiting {
			if i == maxHeaderReads {
				break
			}
			path := r.Path(runfolder.GamesDir, name)
			h, err := selfplay.ReadHeader(path)
			if err != nil {
				continue // the trainer quarantines it
			}
			p.Done += h.Games
			if st, err := os.Stat(path); err == nil && st.ModTime().After(p.Last) {
				p.Last = st.ModTime()
			}
		}
		if cfg == nil && p.Done == 0 {
			return nil, nil // no configuration and no games: nothing says the run goes on
		}
	case r.FindCheckpoint(gen) == "":
		p.Stage, p.Unit, p.Done = StageTraining, "steps", stepsOf[gen]
		if plan != nil {
			if st, err := os.Stat(r.PlanPath(gen)); err == nil {
				p.Since = st.ModTime()
			}
			if cfg != nil {
				positions := 0
				for _, c := range plan.Chunks {
					positions += c.Positions
				}
				p.Total = cfg.Train.Steps(positions)
			}
		}
		if m != nil && m.Gen == gen {
			p.Last, p.PolicyLoss, p.ValueLoss, p.SamplesPerSec = m.Time, m.PolicyLoss, m.ValueLoss, m.SamplesPerSec
		}
	default:
		p.Stage, p.Done = StageGating, -1
		if cfg != nil {
			p.Total = cfg.Arena.Games
		}
		if st, err := os.Stat(r.Path(r.FindCheckpoint(gen))); err == nil {
			p.Since, p.Last = st.ModTime(), st.ModTime()
		}
	}
	if p.Last.Before(p.Since) {
		p.Last = p.Since
	}
	return p, nil
}

// ladderDue reports whether the trainer rates the best model after the
// generation of rec and has not recorded it (train's rate decides so).
func ladderDue(lc configs.Ladder, rec *runfolder.GenerationRecord, rated []runfolder.LadderRecord) bool {
	if lc.Every <= 0 || rec.Gen%lc.Every != 0 {
		return false
	}
	for _, l := range rated {
		if l.Gen == rec.Gen || l.Model == rec.Best {
			return false
		}
	}
	return true
}

// Describe says in one line what the generation in progress does, with
// the time its stage has taken up to now ("generation 21: self-play, 320
// of 500 games, 2m10s so far").
func (p *Progress) Describe(now time.Time) string {
	var b strings.Builder
	if p.Stage == StageLadder {
		fmt.Fprintf(&b, "generation %d: ladder rating", p.Gen)
	} else {
		fmt.Fprintf(&b, "generation %d: %s", p.Gen, p.Stage)
	}
	switch {
	case p.Done >= 0 && p.Total > 0:
		fmt.Fprintf(&b, ", %d of %d %s", p.Done, p.Total, p.Unit)
	case p.Done >= 0:
		fmt.Fprintf(&b, ", %d %s", p.Done, p.Unit)
	case p.Total > 0:
		fmt.Fprintf(&b, " of %d %s", p.Total, p.Unit)
	}
	if p.Stage == StageTraining && p.SamplesPerSec > 0 {
		fmt.Fprintf(&b, " (policy loss %.4f, value loss %.4f, %.0f samples/s)", p.PolicyLoss, p.ValueLoss, p.SamplesPerSec)
	}
	if !p.Since.IsZero() && now.After(p.Since) {
		fmt.Fprintf(&b, ", %s so far", now.Sub(p.Since).Round(time.Second))
	}
	return b.String()
}
