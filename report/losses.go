package report

import (
	"dama/runfolder"
)

// LossPoint is the mean of the training losses over a bucket of steps.
type LossPoint struct {
	Step                 float64 // mean step of the bucket
	Policy, Value, Total float64
	Unix                 float64 // mean wall clock of the bucket's steps, Unix seconds (0: not recorded)
	Steps                int     // metric lines in the bucket
}

// maxLossBuckets bounds the loss points kept: when 2*maxLossBuckets full
// buckets are held, neighbours are merged and the bucket width doubles, so
// memory stays bounded however long the run.
const maxLossBuckets = 1000

// lossSeries reduces a stream of metrics to at most 2*maxLossBuckets bucket
// means of equal width (the last bucket may be partial).
type lossSeries struct {
	width int // metric lines per full bucket
	full  []LossPoint
	cur   LossPoint // sums, not means, while filling
}

func (s *lossSeries) add(m runfolder.MetricRecord) {
	if s.width == 0 {
		s.width = 1
	}
	s.cur.Step += float64(m.Step)
	s.cur.Policy += m.PolicyLoss
	s.cur.Value += m.ValueLoss
	s.cur.Total += m.Total
	if !m.Time.IsZero() {
		s.cur.Unix += float64(m.Time.UnixNano()) / 1e9
	}
	s.cur.Steps++
	if s.cur.Steps < s.width {
		return
	}
	s.full = append(s.full, s.cur.mean())
	s.cur = LossPoint{}
	if len(s.full) < 2*maxLossBuckets {
		return
	}
	for i := 0; i < len(s.full)/2; i++ {
		a, b := s.full[2*i], s.full[2*i+1]
		s.full[i] = LossPoint{
			Step:   (a.Step + b.Step) / 2,
			Policy: (a.Policy + b.Policy) / 2,
			Value:  (a.Value + b.Value) / 2,
			Total:  (a.Total + b.Total) / 2,
			Unix:   (a.Unix + b.Unix) / 2,
			Steps:  a.Steps + b.Steps,
		}
	}
	s.full = s.full[:len(s.full)/2]
	s.width *= 2
}

func (p LossPoint) mean() LossPoint {
	n := float64(p.Steps)
	return LossPoint{Step: p.Step / n, Policy: p.Policy / n, Value: p.Value / n, Total: p.Total / n, Unix: p.Unix / n, Steps: p.Steps}
}

func (s *lossSeries) points() []LossPoint {
	out := append([]LossPoint(nil), s.full...)
	if s.cur.Steps > 0 {
		out = append(out, s.cur.mean())
	}
	return out
}
