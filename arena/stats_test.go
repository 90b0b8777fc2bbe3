package arena

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestElo(t *testing.T) {
	if got := Elo(0.5); got != 0 {
		t.Errorf("Elo(0.5) = %v, want 0", got)
	}
	if got := Elo(0.76); math.Abs(got-200) > 1 {
		t.Errorf("Elo(0.76) = %v, want about +200", got)
	}
	if got := Elo(0.24); math.Abs(got+200) > 1 {
		t.Errorf("Elo(0.24) = %v, want about -200", got)
	}
	if !math.IsInf(Elo(1), 1) || !math.IsInf(Elo(0), -1) {
		t.Errorf("Elo(1), Elo(0) = %v, %v, want +Inf, -Inf", Elo(1), Elo(0))
	}
	for _, e := range []float64{-400, -35, 0, 12.5, 300} {
		if got := Elo(ExpectedScore(e)); math.Abs(got-e) > 1e-9 {
			t.Errorf("Elo(ExpectedScore(%v)) = %v", e, got)
		}
	}
}

func TestEstimate(t *testing.T) {
	even := Pentanomial{2, 5, 10, 5, 2}
	e := even.Estimate()
	if e.Elo != 0 || e.LOS != 0.5 || !(e.Low < 0 && e.High > 0) {
		t.Errorf("balanced pairs: got %+v, want elo 0, LOS 0.5, interval around 0", e)
	}
	if math.Abs(e.Low+e.High) > 1e-9 {
		t.Errorf("balanced pairs: interval [%v, %v] is not symmetric", e.Low, e.High)
	}
	ahead := Pentanomial{1, 3, 10, 7, 4}
	a := ahead.Estimate()
	if !(a.Elo > 0 && a.LOS > 0.5 && a.Low < a.Elo && a.Elo < a.High) {
		t.Errorf("A ahead: got %+v, want positive elo inside its interval and LOS > 0.5", a)
	}
	width := a.High - a.Low
	var more Pentanomial
	for i := range ahead {
		more[i] = 10 * ahead[i]
	}
	m := more.Estimate()
	if math.Abs(m.Elo-a.Elo) > 1e-9 {
		t.Errorf("scaling the counts changed the Elo: %v then %v", a.Elo, m.Elo)
	}
	if w := m.High - m.Low; !(w < width/2.5) {
		t.Errorf("interval width %v with 10x the pairs, want under %v (about 1/sqrt(10) of %v)", w, width/2.5, width)
	}
	if m.LOS <= a.LOS {
		t.Errorf("LOS %v with 10x the pairs, want more than %v", m.LOS, a.LOS)
	}
	behind := Pentanomial{4, 7, 10, 3, 1}.Estimate()
	if math.Abs(behind.Elo+a.Elo) > 1e-9 || math.Abs(behind.LOS+a.LOS-1) > 1e-9 {
		t.Errorf("mirrored pairs: got %+v, want the negation of %+v", behind, a)
	}
	if z := (Pentanomial{}).Estimate(); z.Elo != 0 || !math.IsInf(z.High, 1) {
		t.Errorf("no pairs: got %+v, want elo 0 and an unbounded interval", z)
	}
}

func TestSPRTBounds(t *testing.T) {
	lo, hi := DefaultSPRT.Bounds()
	if math.Abs(lo+2.944) > 1e-3 || math.Abs(hi-2.944) > 1e-3 {
		t.Errorf("bounds for alpha = beta = 0.05: got [%v, %v], want [-2.944, 2.944]", lo, hi)
	}
	bad := []SPRT{
		{Elo0: 0, Elo1: 10, Alpha: 0, Beta: 0.05},
		{Elo0: 0, Elo1: 10, Alpha: 0.05, Beta: 1},
		{Elo0: 10, Elo1: 10, Alpha: 0.05, Beta: 0.05},
		{Elo0: math.NaN(), Elo1: 10, Alpha: 0.05, Beta: 0.05},
		{Elo0: 0, Elo1: 10, Alpha: 0.9, Beta: 0.05}, // issue 20, item 6: accepted on almost no evidence
		{Elo0: 0, Elo1: 10, Alpha: 0.05, Beta: 0.6},
		{Elo0: 0, Elo1: 10, Alpha: math.NaN(), Beta: 0.05},
	}
	for _, s := range bad {
		if s.Validate() == nil {
			t.Errorf("%+v: Validate accepted it", s)
		}
	}
	if err := DefaultSPRT.Validate(); err != nil {
		t.Errorf("DefaultSPRT: %v", err)
	}
	if err := (SPRT{Elo0: 0, Elo1: 10, Alpha: 0.5, Beta: 0.5}).Validate(); err != nil {
		t.Errorf("alpha = beta = 0.5, the largest allowed: %v", err)
	}
}

