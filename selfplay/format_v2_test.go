package selfplay

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"dama/internal/envelope"
)

// TestReadsVersion1 reads a file written by the version 1 writer (the
// commit before version 2), holding the games testGames(3) played then:
// the reader still reads version 1, and self-play with the default
// settings still plays the same games, with the same settings digest.
func TestReadsVersion1(t *testing.T) {
	h, games, err := ReadFile("testdata/games-v1.dgames")
	if err != nil {
		t.Fatal(err)
	}
	want := testHeader()
	want.Version, want.Games = 1, 3
	if !h.Created.Equal(want.Created) {
		t.Errorf("created %v, want %v", h.Created, want.Created)
	}
	h.Created = want.Created
	if h != want {
		t.Errorf("header %+v, want %+v", h, want)
	}
	// testGames changes the result fields of the first games to finish,
	// which vary from run to run: compare the plies, game by seed.
	now := map[uint64]*Game{}
	for _, g := range testGames(t, 3) {
		now[g.Seed] = g
	}
	for _, g := range games {
		ng, ok := now[g.Seed]
		if !ok || g.Start != ng.Start || !reflect.DeepEqual(g.Plies, ng.Plies) {
			t.Errorf("game of seed %d in the version 1 file differs from the game played now with the same settings", g.Seed)
		}
	}
	for _, g := range games {
		for i := range g.Plies {
			if g.Plies[i].Policy != nil {
				t.Fatalf("a version 1 ply has a policy target")
			}
		}
	}
}

// policyGames plays games and gives each full search a stored policy
// target, as the removed Gumbel root search did (its completed-Q policy):
// the visit distribution squared, quantised as files store it. Files of
// that search hold such targets (testdata/games-v2.dgames, -v3).
func policyGames(t testing.TB, n int) []*Game {
	t.Helper()
	games := playGames(t, testConfig(5, func(c *Config) { c.Visits, c.MaxPlies, c.CheapVisits, c.Parallel = 12, 40, 4, 2 }), n)
	for _, g := range games {
		for i := range g.Plies {
			p := &g.Plies[i]
			if !p.Full {
				continue
			}
			var sum float64
			for _, v := range p.Visits {
				sum += float64(v) * float64(v)
			}
			p.Policy = make([]float32, len(p.Visits))
			for j, v := range p.Visits {
				p.Policy[j] = policyValue(quantizePolicy(float32(float64(v) * float64(v) / sum)))
			}
		}
	}
	return games
}

func TestPolicyTargetRoundTrip(t *testing.T) {
	games := policyGames(t, 3)
	with := 0
	for _, g := range games {
		for i := range g.Plies {
			p := &g.Plies[i]
			if p.Policy == nil {
				continue
			}
			with++
			if !p.Full || len(p.Policy) != len(p.Legal) {
				t.Fatalf("ply %d: policy of %d for %d moves, full %v", i, len(p.Policy), len(p.Legal), p.Full)
			}
			var sum float64
			for _, x := range p.Policy {
				sum += float64(x)
			}
			if math.Abs(sum-1) > float64(len(p.Policy))/65535 {
				t.Errorf("ply %d: policy sums to %v", i, sum)
			}
		}
	}
	if with == 0 {
		t.Fatal("no policy targets recorded")
	}
	h, got, err := Decode(encode(t, testHeader(), games))
	if err != nil {
		t.Fatal(err)
	}
	if h.Version != FormatVersion || FormatVersion != 6 {
		t.Errorf("version %d (FormatVersion %d), want 6", h.Version, FormatVersion)
	}
	if !reflect.DeepEqual(got, games) {
		t.Errorf("games with policy targets read back differently")
	}
}

func TestPolicyTargetChecks(t *testing.T) {
	g := *policyGames(t, 1)[0]
	g.Plies = append([]Ply(nil), g.Plies[:1]...)
	g.Result, g.End, g.WouldResign, g.NoResign = 3, LengthCap, -1, false
	n := len(g.Plies[0].Legal)
	one := make([]float32, n)
	one[0] = 1
	g.Plies[0].Policy = one
	for _, tc := range []struct {
		name   string
		policy []float32
		msg    string
	}{
		{"short", one[:n-1], "policy values"},
		{"above 1", append([]float32{1.5}, one[1:]...), "outside [0,1]"},
		{"NaN", append([]float32{float32(math.NaN())}, one[1:]...), "outside [0,1]"},
		{"zeros", make([]float32, n), "zeros"},
	} {
		bad := g
		bad.Plies = []Ply{g.Plies[0]}
		bad.Plies[0].Policy = tc.policy
		if err := Encode(&bytes.Buffer{}, testHeader(), []*Game{&bad}); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: err %v, want one mentioning %q", tc.name, err, tc.msg)
		}
	}
	body, err := appendGame(nil, &g, FormatVersion)
	if err != nil {
		t.Fatal(err)
	}
	if _, games, err := Decode(rawFile(1, body)); err != nil || games[0].Plies[0].Policy[0] != 1 {
		t.Fatalf("valid body: err %v", err)
	}
	// Version 1 knows no policy flag.
	if _, _, err := Decode(rawFileVersion(1, 1, body)); !errors.Is(err, envelope.ErrMalformed) || !strings.Contains(err.Error(), "unknown flags") {
		t.Errorf("policy in a version 1 file: err %v", err)
	}
	// The policy is the last 2n bytes of the body: all zeros is corrupt.
	zero := append([]byte(nil), body...)
	clear(zero[len(zero)-2*n:])
	if _, _, err := Decode(rawFile(1, zero)); !errors.Is(err, envelope.ErrMalformed) || !strings.Contains(err.Error(), "zeros") {
		t.Errorf("zero policy: err %v", err)
	}
	if _, games, err := Decode(rawFileVersion(2, 1, body)); err != nil || games[0].Plies[0].Policy[0] != 1 {
		t.Errorf("policy in a version 2 file: err %v", err)
	}
	if _, _, err := Decode(rawFileVersion(7, 1, body)); !errors.Is(err, envelope.ErrVersion) {
		t.Errorf("version 7: err %v, want ErrVersion", err)
	}
}
