package checkpoints

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"math"
	"os"
	"testing"

	"dama/model"
	"dama/model/infer"
	"dama/rules"
)

var update = flag.Bool("update", false, "rewrite testdata/shipped-outputs.json from the shipped model")

const outputsFile = "testdata/shipped-outputs.json"

// shippedOutputs are the fp32 outputs of the shipped model on fixed
// positions: the policy logit of each legal move and the W/D/L logits.
type shippedOutputs struct {
	ModelSHA  string `json:"model_sha256"`
	Note      string `json:"note"`
	Positions []struct {
		FEN    string             `json:"fen"`
		Policy map[string]float32 `json:"policy"`
		WDL    []float32          `json:"wdl"`
	} `json:"positions"`
}

// TestShippedOutputs holds the shipped model's fp32 outputs to those
// recorded before the network, training and inference code were split
// into packages (and to every later refactoring): the same network must
// give the same numbers. On the CPU they were recorded on (AVX2) they
// agree bit for bit; another kernel (AVX-512) sums in another order, so
// the test allows 1e-4 and logs how many agree exactly.
func TestShippedOutputs(t *testing.T) {
	ck, err := Shipped()
	if err != nil {
		t.Skip("no model shipped:", err)
	}
	b, err := shipped.ReadFile("shipped/" + ModelFile)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	sha := hex.EncodeToString(sum[:])
	data, err := os.ReadFile(outputsFile)
	if err != nil {
		t.Fatal(err)
	}
	var want shippedOutputs
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatalf("%s: %v", outputsFile, err)
	}
	if want.ModelSHA != sha && !*update {
		t.Fatalf("%s holds the outputs of model %s, the shipped one is %s: regenerate it with -update", outputsFile, want.ModelSHA, sha)
	}
	be, err := infer.NewBackend(infer.BackendFP32, ck.Net)
	if err != nil {
		t.Fatal(err)
	}
	n := len(want.Positions)
	if n == 0 {
		t.Fatalf("%s has no positions", outputsFile)
	}
	pos := make([]rules.Position, n)
	in := make([]float32, n*model.InputSize)
	for i, w := range want.Positions {
		if pos[i], err = rules.ParseFEN(w.FEN); err != nil {
			t.Fatalf("%s: position %d: %v", outputsFile, i, err)
		}
		model.Encode(in[i*model.InputSize:(i+1)*model.InputSize], pos[i], 0, 0)
	}
	pol, wdl := make([]float32, n*model.PolicySize), make([]float32, n*model.ValueSize)
	be.NewRunner(n).Forward(in, n, pol, wdl)
	if *update {
		want.ModelSHA = sha
		for i := range want.Positions {
			w := &want.Positions[i]
			w.WDL = append([]float32(nil), wdl[i*model.ValueSize:(i+1)*model.ValueSize]...)
			w.Policy = map[string]float32{}
			for _, m := range pos[i].Legal(nil) {
				w.Policy[m.String()] = pol[i*model.PolicySize+model.PolicyIndex(pos[i], m)]
			}
		}
		out, err := json.MarshalIndent(want, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(outputsFile, append(out, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	exact, total := 0, 0
	check := func(what string, got, w float32) {
		total++
		if got == w {
			exact++
		}
		if d := math.Abs(float64(got - w)); d > 1e-4 || math.IsNaN(d) {
			t.Errorf("%s: got %v, want %v", what, got, w)
		}
	}
	for i, w := range want.Positions {
		legal := pos[i].Legal(nil)
		if len(legal) != len(w.Policy) {
			t.Errorf("%s: %d legal moves, the record has %d", w.FEN, len(legal), len(w.Policy))
		}
		for _, m := range legal {
			v, ok := w.Policy[m.String()]
			if !ok {
				t.Errorf("%s: move %s not in the record", w.FEN, m)
				continue
			}
			check(w.FEN+" "+m.String(), pol[i*model.PolicySize+model.PolicyIndex(pos[i], m)], v)
		}
		for k, v := range w.WDL {
			check(w.FEN+" wdl", wdl[i*model.ValueSize+k], v)
		}
	}
	t.Logf("%d of %d outputs agree bit for bit", exact, total)
}
