package export

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"dama/mcts"
	"dama/model"
	"dama/model/infer"
	"dama/rules"
)

// field is one decoded protobuf field: a varint or a length-delimited value.
type field struct {
	num   int
	v     uint64
	bytes []byte
}

// Wire types, decoded here by hand so the test does not share the writer's
// encoder.
const (
	wireVarint = 0
	wireBytes  = 2
)

// decodePB splits a protobuf message into its fields (varint and
// length-delimited only, the two wire types the writer uses).
func decodePB(t *testing.T, b []byte) []field {
	t.Helper()
	var out []field
	for len(b) > 0 {
		key, n := binary.Uvarint(b)
		if n <= 0 {
			t.Fatalf("bad tag varint")
		}
		b = b[n:]
		f := field{num: int(key >> 3)}
		switch key & 7 {
		case wireVarint:
			f.v, n = binary.Uvarint(b)
			if n <= 0 {
				t.Fatalf("field %d: bad varint", f.num)
			}
			b = b[n:]
		case wireBytes:
			l, n := binary.Uvarint(b)
			if n <= 0 || uint64(len(b)-n) < l {
				t.Fatalf("field %d: bad length", f.num)
			}
			f.bytes = b[n : n+int(l)]
			b = b[n+int(l):]
		default:
			t.Fatalf("field %d: unexpected wire type %d", f.num, key&7)
		}
		out = append(out, f)
	}
	return out
}

func fieldsNamed(fs []field, num int) []field {
	var out []field
	for _, f := range fs {
		if f.num == num {
			out = append(out, f)
		}
	}
	return out
}

func TestONNXStructure(t *testing.T) {
	folded, err := Fold(testNetwork(t, 1))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := writeONNX(&buf, folded, Options{Metadata: []KV{{"dama.source", "test"}}}); err != nil {
		t.Fatal(err)
	}
	m := decodePB(t, buf.Bytes())
	if ir := fieldsNamed(m, 1); len(ir) != 1 || ir[0].v != onnxIRVersion {
		t.Errorf("ir_version fields %v, want one of %d", ir, onnxIRVersion)
	}
	opsets := fieldsNamed(m, 8)
	if len(opsets) != 1 {
		t.Fatalf("%d opset_import entries, want 1", len(opsets))
	}
	os := decodePB(t, opsets[0].bytes)
	if v := fieldsNamed(os, 2); len(v) != 1 || v[0].v != onnxOpset {
		t.Errorf("opset version %v, want %d", v, onnxOpset)
	}
	meta := map[string]string{}
	for _, e := range fieldsNamed(m, 14) {
		kv := decodePB(t, e.bytes)
		meta[string(fieldsNamed(kv, 1)[0].bytes)] = string(fieldsNamed(kv, 2)[0].bytes)
	}
	for _, k := range []string{"dama.input", "dama.planes", "dama.policy", "dama.wdl", "dama.board", "dama.config", "dama.source"} {
		if meta[k] == "" {
			t.Errorf("metadata_props lacks %s", k)
		}
	}
	graphs := fieldsNamed(m, 7)
	if len(graphs) != 1 {
		t.Fatalf("%d graphs, want 1", len(graphs))
	}
	g := decodePB(t, graphs[0].bytes)
	ops := map[string]int{}
	for _, nf := range fieldsNamed(g, 1) {
		ops[string(fieldsNamed(decodePB(t, nf.bytes), 4)[0].bytes)]++
	}
	blocks := folded.Config.Blocks
	want := map[string]int{"Transpose": 1, "Conv": 3 + 2*blocks, "Relu": 4 + 2*blocks, "Add": blocks, "Flatten": 2, "Gemm": 3, "Softmax": 1}
	if fmt.Sprint(ops) != fmt.Sprint(want) {
		t.Errorf("node counts %v, want %v", ops, want)
	}
	// Initializers: weight and bias of every conv and dense layer, with raw data of the right size.
	inits := fieldsNamed(g, 5)
	if len(inits) != 2*(3+2*blocks+3) {
		t.Errorf("%d initializers, want %d", len(inits), 2*(3+2*blocks+3))
	}
	for _, in := range inits {
		tf := decodePB(t, in.bytes)
		size := 1
		for _, d := range fieldsNamed(tf, 1) {
			size *= int(d.v)
		}
		name := string(fieldsNamed(tf, 8)[0].bytes)
		if raw := fieldsNamed(tf, 9); len(raw) != 1 || len(raw[0].bytes) != 4*size {
			t.Errorf("initializer %s: raw_data does not hold %d floats", name, size)
		}
	}
	// The input's first dimension is the symbolic batch.
	in := decodePB(t, fieldsNamed(g, 11)[0].bytes)
	typ := decodePB(t, fieldsNamed(in, 2)[0].bytes)
	tensor := decodePB(t, fieldsNamed(typ, 1)[0].bytes)
	dims := fieldsNamed(decodePB(t, fieldsNamed(tensor, 2)[0].bytes), 1)
	var shape []string
	for _, d := range dims {
		df := decodePB(t, d.bytes)
		if p := fieldsNamed(df, 2); len(p) == 1 {
			shape = append(shape, string(p[0].bytes))
		} else {
			shape = append(shape, strconv.FormatUint(fieldsNamed(df, 1)[0].v, 10))
		}
	}
	if got := fmt.Sprint(shape); got != "[N 8 4 9]" {
		t.Errorf("input shape %s, want [N 8 4 9]", got)
	}
}

