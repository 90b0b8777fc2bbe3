package export

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"testing"

	"dama/model"
	"dama/rules"
)

// TestGoldenCheckpoint exports the sample checkpoint committed under
// model/testdata (written before the network spec of issue 11) and checks
// the float64 reference forward pass of the exported network, and of its
// JSON file read back, against the outputs recorded when it was written.
func TestGoldenCheckpoint(t *testing.T) {
	ck, err := model.Load("../testdata/sample-v1.ckpt")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("../testdata/sample-v1.outputs.json")
	if err != nil {
		t.Fatal(err)
	}
	var golden struct {
		Positions []string    `json:"positions"`
		Reps      []int       `json:"repetitions"`
		Quiet     []int       `json:"quiet_plies"`
		Policy    [][]float32 `json:"policy"`
		WDL       [][]float32 `json:"wdl"`
	}
	if err := json.Unmarshal(b, &golden); err != nil {
		t.Fatal(err)
	}
	folded, err := Fold(ck.Net)
	if err != nil {
		t.Fatal(err)
	}
	var js bytes.Buffer
	if err := writeJSON(&js, folded, nil); err != nil {
		t.Fatal(err)
	}
	back, err := ReadJSON(&js)
	if err != nil {
		t.Fatal(err)
	}
	n := len(golden.Positions)
	input := make([]float32, n*model.InputSize)
	pos := make([]rules.Position, n)
	for i, fen := range golden.Positions {
		if pos[i], err = rules.ParseFEN(fen); err != nil {
			t.Fatal(err)
		}
		model.Encode(input[i*model.InputSize:(i+1)*model.InputSize], pos[i], golden.Reps[i], golden.Quiet[i])
	}
	for _, net := range []*Net{folded, back} {
		policy := make([]float32, n*model.PolicySize)
		wdl := make([]float32, n*model.ValueSize)
		net.Forward(input, n, policy, wdl)
		for i := range pos {
			legal := rules.NewGame(pos[i]).Legal(nil)
			if len(legal) != len(golden.Policy[i]) {
				t.Fatalf("position %d: %d legal moves, golden file has %d logits", i, len(legal), len(golden.Policy[i]))
			}
			for j, mv := range legal {
				got, want := policy[i*model.PolicySize+model.PolicyIndex(pos[i], mv)], golden.Policy[i][j]
				if math.Abs(float64(got-want)) > 1e-4*math.Max(1, math.Abs(float64(want))) {
					t.Errorf("position %d move %d: logit %v, golden %v", i, j, got, want)
				}
			}
			l := golden.WDL[i]
			m := math.Max(float64(l[0]), math.Max(float64(l[1]), float64(l[2])))
			var z float64
			for _, v := range l {
				z += math.Exp(float64(v) - m)
			}
			for k, v := range l {
				if want := math.Exp(float64(v)-m) / z; math.Abs(float64(wdl[i*3+k])-want) > 1e-5 {
					t.Errorf("position %d wdl[%d] = %v, golden %v", i, k, wdl[i*3+k], want)
				}
			}
		}
	}
}
