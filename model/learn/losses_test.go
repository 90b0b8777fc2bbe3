package learn

import (
	"fmt"
	"math"

	"dama/model"
	"dama/model/infer"
)

// evalLosses returns the mean losses of net on samples in eval mode (batch
// norm with running statistics, the pure-Go forward pass): the same policy
// and value cross-entropies the trainer minimises, for validation data. L2
// and LR are zero; Total is Policy + Value.
func evalLosses(net *model.Network, samples []Sample) (Losses, error) {
	b, err := infer.NewBackend(infer.BackendFP32, net)
	if err != nil {
		return Losses{}, err
	}
	const chunk = 64
	r := b.NewRunner(chunk)
	input := make([]float32, chunk*model.InputSize)
	policy := make([]float32, chunk*model.PolicySize)
	wdl := make([]float32, chunk*model.ValueSize)
	target := make([]float32, model.PolicySize)
	mask := make([]float32, model.PolicySize)
	var l Losses
	for start := 0; start < len(samples); start += chunk {
		batch := samples[start:min(start+chunk, len(samples))]
		for i := range batch {
			s := &batch[i]
			if err := checkSample(s); err != nil {
				return Losses{}, fmt.Errorf("learn: sample %d (%s): %w", start+i, s.Pos.FEN(), err)
			}
			model.Encode(input[i*model.InputSize:(i+1)*model.InputSize], s.Pos, s.Repetitions, s.QuietPlies)
		}
		r.Forward(input, len(batch), policy, wdl)
		for i := range batch {
			s := &batch[i]
			if err := model.PolicyTarget(target, mask, s.Pos, s.Legal, s.Policy, illegalLogit); err != nil {
				return Losses{}, err
			}
			logits := policy[i*model.PolicySize : (i+1)*model.PolicySize]
			// log-softmax over the legal indices (each counted once).
			mx := math.Inf(-1)
			for k, m := range mask {
				if m == 0 {
					mx = math.Max(mx, float64(logits[k]))
				}
			}
			var z float64
			for k, m := range mask {
				if m == 0 {
					z += math.Exp(float64(logits[k]) - mx)
				}
			}
			lz := mx + math.Log(z)
			var tsum float64
			for _, p := range s.Policy {
				tsum += float64(p)
			}
			for k, m := range mask {
				if m != 0 {
					continue
				}
				lp := float64(logits[k]) - lz
				l.Policy -= float64(target[k]) / tsum * lp
				l.Entropy -= math.Exp(lp) * lp
			}
			v := wdl[i*model.ValueSize : (i+1)*model.ValueSize]
			vm := math.Max(float64(v[0]), math.Max(float64(v[1]), float64(v[2])))
			vz := vm + math.Log(math.Exp(float64(v[0])-vm)+math.Exp(float64(v[1])-vm)+math.Exp(float64(v[2])-vm))
			wsum := float64(s.WDL[0] + s.WDL[1] + s.WDL[2])
			for k := 0; k < model.ValueSize; k++ {
				l.Value -= float64(s.WDL[k]) / wsum * (float64(v[k]) - vz)
			}
		}
	}
	if n := float64(len(samples)); n > 0 {
		l.Policy /= n
		l.Value /= n
		l.Entropy /= n
	}
	l.Total = l.Policy + l.Value
	return l, nil
}
