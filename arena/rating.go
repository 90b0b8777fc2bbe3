package arena

import (
	"errors"
	"fmt"
	"math"
)

// eloSlope is d(expected score)/d(Elo) at an expected score p, divided by
// p(1-p): ln(10)/400.
const eloSlope = math.Ln10 / 400

// pairing is the result of a match between players I and J of a list: the
// pairs of games (each opening once with each colour) from I's point of
// view.
type pairing struct {
	I, J  int
	Pairs Pentanomial
}

// withPrior returns the pairs with one virtual drawn pair (one point of
// two) added, a weak prior that keeps a clean sweep finite: 50 pairs won
// outright then read as 99%, about +800 Elo.
func withPrior(p Pentanomial) Pentanomial {
	p[2]++
	return p
}

// points returns the points I took and the games played.
func points(p Pentanomial) (s, n float64) {
	for i, c := range p {
		s += float64(c) * float64(i) / 2
		n += 2 * float64(c)
	}
	return s, n
}

// fitRatings returns the maximum-likelihood Elo ratings of n players from
// the pairings between them (the logistic model, draws counting half), with
// player anchor fixed at 0, and the standard error of each rating.
//
// Each pairing gets one virtual drawn pair as a prior, so that a clean sweep
// gives a large finite gap instead of an infinite one. The standard errors
// are the sandwich estimate: the curvature of the likelihood, with the
// observed variance of each match's pair scores in place of the binomial
// one, so that draws and the pairing of colours are accounted for. Every
// player must be connected to the anchor through the pairings.
func fitRatings(n, anchor int, pairings []pairing) (elo, stderr []float64, err error) {
	if n < 1 || anchor < 0 || anchor >= n {
		return nil, nil, fmt.Errorf("arena: ratings of %d players anchored at %d", n, anchor)
	}
	for _, p := range pairings {
		if p.I < 0 || p.I >= n || p.J < 0 || p.J >= n || p.I == p.J {
			return nil, nil, fmt.Errorf("arena: pairing %d-%d out of range for %d players", p.I, p.J, n)
		}
	}
	if !connected(n, anchor, pairings) {
		return nil, nil, errors.New("arena: ratings: some player is not connected to the anchor by any match")
	}
	// Free variables: every player but the anchor.
	idx := make([]int, n)
	k := 0
	for i := range idx {
		idx[i] = -1
		if i != anchor {
			idx[i] = k
			k++
		}
	}
	elo = make([]float64, n)
	stderr = make([]float64, n)
	if k == 0 {
		return elo, stderr, nil
	}
	for iter := 0; iter < 100; iter++ {
		grad := make([]float64, k)
		info := newMatrix(k)
		for _, pr := range pairings {
			s, g := points(withPrior(pr.Pairs))
			p := ExpectedScore(elo[pr.I] - elo[pr.J])
			r := eloSlope * (s - g*p)                  // d logL / d elo_I
			w := eloSlope * eloSlope * g * p * (1 - p) // information
			addPair(grad, info, idx[pr.I], idx[pr.J], r, w)
		}
		step, err := solve(info, grad)
		if err != nil {
			return nil, nil, fmt.Errorf("arena: ratings: %w", err)
		}
		biggest := 0.0
		for i, v := range idx {
			if v >= 0 {
				d := math.Max(-400, math.Min(400, step[v]))
				elo[i] += d
				biggest = math.Max(biggest, math.Abs(d))
			}
		}
		if biggest < 1e-6 {
			break
		}
	}
	// Sandwich: cov = I^-1 J I^-1 with J from the observed pair variances.
	info, meat := newMatrix(k), newMatrix(k)
	for _, pr := range pairings {
		pp := withPrior(pr.Pairs)
		_, g := points(pp)
		p := ExpectedScore(elo[pr.I] - elo[pr.J])
		w := eloSlope * eloSlope * g * p * (1 - p)
		// Points of a pair are twice its mean score: variance 4*Variance.
		v := eloSlope * eloSlope * float64(pp.Pairs()) * 4 * pp.Variance()
		addPair(nil, info, idx[pr.I], idx[pr.J], 0, w)
		addPair(nil, meat, idx[pr.I], idx[pr.J], 0, v)
	}
	inv, err := invert(info)
	if err != nil {
		return nil, nil, fmt.Errorf("arena: ratings: %w", err)
	}
	cov := mul(mul(inv, meat), inv)
	for i, v := range idx {
		if v >= 0 {
			stderr[i] = math.Sqrt(math.Max(0, cov[v][v]))
		}
	}
	return elo, stderr, nil
}

