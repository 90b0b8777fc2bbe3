package export

import (
	"bytes"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"dama/model"
	"dama/rules"
)

// testNetwork returns a tiny network with random weights and batch-norm
// statistics far from the identity, so folding is exercised.
func testNetwork(t testing.TB, seed int64) *model.Network {
	t.Helper()
	cfg, err := model.Preset("tiny")
	if err != nil {
		t.Fatal(err)
	}
	return testNetworkConfig(t, cfg, seed)
}

// testNetworkConfig is testNetwork for any config.
func testNetworkConfig(t testing.TB, cfg model.Config, seed int64) *model.Network {
	t.Helper()
	rng := rand.New(rand.NewSource(seed))
	n := model.NewNetwork(cfg, rng)
	for i := range n.Tensors {
		tt := &n.Tensors[i]
		for j := range tt.Data {
			switch tt.Kind {
			case model.Scale:
				tt.Data[j] = float32(0.5 + rng.Float64())
			case model.Bias:
				tt.Data[j] = float32(0.4 * (rng.Float64() - 0.5))
			case model.BNMean:
				tt.Data[j] = float32(0.6 * (rng.Float64() - 0.5))
			case model.BNVar:
				tt.Data[j] = float32(0.5 + 1.5*rng.Float64())
			case model.Weight:
				if tt.Name == "policy/dense/w" || tt.Name == "value/dense2/w" {
					tt.Data[j] *= 30 // make the outputs far from uniform
				}
			}
		}
	}
	if err := n.Check(); err != nil {
		t.Fatal(err)
	}
	return n
}

// testPositions returns n encoded positions from seeded random games (both
// sides to move, kings, random history counters).
func testPositions(n int, seed int64) ([]rules.Position, []float32) {
	rng := rand.New(rand.NewSource(seed))
	var pos []rules.Position
	input := make([]float32, 0, n*model.InputSize)
	buf := make([]rules.Move, 0, rules.MaxMoves)
	enc := make([]float32, model.InputSize)
	p := rules.Start()
	for len(pos) < n {
		buf = p.Legal(buf)
		if len(buf) == 0 {
			p = rules.Start()
			continue
		}
		pos = append(pos, p)
		model.Encode(enc, p, rng.Intn(3), rng.Intn(rules.QuietLimit+1))
		input = append(input, enc...)
		p = p.Play(buf[rng.Intn(len(buf))])
	}
	return pos, input
}

// unfoldedForward computes the network straight from model.Network, batch
// norms applied explicitly, for one NHWC input.
func unfoldedForward(n *model.Network, in []float32) (policy []float64, wdl [3]float64) {
	const hw = model.Squares
	tensor := func(name string) []float32 { return n.Tensor(name).Data }
	conv := func(x []float64, cin int, name, bn string) []float64 {
		w := n.Tensor(name)
		cout, k := w.Shape[0], w.Shape[2]
		g, b, m, v := tensor(bn+"/gamma"), tensor(bn+"/beta"), tensor(bn+"/mean"), tensor(bn+"/var")
		out := make([]float64, cout*hw)
		for o := 0; o < cout; o++ {
			for y := 0; y < model.Rows; y++ {
				for xx := 0; xx < model.Cols; xx++ {
					var s float64
					for i := 0; i < cin; i++ {
						for ky := 0; ky < k; ky++ {
							for kx := 0; kx < k; kx++ {
								yy, xs := y+ky-k/2, xx+kx-k/2
								if yy < 0 || yy >= model.Rows || xs < 0 || xs >= model.Cols {
									continue
								}
								s += float64(w.Data[((o*cin+i)*k+ky)*k+kx]) * x[i*hw+yy*model.Cols+xs]
							}
						}
					}
					s = (s-float64(m[o]))/math.Sqrt(float64(v[o])+model.BNEpsilon)*float64(g[o]) + float64(b[o])
					out[o*hw+y*model.Cols+xx] = s
				}
			}
		}
		return out
	}
	relu := func(x []float64) []float64 {
		for i := range x {
			x[i] = math.Max(x[i], 0)
		}
		return x
	}
	dense := func(x []float64, name string) []float64 {
		w, b := n.Tensor(name+"/w"), tensor(name+"/b")
		out := make([]float64, w.Shape[1])
		for j := range out {
			out[j] = float64(b[j])
			for i := range x {
				out[j] += x[i] * float64(w.Data[i*w.Shape[1]+j])
			}
		}
		return out
	}
	x := make([]float64, model.NumPlanes*hw)
	for p := 0; p < hw; p++ {
		for c := 0; c < model.NumPlanes; c++ {
			x[c*hw+p] = float64(in[p*model.NumPlanes+c])
		}
	}
	F := n.Config.Filters
	x = relu(conv(x, model.NumPlanes, "input/conv", "input/bn"))
	for i := 0; i < n.Config.Blocks; i++ {
		p := fmt.Sprintf("block%d", i)
		y := relu(conv(x, F, p+"/conv1", p+"/bn1"))
		y = conv(y, F, p+"/conv2", p+"/bn2")
		for j := range y {
			y[j] += x[j]
		}
		x = relu(y)
	}
	policy = dense(relu(conv(x, F, "policy/conv", "policy/bn")), "policy/dense")
	v := dense(relu(dense(relu(conv(x, F, "value/conv", "value/bn")), "value/dense1")), "value/dense2")
	mx := math.Max(v[0], math.Max(v[1], v[2]))
	var sum float64
	for j := range v {
		wdl[j] = math.Exp(v[j] - mx)
		sum += wdl[j]
	}
	for j := range wdl {
		wdl[j] /= sum
	}
	return policy, wdl
}

