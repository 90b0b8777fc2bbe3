// Package modeltest provides the fixtures the tests of dama/model,
// dama/model/learn and dama/model/infer share: positions of seeded random
// games, small seeded networks and batch-norm statistics worth folding.
// Only tests import it.
package modeltest

import (
	"context"
	"math/rand"
	"testing"
	"time"

	"dama/internal/cputime"
	"dama/mcts"
	"dama/model"
	"dama/rules"
)

// RandomPositions plays seeded random games from the start and returns n
// positions with at least one legal move, spread over whole games, with
// their history counters and legal moves.
func RandomPositions(rng *rand.Rand, n int) []mcts.Query {
	var out []mcts.Query
	buf := make([]rules.Move, 0, rules.MaxMoves)
	for len(out) < n {
		g := rules.NewGame(rules.Start())
		for ply := 0; ply < 300 && len(out) < n; ply++ {
			buf = g.Legal(buf)
			if len(buf) == 0 {
				break
			}
			if rng.Intn(3) == 0 {
				out = append(out, mcts.Query{Pos: g.Position(), Legal: append([]rules.Move(nil), buf...), Repetitions: g.Repetitions(), QuietPlies: g.QuietPlies()})
			}
			g.PlayUnchecked(buf[rng.Intn(len(buf))])
		}
	}
	return out
}

// TinyNet returns a network of the tiny preset initialised from seed.
func TinyNet(t testing.TB, seed int64) *model.Network {
	t.Helper()
	cfg, err := model.Preset("tiny")
	if err != nil {
		t.Fatal(err)
	}
	return model.NewNetwork(cfg, rand.New(rand.NewSource(seed)))
}

// PerturbStats gives the network's batch norms non-trivial running
// statistics and scales, so folding them is actually tested.
func PerturbStats(n *model.Network, rng *rand.Rand) {
	for i := range n.Tensors {
		t := &n.Tensors[i]
		for j := range t.Data {
			switch t.Kind {
			case model.BNMean, model.Bias:
				t.Data[j] = float32(rng.NormFloat64() * 0.3)
			case model.BNVar, model.Scale:
				t.Data[j] = float32(0.5 + rng.Float64())
			}
		}
	}
}

// RandomTargets returns random (but seeded) training targets for q: a
// policy over its legal moves summing to 1 and a one-hot win/draw/loss.
func RandomTargets(rng *rand.Rand, q mcts.Query) (policy []float32, wdl [3]float32) {
	policy = make([]float32, len(q.Legal))
	var s float32
	for i := range policy {
		policy[i] = rng.Float32() * rng.Float32()
		s += policy[i]
	}
	for i := range policy {
		policy[i] /= s
	}
	wdl[rng.Intn(3)] = 1
	return policy, wdl
}

// CPUTime returns the CPU time the process has used (0 where it cannot be
// measured, and the benchmarks leave out their per-CPU-second metrics): on
// a shared machine, work per CPU-second is steadier than work per
// wall-clock second.
func CPUTime() time.Duration {
	d, _ := cputime.Process()
	return d
}

// PerturbedNet returns a network of cfg initialised from a rand seeded
// with seed, with its batch norms perturbed (PerturbStats), and that rand
// for what the test draws next.
func PerturbedNet(cfg model.Config, seed int64) (*model.Network, *rand.Rand) {
	rng := rand.New(rand.NewSource(seed))
	n := model.NewNetwork(cfg, rng)
	PerturbStats(n, rng)
	return n, rng
}

// EncodeAll encodes qs one after another into dst, a batch of len(qs)
// positions (len(qs)*InputSize values) as a forward pass reads it.
func EncodeAll(dst []float32, qs []mcts.Query) {
	for i, q := range qs {
		model.Encode(dst[i*model.InputSize:(i+1)*model.InputSize], q.Pos, q.Repetitions, q.QuietPlies)
	}
}

// EvaluateBoth evaluates q with a, then with b, and stops the test at an
// error.
func EvaluateBoth(t testing.TB, a, b mcts.Evaluator, q mcts.Query) (ea, eb mcts.Evaluation) {
	t.Helper()
	if err := a.Evaluate(context.Background(), q, &ea); err != nil {
		t.Fatal(err)
	}
	if err := b.Evaluate(context.Background(), q, &eb); err != nil {
		t.Fatal(err)
	}
	return ea, eb
}