// rateAgainst returns the maximum-likelihood Elo of a player from its
// results against opponents of fixed ratings, and its standard error (the
// opponents' ratings taken as exact). results[i] are the pairs against the
// opponent rated ratings[i], from the player's point of view. As in
// fitRatings, each opponent played gets one virtual drawn pair as a prior.
func rateAgainst(ratings []float64, results []Pentanomial) (elo, stderr float64, err error) {
	if len(ratings) != len(results) {
		return 0, 0, fmt.Errorf("arena: %d ratings for %d results", len(ratings), len(results))
	}
	played := 0
	var sum float64
	for i, r := range results {
		if math.IsNaN(ratings[i]) || math.IsInf(ratings[i], 0) {
			return 0, 0, fmt.Errorf("arena: opponent %d has rating %v", i, ratings[i])
		}
		if r.Pairs() > 0 {
			played++
			sum += ratings[i]
		}
	}
	if played == 0 {
		return 0, 0, errors.New("arena: no games to rate")
	}
	elo = sum / float64(played)
	for iter := 0; iter < 200; iter++ {
		var g, h float64
		for i, r := range results {
			if r.Pairs() == 0 {
				continue
			}
			s, n := points(withPrior(r))
			p := ExpectedScore(elo - ratings[i])
			g += eloSlope * (s - n*p)
			h += eloSlope * eloSlope * n * p * (1 - p)
		}
		d := math.Max(-400, math.Min(400, g/h))
		elo += d
		if math.Abs(d) < 1e-7 {
			break
		}
	}
	var h, v float64
	for i, r := range results {
		if r.Pairs() == 0 {
			continue
		}
		pp := withPrior(r)
		_, n := points(pp)
		p := ExpectedScore(elo - ratings[i])
		h += eloSlope * n * p * (1 - p)
		v += float64(pp.Pairs()) * 4 * pp.Variance()
	}
	return elo, math.Sqrt(v) / h, nil
}

// connected reports whether every player reaches the anchor through
// pairings.
func connected(n, anchor int, pairings []pairing) bool {
	seen := make([]bool, n)
	seen[anchor] = true
	for changed := true; changed; {
		changed = false
		for _, p := range pairings {
			if seen[p.I] != seen[p.J] {
				seen[p.I], seen[p.J] = true, true
				changed = true
			}
		}
	}
	for _, s := range seen {
		if !s {
			return false
		}
	}
	return true
}

// addPair adds a match between free variables a and b (-1: the anchor) to
// the gradient (r for a, -r for b) and to a Laplacian-shaped matrix (w).
func addPair(grad []float64, m [][]float64, a, b int, r, w float64) {
	if a >= 0 {
		if grad != nil {
			grad[a] += r
		}
		m[a][a] += w
	}
	if b >= 0 {
		if grad != nil {
			grad[b] -= r
		}
		m[b][b] += w
	}
	if a >= 0 && b >= 0 {
		m[a][b] -= w
		m[b][a] -= w
	}
}

func newMatrix(k int) [][]float64 {
	m := make([][]float64, k)
	for i := range m {
		m[i] = make([]float64, k)
	}
	return m
}

func mul(a, b [][]float64) [][]float64 {
	k := len(a)
	c := newMatrix(k)
	for i := range k {
		for j := range k {
			for l := range k {
				c[i][j] += a[i][l] * b[l][j]
			}
		}
	}
	return c
}

// invert returns the inverse of m by Gauss-Jordan elimination with partial
// pivoting.
func invert(m [][]float64) ([][]float64, error) {
	k := len(m)
	a := newMatrix(k)
	inv := newMatrix(k)
	for i := range k {
		copy(a[i], m[i])
		inv[i][i] = 1
	}
	for c := range k {
		p := c
		for r := c + 1; r < k; r++ {
			if math.Abs(a[r][c]) > math.Abs(a[p][c]) {
				p = r
			}
		}
		if math.Abs(a[p][c]) < 1e-300 {
			return nil, errors.New("singular information matrix")
		}
		a[c], a[p] = a[p], a[c]
		inv[c], inv[p] = inv[p], inv[c]
		d := a[c][c]
		for j := range k {
			a[c][j] /= d
			inv[c][j] /= d
		}
		for r := range k {
			if r != c && a[r][c] != 0 {
				f := a[r][c]
				for j := range k {
					a[r][j] -= f * a[c][j]
					inv[r][j] -= f * inv[c][j]
				}
			}
		}
	}
	return inv, nil
}

// solve returns x with m x = b.
func solve(m [][]float64, b []float64) ([]float64, error) {
	inv, err := invert(m)
	if err != nil {
		return nil, err
	}
	x := make([]float64, len(b))
	for i := range x {
		for j := range b {
			x[i] += inv[i][j] * b[j]
		}
	}
	return x, nil
}
