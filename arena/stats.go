package arena

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Elo returns the Elo difference that a score s (0..1, draws counting half)
// stands for in the logistic model: 400*log10(s/(1-s)). A score of 0.5 is
// 0; 0.76 is about +200; 0 and 1 give -Inf and +Inf.
func Elo(s float64) float64 {
	switch {
	case s <= 0:
		return math.Inf(-1)
	case s >= 1:
		return math.Inf(1)
	}
	return 400 * math.Log10(s/(1-s))
}

// ExpectedScore is the inverse of Elo: 1 / (1 + 10^(-elo/400)).
func ExpectedScore(elo float64) float64 {
	return 1 / (1 + math.Pow(10, -elo/400))
}

// Pentanomial counts finished pairs of games (the same opening played once
// with each colour) by the points player A took from the pair:
// index 0..4 for 0, 0.5, 1, 1.5 and 2 points (a win 1, a draw 0.5).
type Pentanomial [5]int

// Pairs returns the number of pairs counted.
func (p Pentanomial) Pairs() int {
	n := 0
	for _, c := range p {
		n += c
	}
	return n
}

// Add counts the pairs of o into p.
func (p *Pentanomial) Add(o Pentanomial) {
	for k, c := range o {
		p[k] += c
	}
}

// Counts returns the wins, draws and losses of A that the pairs imply at
// least: a pair worth 1 point may be a win and a loss or two draws, and
// is counted as two draws.
func (p Pentanomial) Counts() (wins, draws, losses int) {
	return p[3] + 2*p[4], p[1] + 2*p[2] + p[3], 2*p[0] + p[1]
}

// Score returns A's mean score per game (0..1); 0.5 with no pairs.
func (p Pentanomial) Score() float64 {
	n := p.Pairs()
	if n == 0 {
		return 0.5
	}
	var sum float64
	for i, c := range p {
		sum += float64(c) * float64(i) / 4
	}
	return sum / float64(n)
}

// priorPairs is a weak prior of one pair spread evenly over the five
// outcomes. It enters the variance only (never the mean), so that the first
// few identical pairs cannot make the variance zero and end a test at once.
const priorPairs = 1.0

// Variance returns the variance of one pair's mean score (pair points / 2)
// around Score, with the prior of one pair spread over the five outcomes.
func (p Pentanomial) Variance() float64 {
	m := p.Score()
	w := priorPairs / 5
	var sum, n float64
	for i, c := range p {
		x := float64(i) / 4
		k := float64(c) + w
		sum += k * (x - m) * (x - m)
		n += k
	}
	return sum / n
}

// StdErr returns the standard error of Score: sqrt(Variance / pairs).
func (p Pentanomial) StdErr() float64 {
	n := p.Pairs()
	if n == 0 {
		return math.Inf(1)
	}
	return math.Sqrt(p.Variance() / float64(n))
}

// Estimate is an Elo difference with its 95% interval and the likelihood of
// superiority.
type Estimate struct {
	Elo       float64 // Elo(score)
	Low, High float64 // Elo(score -/+ 1.96 standard errors), clamped to [0,1] first
	LOS       float64 // probability that A is stronger: Phi((score-0.5)/stderr)
}

// Estimate returns A's Elo difference over B from the pairs. The interval is
// the normal approximation score +/- 1.96*StdErr mapped through Elo, so it
// may reach -Inf or +Inf near a score of 0 or 1.
func (p Pentanomial) Estimate() Estimate {
	s, se := p.Score(), p.StdErr()
	e := Estimate{Elo: Elo(s), Low: math.Inf(-1), High: math.Inf(1), LOS: 0.5}
	if p.Pairs() == 0 {
		return e
	}
	e.Low = Elo(s - 1.96*se)
	e.High = Elo(s + 1.96*se)
	e.LOS = 0.5 * math.Erfc(-(s-0.5)/se/math.Sqrt2)
	return e
}

// String formats the estimate with its 95% interval, which is not
// symmetric in Elo: "+35.2 [+15.0, +56.1] (LOS 99.9%)".
func (e Estimate) String() string {
	return fmt.Sprintf("%+.1f [%+.1f, %+.1f] (LOS %.1f%%)", e.Elo, e.Low, e.High, 100*e.LOS)
}

// Verdict is the decision of a gate.
type Verdict int8

// Verdicts. Inconclusive is the zero value: no test, or not enough evidence.
const (
	Inconclusive Verdict = iota
	Accept               // A is judged at least as strong as the hypothesis H1 asks
	Reject               // A is judged no stronger than H0
)