func TestFoldMatchesUnfolded(t *testing.T) {
	net := testNetwork(t, 1)
	folded, err := Fold(net)
	if err != nil {
		t.Fatal(err)
	}
	const batch = 20
	_, input := testPositions(batch, 2)
	policy := make([]float32, batch*model.PolicySize)
	wdl := make([]float32, batch*3)
	folded.Forward(input, batch, policy, wdl)
	var spread float64
	for b := 0; b < batch; b++ {
		wantP, wantV := unfoldedForward(net, input[b*model.InputSize:(b+1)*model.InputSize])
		for j, w := range wantP {
			if got := float64(policy[b*model.PolicySize+j]); math.Abs(got-w) > 1e-4 {
				t.Fatalf("position %d policy[%d] = %v, want %v", b, j, got, w)
			}
		}
		for j, w := range wantV {
			if got := float64(wdl[b*3+j]); math.Abs(got-w) > 1e-5 {
				t.Fatalf("position %d wdl[%d] = %v, want %v", b, j, got, w)
			}
		}
		spread += math.Abs(wantV[0] - wantV[2])
	}
	if spread/batch < 0.01 {
		t.Errorf("test network's WDL is nearly uniform (mean |W-L| %.4f); the comparison proves little", spread/batch)
	}
}

func TestFoldRejectsBadNetwork(t *testing.T) {
	net := testNetwork(t, 1)
	net.Tensor("block1/bn2/var").Data[3] = float32(math.NaN())
	if _, err := Fold(net); err == nil {
		t.Fatal("Fold accepted a NaN variance")
	}
	net = testNetwork(t, 1)
	net.Tensors = net.Tensors[:len(net.Tensors)-1]
	if _, err := Fold(net); err == nil {
		t.Fatal("Fold accepted a network with a missing tensor")
	}
}

// TestFoldCheckpointMetadata: the metadata names the source and step
// always, the parent and creation time only where the checkpoint has them.
func TestFoldCheckpointMetadata(t *testing.T) {
	ck := &model.Checkpoint{Net: testNetwork(t, 1), Step: 42}
	_, meta, err := FoldCheckpoint(ck, "a.ckpt")
	if err != nil {
		t.Fatal(err)
	}
	if want := []KV{{"dama.source", "a.ckpt"}, {"dama.step", "42"}}; fmt.Sprint(meta) != fmt.Sprint(want) {
		t.Errorf("metadata %v, want %v", meta, want)
	}
	ck.Meta.Parent, ck.Meta.Created = "p.ckpt", time.Date(2026, 12, 1, 10, 0, 0, 0, time.FixedZone("x", 3600))
	_, meta, err = FoldCheckpoint(ck, "a.ckpt")
	if err != nil {
		t.Fatal(err)
	}
	if len(meta) != 4 || meta[2] != (KV{"dama.parent", "p.ckpt"}) || meta[3] != (KV{"dama.created", "2026-12-01T09:00:00Z"}) {
		t.Errorf("metadata %v: want the parent and the UTC creation time", meta)
	}
}

// SaveCheckpoint writes the folded network in the format asked, the JSON
// reading back to it, and refuses another format writing nothing.
func TestSaveCheckpoint(t *testing.T) {
	ck := &model.Checkpoint{Net: testNetwork(t, 1), Step: 7}
	dir := t.TempDir()
	for _, format := range []string{"onnx", "json"} {
		path := filepath.Join(dir, "m."+format)
		if err := SaveCheckpoint(path, format, ck, "a.ckpt", "test"); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		data, err := os.ReadFile(path)
		if err != nil || len(data) == 0 {
			t.Fatalf("%s: %d bytes, %v", format, len(data), err)
		}
		if format == "json" {
			n, err := ReadJSON(bytes.NewReader(data))
			want, _, ferr := FoldCheckpoint(ck, "a.ckpt")
			if err != nil || ferr != nil || len(n.Layers) != len(want.Layers) {
				t.Errorf("json reads back: %v %v", err, ferr)
			}
		}
	}
	bad := filepath.Join(dir, "m.txt")
	if err := SaveCheckpoint(bad, "txt", ck, "a.ckpt", "test"); err == nil || !strings.Contains(err.Error(), `format "txt"`) {
		t.Errorf("format txt: got %v", err)
	}
	if _, err := os.Stat(bad); err == nil {
		t.Error("format txt wrote a file")
	}
}
