package mcts

import (
	"math"
	"math/rand/v2"
)

// setNoise mixes fresh Dirichlet noise into the root priors (on) or restores
// the evaluator's priors (off).
func (s *Search) setNoise(on bool, rng *rand.Rand) {
	root := &s.nodes[0]
	children := s.nodes[root.first : root.first+int32(root.nchild)]
	if !s.noised {
		s.clean = s.clean[:0]
		for i := range children {
			s.clean = append(s.clean, children[i].prior)
		}
	}
	if !on {
		for i := range children {
			children[i].prior = s.clean[i]
		}
		s.noised = false
		return
	}
	eta := make([]float64, len(children))
	var sum float64
	for i := range eta {
		eta[i] = gamma(rng, s.opt.DirichletAlpha)
		sum += eta[i]
	}
	f := s.opt.DirichletFraction
	for i := range children {
		p := float64(s.clean[i])
		if sum > 0 {
			p = (1-f)*p + f*eta[i]/sum
		}
		children[i].prior = float32(p)
	}
	s.noised = true
}

// gamma draws from the Gamma(alpha, 1) distribution by the method of
// Marsaglia and Tsang (2000), boosting alpha < 1 by U^(1/alpha).
func gamma(rng *rand.Rand, alpha float64) float64 {
	if alpha < 1 {
		return gamma(rng, alpha+1) * math.Pow(rng.Float64(), 1/alpha)
	}
	d := alpha - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := rng.Float64()
		if u < 1-0.0331*x*x*x*x {
			return d * v
		}
		if math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return d * v
		}
	}
}