// samplePair plays two synthetic games of a player elo stronger than its
// opponent, with the given draw rate, and returns the pentanomial index.
func samplePair(rng *rand.Rand, elo, draw float64) int {
	s := ExpectedScore(elo)
	win := s - draw/2
	pts := 0
	for range 2 {
		switch u := rng.Float64(); {
		case u < win:
			pts += 2
		case u < win+draw:
			pts++
		}
	}
	return pts
}

// runSPRT feeds synthetic pairs to s until it decides or maxPairs pass.
func runSPRT(s SPRT, elo float64, seed uint64, maxPairs int) (Verdict, int) {
	rng := rand.New(rand.NewPCG(seed, 7))
	var p Pentanomial
	for n := 1; n <= maxPairs; n++ {
		p[samplePair(rng, elo, 0.3)]++
		if v := s.Verdict(p); v != Inconclusive {
			return v, n
		}
	}
	return Inconclusive, maxPairs
}

func TestSPRTSynthetic(t *testing.T) {
	s := SPRT{Elo0: 0, Elo1: 40, Alpha: 0.05, Beta: 0.05}
	for seed := uint64(1); seed <= 10; seed++ {
		if v, n := runSPRT(s, 150, seed, 5000); v != Accept {
			t.Errorf("seed %d, +150 Elo: verdict %v after %d pairs, want accept", seed, v, n)
		}
		if v, n := runSPRT(s, -150, seed, 5000); v != Reject {
			t.Errorf("seed %d, -150 Elo: verdict %v after %d pairs, want reject", seed, v, n)
		}
	}
	// At the hypotheses themselves the errors are bounded by alpha and beta:
	// out of 40 runs, far fewer than 10 should go the wrong way.
	var wrong0, wrong1 int
	for seed := uint64(100); seed < 140; seed++ {
		if v, _ := runSPRT(s, 0, seed, 20000); v != Reject {
			wrong0++
		}
		if v, _ := runSPRT(s, 40, seed, 20000); v != Accept {
			wrong1++
		}
	}
	t.Logf("wrong verdicts at H0: %d/40, at H1: %d/40", wrong0, wrong1)
	if wrong0 > 8 || wrong1 > 8 {
		t.Errorf("wrong verdicts at H0: %d/40, at H1: %d/40; want few (alpha = beta = 5%%)", wrong0, wrong1)
	}
	// A clearly stronger player is accepted quickly.
	_, n := runSPRT(s, 400, 1, 5000)
	t.Logf("+400 Elo decided after %d pairs", n)
	if n > 30 {
		t.Errorf("+400 Elo needed %d pairs, want a handful", n)
	}
}

func TestParseSPRT(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want SPRT
		err  string
	}{
		{"0,30", SPRT{Elo0: 0, Elo1: 30, Alpha: 0.05, Beta: 0.05}, ""},
		{" -5, 10 ,0.1,0.2", SPRT{Elo0: -5, Elo1: 10, Alpha: 0.1, Beta: 0.2}, ""},
		{"0", SPRT{}, "want ELO0,ELO1 or ELO0,ELO1,ALPHA,BETA"},
		{"0,30,0.1", SPRT{}, "want ELO0,ELO1 or ELO0,ELO1,ALPHA,BETA"},
		{"x,1", SPRT{}, `"x" is not a number`},
		{"30,0", SPRT{}, "want elo0 < elo1"},
		{"0,30,0.9,0.05", SPRT{}, "alpha = 0.9"},
	} {
		got, err := ParseSPRT(tc.in)
		switch {
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("%q: %+v, %v; want %+v", tc.in, got, err, tc.want)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%q: error %v, want one saying %q", tc.in, err, tc.err)
		}
	}
}
