package train

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"dama/model"
	"dama/model/learn"
	"dama/runfolder"
)

// trainCandidate trains generation gen's candidate from generation gen-1's
// checkpoint and saves it in candidates/.
func (l *loop) trainCandidate(ctx context.Context, gen, newSamples int) (steps int, samplesPerSec float64, last learn.Losses, err error) {
	if l.win.Len() == 0 {
		return 0, 0, last, fmt.Errorf("train: generation %d has no training samples", gen)
	}
	// Metrics a killed trainer logged for this generation are redone.
	var tail runfolder.MetricRecord
	found, err := runfolder.LastJSONL(l.run, runfolder.MetricsFile, &tail)
	if err == nil && found && tail.Gen >= gen {
		err = runfolder.RewriteJSONL(l.run, runfolder.MetricsFile, func(m runfolder.MetricRecord) bool { return m.Gen < gen })
	}
	if err != nil {
		return 0, 0, last, err
	}
	parent := l.run.FindCheckpoint(gen - 1)
	if parent == "" {
		return 0, 0, last, fmt.Errorf("train: generation %d has no checkpoint to train from", gen-1)
	}
	if l.tr == nil || l.trGen != gen-1 {
		if l.tr != nil {
			l.tr.Close()
			l.tr = nil
		}
		ck, err := model.Load(l.run.Path(parent))
		if err != nil {
			return 0, 0, last, err
		}
		ck.Meta.Parent = parent
		if l.tr, err = learn.NewTrainer(ck, trainOptions(l.cfg.Train)); err != nil {
			return 0, 0, last, err
		}
		l.trGen = gen - 1
	}
	l.trGen = -1 // until the candidate is saved
	steps = l.cfg.Train.Steps(newSamples)
	rng := rand.New(rand.NewPCG(uint64(l.cfg.Run.Seed), uint64(gen)))
	batch := make([]learn.Sample, l.cfg.Train.Batch)
	st := startStage(l.opt.Progress, Event{Gen: gen, Stage: StageTrain, Total: steps})
	var pending []runfolder.MetricRecord
	start := time.Now()
	var sumP, sumV float64
	for i := 0; i < steps; i++ {
		if err := ctx.Err(); err != nil {
			return 0, 0, last, err
		}
		l.win.Sample(rng, batch)
		ls, err := l.tr.Step(batch)
		if err != nil {
			return 0, 0, last, err
		}
		last = ls
		sumP += ls.Policy
		sumV += ls.Value
		el := time.Since(start).Seconds()
		samplesPerSec = float64((i+1)*len(batch)) / el
		pending = append(pending, runfolder.MetricRecord{
			Gen: gen, Step: l.tr.StepCount(), Samples: l.tr.StepCount() * int64(len(batch)), LR: ls.LR,
			PolicyLoss: ls.Policy, ValueLoss: ls.Value, Entropy: ls.Entropy, L2: ls.L2, Total: ls.Total,
			Time: time.Now().UTC(), SamplesPerSec: samplesPerSec,
		})
		if len(pending) >= 50 || i == steps-1 {
			lines := make([]any, len(pending))
			for k := range pending {
				lines[k] = pending[k]
			}
			if err := l.run.AppendJSONL(runfolder.MetricsFile, lines...); err != nil {
				return 0, 0, last, err
			}
			pending = pending[:0]
		}
		st.add(1)
	}
	st.finish()
	ck := l.tr.Checkpoint()
	ck.Meta.Parent = parent
	ck.Meta.Note = fmt.Sprintf("generation %d: %d steps on a window of %d positions", gen, steps, l.win.Len())
	if err := ck.Save(l.run.Path(runfolder.CandidatesDir, runfolder.CandidateName(gen))); err != nil {
		return 0, 0, last, err
	}
	l.trGen = gen
	if steps > 0 {
		last.Policy, last.Value = sumP/float64(steps), sumV/float64(steps)
	}
	return steps, samplesPerSec, last, nil
}