// String returns "inconclusive", "accept" or "reject".
func (v Verdict) String() string {
	switch v {
	case Accept:
		return "accept"
	case Reject:
		return "reject"
	}
	return "inconclusive"
}

// SPRT is a sequential probability ratio test of H0: A is Elo0 stronger than
// B, against H1: A is Elo1 stronger (Elo0 < Elo1, logistic Elo). Alpha is the
// chance to accept when H0 holds, Beta to reject when H1 holds.
//
// The log-likelihood ratio is the generalised SPRT approximation used by
// Fishtest (M. Van den Bergh; LLR_logistic in its stat_util.py), applied to
// pairs: with N pairs of mean score x (pair points / 2) and variance v,
//
//	s0 = ExpectedScore(Elo0), s1 = ExpectedScore(Elo1)
//	LLR = N * (s1 - s0) * (2x - s0 - s1) / (2v)
//
// (the difference of the two Gaussian log-likelihoods of x). The test
// accepts when LLR >= log((1-Beta)/Alpha) and rejects when
// LLR <= log(Beta/(1-Alpha)). v carries the weak prior of Variance.
type SPRT struct {
	Elo0, Elo1  float64
	Alpha, Beta float64
}

// DefaultSPRT tests 0 against +30 Elo at 5% error each way.
var DefaultSPRT = SPRT{Elo0: 0, Elo1: 30, Alpha: 0.05, Beta: 0.05}

// ParseSPRT reads a test written "ELO0,ELO1" or "ELO0,ELO1,ALPHA,BETA"
// (alpha and beta default to DefaultSPRT's) and validates it.
func ParseSPRT(s string) (SPRT, error) {
	parts := strings.Split(s, ",")
	if len(parts) != 2 && len(parts) != 4 {
		return SPRT{}, errors.New("want ELO0,ELO1 or ELO0,ELO1,ALPHA,BETA")
	}
	v := make([]float64, len(parts))
	for i, p := range parts {
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil {
			return SPRT{}, fmt.Errorf("%q is not a number", p)
		}
		v[i] = f
	}
	t := DefaultSPRT
	t.Elo0, t.Elo1 = v[0], v[1]
	if len(v) == 4 {
		t.Alpha, t.Beta = v[2], v[3]
	}
	return t, t.Validate()
}

// Validate checks the bounds of the test: error rates in (0,0.5], as
// configs allows arena.alpha and arena.beta (above one half the test
// accepts on less evidence than it rejects with, or the reverse, and at
// alpha + beta >= 1 its bounds cross).
func (s SPRT) Validate() error {
	switch {
	case !(s.Alpha > 0 && s.Alpha <= 0.5):
		return fmt.Errorf("arena: SPRT alpha = %v: want a value in (0,0.5]", s.Alpha)
	case !(s.Beta > 0 && s.Beta <= 0.5):
		return fmt.Errorf("arena: SPRT beta = %v: want a value in (0,0.5]", s.Beta)
	case math.IsNaN(s.Elo0) || math.IsInf(s.Elo0, 0) || math.IsNaN(s.Elo1) || math.IsInf(s.Elo1, 0):
		return fmt.Errorf("arena: SPRT elo0 = %v, elo1 = %v: want finite values", s.Elo0, s.Elo1)
	case s.Elo0 >= s.Elo1:
		return fmt.Errorf("arena: SPRT elo0 = %v, elo1 = %v: want elo0 < elo1", s.Elo0, s.Elo1)
	}
	return nil
}

// Bounds returns the LLR bounds: reject at or below lower, accept at or
// above upper.
func (s SPRT) Bounds() (lower, upper float64) {
	return math.Log(s.Beta / (1 - s.Alpha)), math.Log((1 - s.Beta) / s.Alpha)
}

// LLR returns the log-likelihood ratio of H1 over H0 given the pairs.
func (s SPRT) LLR(p Pentanomial) float64 {
	n := p.Pairs()
	if n == 0 {
		return 0
	}
	s0, s1 := ExpectedScore(s.Elo0), ExpectedScore(s.Elo1)
	x := p.Score()
	return float64(n) * (s1 - s0) * (2*x - s0 - s1) / (2 * p.Variance())
}

// Verdict returns Accept or Reject once a bound is crossed, else
// Inconclusive.
func (s SPRT) Verdict(p Pentanomial) Verdict {
	llr := s.LLR(p)
	lo, hi := s.Bounds()
	switch {
	case llr >= hi:
		return Accept
	case llr <= lo:
		return Reject
	}
	return Inconclusive
}
