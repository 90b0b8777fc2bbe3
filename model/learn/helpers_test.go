package learn

import (
	"encoding/binary"
	"math/rand"
	"testing"

	"dama/internal/envelope"
	"dama/model"
	"dama/model/infer"
	"dama/model/modeltest"
)

// randomSamples makes training samples from random positions with random
// (but fixed) targets.
func randomSamples(rng *rand.Rand, n int) []Sample {
	var out []Sample
	for _, q := range modeltest.RandomPositions(rng, n) {
		p, wdl := modeltest.RandomTargets(rng, q)
		out = append(out, Sample{Pos: q.Pos, Repetitions: q.Repetitions, QuietPlies: q.QuietPlies, Legal: q.Legal, Policy: p, WDL: wdl})
	}
	return out
}

// trainSteps trains net with opts on samples (one batch) for steps steps
// and returns the trainer (closed when the test ends) and each step's
// losses; it stops the test at the first error.
func trainSteps(t *testing.T, net *model.Network, opts TrainOptions, samples []Sample, steps int) (*Trainer, []Losses) {
	t.Helper()
	tr, err := NewTrainer(&model.Checkpoint{Net: net}, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tr.Close)
	var ls []Losses
	for i := 0; i < steps; i++ {
		l, err := tr.Step(samples)
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
	}
	return tr, ls
}

// fp32Forward runs the fp32 inference backend on batch encoded positions
// and returns its policy and value logits.
func fp32Forward(t testing.TB, net *model.Network, input []float32, batch int) (policy, wdl []float32) {
	t.Helper()
	b, err := infer.NewBackend(infer.BackendFP32, net)
	if err != nil {
		t.Fatal(err)
	}
	policy = make([]float32, batch*model.PolicySize)
	wdl = make([]float32, batch*model.ValueSize)
	b.NewRunner(batch).Forward(input[:batch*model.InputSize], batch, policy, wdl)
	return policy, wdl
}

// reseal rewrites the checksum of a checkpoint file after a test changed
// its contents.
func reseal(b []byte) []byte {
	end := len(b) - 4
	binary.LittleEndian.PutUint32(b[end:], envelope.Checksum(b[:end]))
	return b
}
