package export

import (
	"context"
	"encoding/json"
	"math"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"dama/mcts"
	"dama/model"
	"dama/model/infer"
	"dama/rules"
)

// TestONNXExample runs the README's ONNX Runtime example (ortcheck/example.js:
// FEN and legal moves in, W/D/L and priors out, its own encoder) and checks
// it against the model package's evaluator: Black to move, kings, history
// counters and two captures that share a policy index (issue 13, point 4).
func TestONNXExample(t *testing.T) {
	if testing.Short() {
		t.Skip("short mode: skipping the ONNX Runtime example (needs node and onnxruntime-node)")
	}
	harness := ortHarness(t)
	net := testNetwork(t, 1)
	_, _, modelPath := saveTempONNX(t, net)
	script, err := filepath.Abs(filepath.Join(harness, "example.js"))
	if err != nil {
		t.Fatal(err)
	}
	ev := infer.NewEvaluator(net, infer.EvaluatorOptions{MaxBatch: 1, Backend: infer.BackendFP32})
	defer ev.Close()
	for _, tc := range []struct {
		fen         string
		reps, quiet int
		sharedIndex bool
	}{
		{rules.StartFEN, 0, 0, false},
		{"B:W21,22,K31:B1,2,K10,12", 1, 17, false},
		{"W:WK21,31:B10,18,27", 2, 80, false},
		// The man on 18 reaches 2 over 14 and 6 or over 13 and 5: one index.
		{"W:W18:B5,6,13,14", 0, 3, true},
	} {
		p, err := rules.ParseFEN(tc.fen)
		if err != nil {
			t.Fatal(err)
		}
		legal := p.Legal(nil)
		args := []string{script, modelPath, tc.fen, "--repetitions", strconv.Itoa(tc.reps), "--quiet", strconv.Itoa(tc.quiet)}
		seen := map[int]int{}
		for _, m := range legal {
			args = append(args, m.String())
			seen[model.PolicyIndex(p, m)]++
		}
		shared := false
		for _, n := range seen {
			shared = shared || n > 1
		}
		if shared != tc.sharedIndex {
			t.Fatalf("%s: moves %v share an index: %v, want %v", tc.fen, legal, shared, tc.sharedIndex)
		}
		cmd := exec.Command("node", args...)
		cmd.Dir = harness
		out, err := cmd.Output()
		if err != nil {
			var stderr []byte
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = ee.Stderr
			}
			t.Fatalf("node example.js %s: %v\n%s", tc.fen, err, stderr)
		}
		var got struct {
			WDL    []float64          `json:"wdl"`
			Priors map[string]float64 `json:"priors"`
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("example output %q: %v", out, err)
		}
		var e mcts.Evaluation
		q := mcts.Query{Pos: p, Legal: legal, Repetitions: tc.reps, QuietPlies: tc.quiet}
		if err := ev.Evaluate(context.Background(), q, &e); err != nil {
			t.Fatal(err)
		}
		for i, w := range e.WDL {
			if math.Abs(got.WDL[i]-float64(w)) > 1e-4 {
				t.Errorf("%s: example W/D/L %v, evaluator %v", tc.fen, got.WDL, e.WDL)
				break
			}
		}
		for i, m := range legal {
			if g, ok := got.Priors[m.String()]; !ok || math.Abs(g-float64(e.Priors[i])) > 1e-4 {
				t.Errorf("%s: example prior of %s %v, evaluator %v", tc.fen, m, g, e.Priors[i])
			}
		}
	}
}
