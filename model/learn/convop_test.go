package learn

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"dama/internal/floatcmp"
	"dama/model"
)

// convGraphResult is what convGraph computes: the convolution's output and
// the gradients of sum(y * r) with respect to the images (nil when not
// asked for) and the filter.
type convGraphResult struct {
	y, dx, dw []float32
}

// convGraph convolves x (B, cin, 8, 4) by w (cout, cin, k, k) in a float32
// graph, with conv2d (ours, on the images transposed to NHWC) or Gorgonia's
// Conv2d, and differentiates sum(y * r). Images and their gradients are
// passed and returned NCHW.
func convGraph(t *testing.T, ours bool, k, B, cin, cout int, x, w, r []float32, inputGrad bool) convGraphResult {
	t.Helper()
	g := G.NewGraph()
	mk := func(name string, shape []int, data []float32) *G.Node {
		return G.NewTensor(g, tensor.Float32, 4, G.WithShape(shape...), G.WithName(name),
			G.WithValue(tensor.New(tensor.WithShape(shape...), tensor.WithBacking(append([]float32(nil), data...)))))
	}
	xn := mk("x", []int{B, cin, model.Rows, model.Cols}, x)
	wn := mk("w", []int{cout, cin, k, k}, w)
	rn := mk("r", []int{B, cout, model.Rows, model.Cols}, r)
	if ours {
		xn = mk("x", []int{B, model.Rows, model.Cols, cin}, nhwc(x, B, cin))
		rn = mk("r", []int{B, model.Rows, model.Cols, cout}, nhwc(r, B, cout))
	}
	var y *G.Node
	var err error
	if ours {
		y, err = conv2d(xn, wn, k, inputGrad)
	} else {
		pad := (k - 1) / 2
		y, err = G.Conv2d(xn, wn, tensor.Shape{k, k}, []int{pad, pad}, []int{1, 1}, []int{1, 1})
	}
	if err != nil {
		t.Fatal(err)
	}
	cost := G.Must(G.Sum(G.Must(G.HadamardProd(y, rn))))
	wrt := G.Nodes{wn}
	if inputGrad {
		wrt = append(wrt, xn)
	}
	if _, err := G.Grad(cost, wrt...); err != nil {
		t.Fatal(err)
	}
	vm := G.NewTapeMachine(g, G.BindDualValues(wrt...))
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	grad := func(n *G.Node) []float32 {
		gv, err := n.Grad()
		if err != nil {
			t.Fatal(err)
		}
		return append([]float32(nil), gv.Data().([]float32)...)
	}
	res := convGraphResult{y: append([]float32(nil), y.Value().Data().([]float32)...), dw: grad(wn)}
	if inputGrad {
		res.dx = grad(xn)
	}
	if ours {
		res.y = nchw(res.y, B, cout)
		if inputGrad {
			res.dx = nchw(res.dx, B, cin)
		}
	}
	return res
}

// nhwc returns NCHW images of c channels on the board transposed to NHWC.
func nhwc(x []float32, batch, c int) []float32 {
	if x == nil {
		return nil
	}
	out := make([]float32, len(x))
	toNHWC(out, x, batch, c, model.Squares)
	return out
}

// nchw returns NHWC images of c channels on the board transposed to NCHW.
func nchw(x []float32, batch, c int) []float32 {
	out := make([]float32, len(x))
	toNCHW(out, x, batch, c, model.Squares)
	return out
}

// The kernel convolution op computes the same outputs and gradients as
// Gorgonia's Conv2d (im2col, matrix product, col2im), in float32.
func TestConvOpMatchesConv2d(t *testing.T) {
	rng := rand.New(rand.NewSource(21))
	normals := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(rng.NormFloat64())
		}
		return v
	}
	for _, tc := range []struct {
		k, B, cin, cout int
		inputGrad       bool
	}{
		{3, 5, 6, 7, true},
		{3, 3, 17, 40, true}, // partial tiles of the micro-kernels
		{3, 2, 5, 16, false}, // the input layer: no image gradient
		{1, 5, 12, 3, true},
		{1, 1, 3, 2, true},
	} {
		name := fmt.Sprintf("k=%d/B=%d/cin=%d/cout=%d/dx=%t", tc.k, tc.B, tc.cin, tc.cout, tc.inputGrad)
		t.Run(name, func(t *testing.T) {
			x := normals(tc.B * tc.cin * model.Squares)
			w := normals(tc.cout * tc.cin * tc.k * tc.k)
			r := normals(tc.B * tc.cout * model.Squares)
			got := convGraph(t, true, tc.k, tc.B, tc.cin, tc.cout, x, w, r, tc.inputGrad)
			want := convGraph(t, false, tc.k, tc.B, tc.cin, tc.cout, x, w, r, tc.inputGrad)
			check := func(what string, a, b []float32) {
				t.Helper()
				if len(a) != len(b) {
					t.Fatalf("%s: %d values, want %d", what, len(a), len(b))
				}
				if d := floatcmp.RelErr(a, b); d > 1e-4 {
					t.Errorf("%s differs from Conv2d by %.2g (relative)", what, d)
				}
			}
			check("output", got.y, want.y)
			check("filter gradient", got.dw, want.dw)
			if tc.inputGrad {
				check("image gradient", got.dx, want.dx)
			}
		})
	}
}