// ortHarness returns a folder holding check.js with onnxruntime-node
// installed: $DAMA_ORTCHECK_DIR if set, ortcheck/ if its node_modules is
// there (CI runs "npm ci --ignore-scripts" in it), or a temporary copy in
// which the test runs npm ci itself.
func ortHarness(t testing.TB) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed: skipping the ONNX Runtime check (install Node.js and npm to run it)")
	}
	if d := os.Getenv("DAMA_ORTCHECK_DIR"); d != "" {
		return d
	}
	if _, err := os.Stat(filepath.Join("ortcheck", "node_modules", "onnxruntime-node")); err == nil {
		return "ortcheck"
	}
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm is not installed: skipping the ONNX Runtime check (install Node.js and npm to run it)")
	}
	dir := t.TempDir()
	for _, f := range []string{"package.json", "package-lock.json", "check.js", "example.js"} {
		b, err := os.ReadFile(filepath.Join("ortcheck", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm ci in a copy of ortcheck/ failed (network? set DAMA_ORTCHECK_DIR to a prepared copy): %v\n%s", err, out)
	}
	return dir
}

// TestONNXRuntime checks the exported file against ONNX Runtime: the same
// policy logits and WDL probabilities as Net.Forward, and the same priors
// and WDL as the model package's own inference, on a few hundred
// positions, to 1e-4. Networks: tiny, a tower without residual blocks, and
// small.
func TestONNXRuntime(t *testing.T) {
	if testing.Short() {
		t.Skip("short mode: skipping the ONNX Runtime check (needs node and onnxruntime-node)")
	}
	harness := ortHarness(t)
	small, err := model.Preset("small")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		cfg   model.Config
		batch int
	}{
		{"tiny", model.Config{}, 300},
		{"noblocks", model.Config{Name: "noblocks", Blocks: 0, Filters: 8, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 8}, 100},
		{"small", small, 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var net *model.Network
			if tc.name == "tiny" {
				net = testNetwork(t, 1)
			} else {
				net = testNetworkConfig(t, tc.cfg, 2)
			}
			checkRuntime(t, harness, net, tc.batch)
		})
	}
}

// saveTempONNX folds net and saves it as net.onnx in a new temporary
// directory; it returns the folded network, the directory and the file's
// path.
func saveTempONNX(tb testing.TB, net *model.Network) (folded *Net, dir, path string) {
	tb.Helper()
	folded, err := Fold(net)
	if err != nil {
		tb.Fatal(err)
	}
	dir = tb.TempDir()
	path = filepath.Join(dir, "net.onnx")
	if err := SaveONNX(path, folded, Options{}); err != nil {
		tb.Fatal(err)
	}
	return folded, dir, path
}

