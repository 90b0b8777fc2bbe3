package learn

import (
	"encoding/json"
	"flag"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	"dama/internal/atomicfile"
	"dama/model"
	"dama/model/modeltest"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// The sample checkpoint was written by the code before the network spec,
// the backend seam and the protowire ONNX writer (issue 11): a small custom
// network (2 blocks of 8 filters, heads of one channel, so the file stays
// near 400 kB) after three Adam steps from perturbed batch-norm statistics,
// so every section of the file holds real data. Its outputs
// on fixed positions were recorded at the same time; the current code must
// load the file and reproduce them.
const (
	goldenCheckpoint = "../testdata/sample-v1.ckpt"
	goldenOutputs    = "../testdata/sample-v1.outputs.json"
)

type goldenFile struct {
	Positions []string    `json:"positions"` // FEN, repetitions and quiet plies below
	Reps      []int       `json:"repetitions"`
	Quiet     []int       `json:"quiet_plies"`
	Policy    [][]float32 `json:"policy"` // logits of the legal moves' indices, in legal order
	WDL       [][]float32 `json:"wdl"`    // value logits
}

func goldenCheckpointNet(t *testing.T) *model.Checkpoint {
	rng := rand.New(rand.NewSource(77))
	cfg := model.Config{Name: "golden", Blocks: 2, Filters: 8, PolicyFilters: 1, ValueFilters: 1, ValueHidden: 8}
	net := model.NewNetwork(cfg, rng)
	modeltest.PerturbStats(net, rng)
	tr, err := NewTrainer(&model.Checkpoint{Net: net, Meta: model.Meta{Note: "golden sample (issue 11)"}}, TrainOptions{Batch: 8})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	data := randomSamples(rng, 8)
	for i := 0; i < 3; i++ {
		if _, err := tr.Step(data); err != nil {
			t.Fatal(err)
		}
	}
	return tr.Checkpoint()
}

func TestGoldenCheckpoint(t *testing.T) {
	qs := modeltest.RandomPositions(rand.New(rand.NewSource(78)), 24)
	if *update {
		ck := goldenCheckpointNet(t)
		if err := ck.Save(goldenCheckpoint); err != nil {
			t.Fatal(err)
		}
	}
	ck, err := model.Load(goldenCheckpoint)
	if err != nil {
		t.Fatal(err)
	}
	input := make([]float32, len(qs)*model.InputSize)
	modeltest.EncodeAll(input, qs)
	policy, wdl := fp32Forward(t, ck.Net, input, len(qs))
	var got goldenFile
	for i, q := range qs {
		got.Positions = append(got.Positions, q.Pos.FEN())
		got.Reps = append(got.Reps, q.Repetitions)
		got.Quiet = append(got.Quiet, q.QuietPlies)
		var p []float32
		for _, mv := range q.Legal {
			p = append(p, policy[i*model.PolicySize+model.PolicyIndex(q.Pos, mv)])
		}
		got.Policy = append(got.Policy, p)
		got.WDL = append(got.WDL, append([]float32(nil), wdl[i*model.ValueSize:(i+1)*model.ValueSize]...))
	}
	if *update {
		b, err := json.MarshalIndent(&got, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		if err := atomicfile.WriteFile(goldenOutputs, append(b, '\n')); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(filepath.FromSlash(goldenOutputs))
	if err != nil {
		t.Fatal(err)
	}
	var want goldenFile
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	if len(want.Positions) != len(qs) {
		t.Fatalf("golden file has %d positions, test makes %d", len(want.Positions), len(qs))
	}
	const tol = 1e-5
	for i := range qs {
		if got.Positions[i] != want.Positions[i] || got.Reps[i] != want.Reps[i] || got.Quiet[i] != want.Quiet[i] {
			t.Fatalf("position %d is %s (%d, %d), golden file has %s (%d, %d)", i,
				got.Positions[i], got.Reps[i], got.Quiet[i], want.Positions[i], want.Reps[i], want.Quiet[i])
		}
		check := func(what string, g, w []float32) {
			if len(g) != len(w) {
				t.Fatalf("position %d %s: %d values, golden %d", i, what, len(g), len(w))
			}
			for j := range g {
				if d := math.Abs(float64(g[j] - w[j])); d > tol*math.Max(1, math.Abs(float64(w[j]))) {
					t.Errorf("position %d %s[%d] = %v, golden %v", i, what, j, g[j], w[j])
				}
			}
		}
		check("policy", got.Policy[i], want.Policy[i])
		check("wdl", got.WDL[i], want.WDL[i])
	}
}