// The op rejects values of the wrong dtype or shape with an error.
func TestConvOpRejectsBadValues(t *testing.T) {
	op := convOp{k: 3, batch: 2, cin: 3, cout: 4, h: model.Rows, w: model.Cols, inputGrad: true}
	x32 := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(2, model.Rows, model.Cols, 3))
	w32 := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(4, 3, 3, 3))
	if _, err := op.Do(x32, w32); err != nil {
		t.Fatalf("good values: %v", err)
	}
	x64 := tensor.New(tensor.Of(tensor.Float64), tensor.WithShape(2, model.Rows, model.Cols, 3))
	if _, err := op.Do(x64, w32); err == nil || !strings.Contains(err.Error(), "float32") {
		t.Errorf("float64 image: error %v", err)
	}
	wBad := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(4, 3, 1, 1))
	if _, err := op.Do(x32, wBad); err == nil || !strings.Contains(err.Error(), "filter") {
		t.Errorf("1x1 filter for a 3x3 op: error %v", err)
	}
	if _, err := (convGradOp{convOp: op, filter: true}).Do(x32); err == nil {
		t.Error("one input to the filter gradient: no error")
	}
}

// bnReLUGraph computes y = max(0, BN(x)*gamma + beta (+ res)) in training
// mode in a float32 graph, with bnOp and affineReLU (ours, on the images
// transposed to NHWC) or Gorgonia's BatchNorm, Add and Rectify. It returns y, the running mean and variance
// after the step (from mean0 and var0), and the gradients of sum(y * r)
// with respect to x, gamma, beta and res.
func bnReLUGraph(t *testing.T, ours bool, B, C int, x, gamma, beta, res, r, mean0, var0 []float32) [][]float32 {
	t.Helper()
	g := G.NewGraph()
	mk := func(name string, shape []int, data []float32) *G.Node {
		return G.NewTensor(g, tensor.Float32, 4, G.WithShape(shape...), G.WithName(name),
			G.WithValue(tensor.New(tensor.WithShape(shape...), tensor.WithBacking(append([]float32(nil), data...)))))
	}
	shape := []int{B, C, model.Rows, model.Cols}
	if ours {
		shape = []int{B, model.Rows, model.Cols, C}
		x, r, res = nhwc(x, B, C), nhwc(r, B, C), nhwc(res, B, C)
	}
	xn := mk("x", shape, x)
	gn := mk("gamma", []int{1, C, 1, 1}, gamma)
	bn := mk("beta", []int{1, C, 1, 1}, beta)
	rn := mk("r", shape, r)
	wrt := G.Nodes{xn, gn, bn}
	var resn *G.Node
	if res != nil {
		resn = mk("res", shape, res)
		wrt = append(wrt, resn)
	}
	var y *G.Node
	var stats statsOp
	if ours {
		op, err := newBNOp(shape, 0.9, model.BNEpsilon)
		if err != nil {
			t.Fatal(err)
		}
		stats = op
		y = G.Must(affineReLU(G.Must(G.ApplyOp(op, xn)), gn, bn, resn))
	} else {
		z, _, _, op, err := G.BatchNorm(xn, gn, bn, 0.9, model.BNEpsilon)
		if err != nil {
			t.Fatal(err)
		}
		stats = op
		if resn != nil {
			z = G.Must(G.Add(z, resn))
		}
		y = G.Must(G.Rectify(z))
	}
	cost := G.Must(G.Sum(G.Must(G.HadamardProd(y, rn))))
	if _, err := G.Grad(cost, wrt...); err != nil {
		t.Fatal(err)
	}
	vm := G.NewTapeMachine(g, G.BindDualValues(wrt...))
	defer vm.Close()
	if err := stats.SetStats(tensor.New(tensor.WithBacking(append([]float32(nil), mean0...))), tensor.New(tensor.WithBacking(append([]float32(nil), var0...)))); err != nil {
		t.Fatal(err)
	}
	if err := vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	m, v := stats.Stats()
	out := [][]float32{
		append([]float32(nil), y.Value().Data().([]float32)...),
		append([]float32(nil), m.Data().([]float32)...),
		append([]float32(nil), v.Data().([]float32)...),
	}
	for _, n := range wrt {
		gv, err := n.Grad()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, append([]float32(nil), gv.Data().([]float32)...))
	}
	if ours { // back to NCHW: the output and the image and residual gradients
		for _, i := range []int{0, 3, 6} {
			if i < len(out) {
				out[i] = nchw(out[i], B, C)
			}
		}
	}
	return out
}

// The batch norm op and the fused scale, residual and ReLU op compute the
// same outputs, running statistics and gradients as Gorgonia's BatchNorm,
// Add and Rectify.
func TestAffineReLUMatchesGorgonia(t *testing.T) {
	rng := rand.New(rand.NewSource(22))
	normals := func(n int, mean float64) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(mean + rng.NormFloat64())
		}
		return v
	}
	for _, residual := range []bool{false, true} {
		const B, C = 6, 5
		n := B * C * model.Squares
		x, r := normals(n, 0.5), normals(n, 0)
		gamma, beta := normals(C, 1), normals(C, 0)
		var res []float32
		if residual {
			res = normals(n, 0)
		}
		mean0, var0 := normals(C, 0), normals(C, 3)
		got := bnReLUGraph(t, true, B, C, x, gamma, beta, res, r, mean0, var0)
		want := bnReLUGraph(t, false, B, C, x, gamma, beta, res, r, mean0, var0)
		names := []string{"output", "running mean", "running variance", "image gradient", "gamma gradient", "beta gradient", "residual gradient"}
		for i := range want {
			if len(got[i]) != len(want[i]) {
				t.Fatalf("residual=%t: %s has %d values, want %d", residual, names[i], len(got[i]), len(want[i]))
			}
			if d := floatcmp.RelErr(got[i], want[i]); d > 1e-4 {
				t.Errorf("residual=%t: %s differs from Gorgonia's by %.2g (relative)", residual, names[i], d)
			}
		}
	}
}
