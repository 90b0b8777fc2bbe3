package mcts

import "math"

// Forced playouts and policy target pruning (Wu, "Accelerating Self-Play
// Learning in Go", 2019, section 3.1). With Options.ForcedPlayoutsK k > 0,
// a search with root noise gives each root child c at least
// sqrt(k P(c) N) visits, P the noised prior and N the root's child visits,
// so that children favoured by the noise are looked at. Those visits would
// teach the network the noise, so PrunedVisits takes them out of the
// policy target again.

// forcedBonus lifts the PUCT score of a child owed forced playouts above
// every other score.
const forcedBonus = 1e9

// ForcedPlayouts returns the forced playouts sqrt(k*prior*visits) of a root
// child with the given (noised) prior when the root's children have visits
// visits in all.
func ForcedPlayouts(k, prior, visits float64) float64 {
	if k <= 0 || prior <= 0 || visits <= 0 {
		return 0
	}
	return math.Sqrt(k * prior * visits)
}

// PrunedVisits returns the root visits of res as a policy target with the
// forced playouts taken out (KataGo's policy target pruning): the most
// visited child keeps its visits; every other child loses up to its forced
// playouts (Options.ForcedPlayoutsK, the search priors of res), but only as
// far as its PUCT score stays at or below the most visited child's; a child
// left with one visit or none is dropped. Without forced playouts it
// returns a copy of res.Visits.
func (s *Search) PrunedVisits(res Result) []int {
	return pruneVisits(res, s.opt.CPuct, s.opt.ForcedPlayoutsK)
}

// pruneVisits is PrunedVisits for a search with the PUCT constant cpuct and
// forced playouts k.
func pruneVisits(res Result, cpuct, k float64) []int {
	out := append([]int(nil), res.Visits...)
	if k <= 0 || len(out) < 2 || len(res.SearchPriors) != len(out) || len(res.Q) != len(out) {
		return out
	}
	best, total := 0, 0
	for i, n := range out {
		total += n
		if n > out[best] || n == out[best] && res.Q[i] > res.Q[best] {
			best = i
		}
	}
	if out[best] == 0 {
		return out
	}
	sq := math.Sqrt(float64(total))
	bestScore := float64(res.Q[best]) + cpuct*float64(res.SearchPriors[best])*sq/float64(1+out[best])
	for i, n := range out {
		if i == best || n == 0 {
			continue
		}
		p := float64(res.SearchPriors[i])
		keep := n - int(math.Floor(ForcedPlayouts(k, p, float64(total))))
		// The fewest visits m at which Q + cpuct P sqrt(N) / (1+m) is at
		// most the best child's score.
		gap := bestScore - float64(res.Q[i])
		least := n
		if gap > 0 {
			least = max(0, int(math.Ceil(cpuct*p*sq/gap-1-1e-9)))
		}
		keep = min(n, max(keep, least))
		if keep <= 1 {
			keep = 0
		}
		out[i] = keep
	}
	return out
}
