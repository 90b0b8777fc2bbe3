package model

import (
	"math/rand"
	"testing"

	"dama/mcts"
	"dama/rules"
)

// randomQuery is a position reached by random play, with its history
// counters and legal moves.
type randomQuery struct {
	pos   rules.Position
	rep   int
	quiet int
	legal []rules.Move
}

// randomPositions plays seeded random games from the start and returns n
// positions with at least one legal move, spread over whole games.
func randomPositions(rng *rand.Rand, n int) []randomQuery {
	var out []randomQuery
	buf := make([]rules.Move, 0, rules.MaxMoves)
	for len(out) < n {
		g := rules.NewGame(rules.Start())
		for ply := 0; ply < 300 && len(out) < n; ply++ {
			buf = g.Legal(buf)
			if len(buf) == 0 {
				break
			}
			if rng.Intn(3) == 0 {
				out = append(out, randomQuery{g.Position(), g.Repetitions(), g.QuietPlies(), append([]rules.Move(nil), buf...)})
			}
			g.PlayUnchecked(buf[rng.Intn(len(buf))])
		}
	}
	return out
}

// randomSamples makes training samples from random positions with random
// (but fixed) targets.
func randomSamples(rng *rand.Rand, n int) []Sample {
	var out []Sample
	for _, q := range randomPositions(rng, n) {
		p := make([]float32, len(q.legal))
		var s float32
		for i := range p {
			p[i] = rng.Float32() * rng.Float32()
			s += p[i]
		}
		for i := range p {
			p[i] /= s
		}
		var wdl [3]float32
		wdl[rng.Intn(3)] = 1
		out = append(out, Sample{Pos: q.pos, Repetitions: q.rep, QuietPlies: q.quiet, Legal: q.legal, Policy: p, WDL: wdl})
	}
	return out
}

func tinyNet(t testing.TB, seed int64) *Network {
	t.Helper()
	cfg, err := Preset("tiny")
	if err != nil {
		t.Fatal(err)
	}
	return NewNetwork(cfg, rand.New(rand.NewSource(seed)))
}

// perturbStats gives the network's batch norms non-trivial running
// statistics and scales, so folding them is actually tested.
func perturbStats(n *Network, rng *rand.Rand) {
	for i := range n.Tensors {
		t := &n.Tensors[i]
		for j := range t.Data {
			switch t.Kind {
			case BNMean, Bias:
				t.Data[j] = float32(rng.NormFloat64() * 0.3)
			case BNVar, Scale:
				t.Data[j] = float32(0.5 + rng.Float64())
			}
		}
	}
}

func queryOf(q randomQuery) mcts.Query {
	return mcts.Query{Pos: q.pos, Legal: q.legal, Repetitions: q.rep, QuietPlies: q.quiet}
}