func checkRuntime(t *testing.T, harness string, net *model.Network, batch int) {
	t.Helper()
	folded, dir, modelPath := saveTempONNX(t, net)
	positions, input := testPositions(batch, 3)
	if err := os.WriteFile(filepath.Join(dir, "input.f32"), float32s(input), 0o644); err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs(filepath.Join(harness, "check.js"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", script, modelPath, filepath.Join(dir, "input.f32"), strconv.Itoa(batch), dir)
	cmd.Dir = harness
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node check.js: %v\n%s", err, stderr.String())
	}
	var summary struct {
		ORT         map[string]string `json:"ort"`
		InputNames  []string          `json:"inputNames"`
		OutputNames []string          `json:"outputNames"`
		Shapes      map[string][]int  `json:"shapes"`
	}
	if err := json.Unmarshal(out, &summary); err != nil {
		t.Fatalf("harness output %q: %v", out, err)
	}
	t.Logf("ONNX Runtime %v", summary.ORT)
	if fmt.Sprint(summary.InputNames) != "["+inputName+"]" || fmt.Sprint(summary.OutputNames) != "["+policyName+" "+wdlName+"]" {
		t.Fatalf("runtime sees inputs %v outputs %v", summary.InputNames, summary.OutputNames)
	}
	if fmt.Sprint(summary.Shapes[policyName]) != fmt.Sprint([]int{batch, model.PolicySize}) || fmt.Sprint(summary.Shapes[wdlName]) != fmt.Sprint([]int{batch, 3}) {
		t.Fatalf("output shapes %v", summary.Shapes)
	}
	wantP := make([]float32, batch*model.PolicySize)
	wantV := make([]float32, batch*3)
	folded.Forward(input, batch, wantP, wantV)
	gotP := compareFile(t, filepath.Join(dir, policyName+".f32"), wantP, 1e-4)
	gotV := compareFile(t, filepath.Join(dir, wdlName+".f32"), wantV, 1e-4)
	compareEvaluator(t, net, positions, input, gotP, gotV)
}

// compareEvaluator checks the runtime's outputs against the model package's
// own inference (infer.Evaluator): the priors over the legal moves (softmax
// of their logits) and the WDL probabilities, to 1e-4.
func compareEvaluator(t *testing.T, net *model.Network, positions []rules.Position, input, policy, wdl []float32) {
	t.Helper()
	ev := infer.NewEvaluator(net, infer.EvaluatorOptions{MaxBatch: 16, Backend: infer.BackendFP32})
	defer ev.Close()
	var e mcts.Evaluation
	var worst float64
	for b, p := range positions {
		// testPositions drew the history counters; recover them from the planes.
		in := input[b*model.InputSize:]
		reps := int(in[model.PlaneRepeated1] + in[model.PlaneRepeated2])
		quiet := int(math.Round(float64(in[model.PlaneQuiet]) * rules.QuietLimit))
		q := mcts.Query{Pos: p, Legal: p.Legal(nil), Repetitions: reps, QuietPlies: quiet}
		if err := ev.Evaluate(context.Background(), q, &e); err != nil {
			t.Fatal(err)
		}
		logits := policy[b*model.PolicySize : (b+1)*model.PolicySize]
		mx := math.Inf(-1)
		for _, m := range q.Legal {
			mx = math.Max(mx, float64(logits[model.PolicyIndex(p, m)]))
		}
		var sum float64
		for _, m := range q.Legal {
			sum += math.Exp(float64(logits[model.PolicyIndex(p, m)]) - mx)
		}
		for i, m := range q.Legal {
			want := math.Exp(float64(logits[model.PolicyIndex(p, m)])-mx) / sum
			d := math.Abs(float64(e.Priors[i]) - want)
			if !(d <= 1e-4) {
				t.Fatalf("position %d (%s) move %s: model prior %v, ONNX Runtime %v", b, p.FEN(), m, e.Priors[i], want)
			}
			worst = math.Max(worst, d)
		}
		for j := 0; j < 3; j++ {
			d := math.Abs(float64(e.WDL[j]) - float64(wdl[b*3+j]))
			if !(d <= 1e-4) {
				t.Fatalf("position %d (%s) WDL[%d]: model %v, ONNX Runtime %v", b, p.FEN(), j, e.WDL[j], wdl[b*3+j])
			}
			worst = math.Max(worst, d)
		}
	}
	t.Logf("infer.Evaluator vs ONNX Runtime on %d positions: largest difference %.3g", len(positions), worst)
}

// compareFile checks a raw float32 output file against want and returns its values.
func compareFile(t *testing.T, path string, want []float32, tol float64) []float32 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != 4*len(want) {
		t.Fatalf("%s: %d bytes, want %d", filepath.Base(path), len(b), 4*len(want))
	}
	var worst float64
	out := make([]float32, len(want))
	for i, w := range want {
		got := math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		out[i] = got
		d := math.Abs(float64(got) - float64(w))
		if !(d <= tol) {
			t.Fatalf("%s[%d] = %v, want %v (tolerance %g)", filepath.Base(path), i, got, w, tol)
		}
		worst = math.Max(worst, d)
	}
	t.Logf("%s: %d values, largest difference from Net.Forward %.3g", filepath.Base(path), len(want), worst)
	return out
}
