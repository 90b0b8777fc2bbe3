// Package report reads a training run's folder (through package
// runfolder, and selfplay for the game counts of chunk headers) and
// presents it: the generations table with chained Elo, totals, ladder
// ratings and the generation in progress that dama report prints (and
// dama serve shows), and the PNG plots of losses, Elo, arena scores and
// ladder ratings.
package report

import (
	"math"
	"time"

	"dama/runfolder"
)

// Report is what dama report shows of a run folder: one row per completed
// generation joined with its gating match, the training losses reduced to a
// bounded number of points, and totals.
//
// Elo figures of the best model are chained estimates: the Elo of a
// promoted candidate over generation 0 is the sum of the gating estimates
// (candidate minus the best it played) of every promotion up to it. The
// chain drifts with the error of each match; its 95% interval assumes the
// matches are independent and adds their variances.
type Report struct {
	Dir         string
	Generations []GenerationRow          // completed generations, by increasing Gen
	Arena       []runfolder.ArenaRecord  // the last match of each generation, by increasing Gen
	Losses      []LossPoint              // bucket means of metrics.jsonl, by increasing step
	Ladder      []runfolder.LadderRecord // ladder ratings of the best model, by increasing Gen
	Changes     []runfolder.ConfigChange // configuration changes made on resume (dama train --allow-change), oldest first

	Waiting     int // chunk files in games/ that no generation plan takes yet
	Quarantined int // chunk files the trainer refused, in quarantine/

	MetricLines int                     // lines of metrics.jsonl read
	ArenaLines  int                     // lines of arena.jsonl read
	LastMetric  *runfolder.MetricRecord // the newest training step, nil if none
	Start       time.Time               // estimated start of the run, zero if unknown
	// Progress is the generation in progress as the files show it, nil
	// when the run has done its planned generations.
	Progress *Progress

	// Promotion is the candidate's score (0..1) that promotes it under the
	// run's gating, drawn in arena.png (0 when unknown or none):
	// arena.threshold in threshold mode, the score of the midpoint of
	// Elo0 and Elo1 with the SPRT. PromotionLabel describes it.
	Promotion      float64
	PromotionLabel string

	samplesByGen map[int]int64 // samples counter at the last step of each generation
}

// GenerationRow is one completed generation with its gating match.
type GenerationRow struct {
	runfolder.GenerationRecord
	Match *runfolder.ArenaRecord // the gating match, nil if arena.jsonl has none for Gen

	// CandidateElo is the chained Elo of this generation's candidate over
	// generation 0: the best's chained Elo before the match plus the
	// candidate's gating Elo.
	CandidateElo float64
	// BestChainElo is the chained Elo of the best model after this
	// generation, and BestChainErr half its 95% interval.
	BestChainElo float64
	BestChainErr float64
}

// z95 is the normal quantile of a two-sided 95% interval.
const z95 = 1.959964

// eloSigma is the standard error of a match's Elo from its 95% interval.
func eloSigma(a runfolder.ArenaRecord) float64 {
	w := a.EloHigh - a.EloLow
	if !finite(w) || w <= 0 {
		return 0
	}
	return w / (2 * z95)
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// Empty reports whether the run has no records at all.
func (rep *Report) Empty() bool {
	return len(rep.Generations) == 0 && rep.MetricLines == 0 && rep.ArenaLines == 0
}

// eloScore is the expected score of an Elo difference.
func eloScore(elo float64) float64 { return 1 / (1 + math.Pow(10, -elo/400)) }
