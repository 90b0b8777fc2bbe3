package export

import (
	"fmt"
	"math"

	"dama/model"
)

// Conv is a convolution with its batch norm folded in, in NCHW terms:
//
//	out[o][y][x] = B[o] + sum over i, ky, kx of W[o][i][ky][kx] * in[i][y+ky-K/2][x+kx-K/2]
//
// with zero padding (K is 3 or 1, so the image keeps its 8x4 size). W is
// [Out][In][K][K], row-major.
type Conv struct {
	Out, In, K int
	W, B       []float32
}

// Dense is a fully connected layer, out[j] = B[j] + sum over i of in[i]*W[i][j];
// W is [In][Out], row-major (the layout of ONNX Gemm with transB = 0).
type Dense struct {
	In, Out int
	W, B    []float32
}

// Block is a residual block: out = relu(x + Conv2(relu(Conv1(x)))).
type Block struct {
	Conv1, Conv2 Conv
}

// Net is a network with every batch norm folded, ready to export:
//
//	x = relu(Input(planes))
//	x = Block(x) for each block
//	policy = PolicyDense(flatten(relu(PolicyConv(x))))              // 1024 logits
//	wdl = softmax(ValueDense2(relu(ValueDense1(flatten(relu(ValueConv(x)))))))
//
// flatten takes the NCHW activations in channel-major order, index
// channel*32 + row*4 + column.
type Net struct {
	Config                   model.Config
	Input                    Conv
	Blocks                   []Block
	PolicyConv               Conv
	PolicyDense              Dense
	ValueConv                Conv
	ValueDense1, ValueDense2 Dense
}

// Fold returns the exportable form of n: each convolution multiplied by
// its batch norm's gamma/sqrt(var+eps) per output channel, with bias
// beta - mean*gamma/sqrt(var+eps). It checks n first.
func Fold(n *model.Network) (*Net, error) {
	if err := n.Check(); err != nil {
		return nil, err
	}
	conv := func(prefix, convName, bnName string) (Conv, error) {
		w := n.Tensor(prefix + convName)
		gamma := n.Tensor(prefix + bnName + "/gamma")
		beta := n.Tensor(prefix + bnName + "/beta")
		mean := n.Tensor(prefix + bnName + "/mean")
		vr := n.Tensor(prefix + bnName + "/var")
		if w == nil || gamma == nil || beta == nil || mean == nil || vr == nil {
			return Conv{}, fmt.Errorf("export: network lacks the tensors of %s%s", prefix, convName)
		}
		c := Conv{Out: w.Shape[0], In: w.Shape[1], K: w.Shape[2], W: make([]float32, len(w.Data)), B: make([]float32, w.Shape[0])}
		per := c.In * c.K * c.K
		for o := 0; o < c.Out; o++ {
			s := float64(gamma.Data[o]) / math.Sqrt(float64(vr.Data[o])+model.BNEpsilon)
			for j := 0; j < per; j++ {
				c.W[o*per+j] = float32(float64(w.Data[o*per+j]) * s)
			}
			c.B[o] = float32(float64(beta.Data[o]) - float64(mean.Data[o])*s)
		}
		return c, nil
	}
	dense := func(name string) (Dense, error) {
		w, b := n.Tensor(name+"/w"), n.Tensor(name+"/b")
		if w == nil || b == nil {
			return Dense{}, fmt.Errorf("export: network lacks the tensors of %s", name)
		}
		return Dense{In: w.Shape[0], Out: w.Shape[1],
			W: append([]float32(nil), w.Data...), B: append([]float32(nil), b.Data...)}, nil
	}
	out := &Net{Config: n.Config}
	var err error
	if out.Input, err = conv("input", "/conv", "/bn"); err != nil {
		return nil, err
	}
	for i := 0; i < n.Config.Blocks; i++ {
		p := fmt.Sprintf("block%d", i)
		var b Block
		if b.Conv1, err = conv(p, "/conv1", "/bn1"); err != nil {
			return nil, err
		}
		if b.Conv2, err = conv(p, "/conv2", "/bn2"); err != nil {
			return nil, err
		}
		out.Blocks = append(out.Blocks, b)
	}
	if out.PolicyConv, err = conv("policy", "/conv", "/bn"); err != nil {
		return nil, err
	}
	if out.PolicyDense, err = dense("policy/dense"); err != nil {
		return nil, err
	}
	if out.ValueConv, err = conv("value", "/conv", "/bn"); err != nil {
		return nil, err
	}
	if out.ValueDense1, err = dense("value/dense1"); err != nil {
		return nil, err
	}
	if out.ValueDense2, err = dense("value/dense2"); err != nil {
		return nil, err
	}
	return out, out.Check()
}

// Check verifies that the layers fit together and every value is finite.
func (n *Net) Check() error {
	if err := n.Config.Validate(); err != nil {
		return err
	}
	F := n.Config.Filters
	type convSpec struct {
		name       string
		c          *Conv
		out, in, k int
	}
	convs := []convSpec{{"input", &n.Input, F, model.NumPlanes, 3}}
	if len(n.Blocks) != n.Config.Blocks {
		return fmt.Errorf("export: %d blocks, config says %d", len(n.Blocks), n.Config.Blocks)
	}
	for i := range n.Blocks {
		convs = append(convs,
			convSpec{fmt.Sprintf("block%d/conv1", i), &n.Blocks[i].Conv1, F, F, 3},
			convSpec{fmt.Sprintf("block%d/conv2", i), &n.Blocks[i].Conv2, F, F, 3})
	}
	convs = append(convs,
		convSpec{"policy/conv", &n.PolicyConv, n.Config.PolicyFilters, F, 1},
		convSpec{"value/conv", &n.ValueConv, n.Config.ValueFilters, F, 1})
	for _, s := range convs {
		c := s.c
		if c.Out != s.out || c.In != s.in || c.K != s.k {
			return fmt.Errorf("export: %s is %dx%dx%dx%d, want %dx%dx%dx%d", s.name, c.Out, c.In, c.K, c.K, s.out, s.in, s.k, s.k)
		}
		if len(c.W) != c.Out*c.In*c.K*c.K || len(c.B) != c.Out {
			return fmt.Errorf("export: %s has %d weights and %d biases, want %d and %d", s.name, len(c.W), len(c.B), c.Out*c.In*c.K*c.K, c.Out)
		}
		if err := finite(s.name, c.W, c.B); err != nil {
			return err
		}
	}
	denses := []struct {
		name    string
		d       *Dense
		in, out int
	}{
		{"policy/dense", &n.PolicyDense, n.Config.PolicyFilters * model.Squares, model.PolicySize},
		{"value/dense1", &n.ValueDense1, n.Config.ValueFilters * model.Squares, n.Config.ValueHidden},
		{"value/dense2", &n.ValueDense2, n.Config.ValueHidden, model.ValueSize},
	}
	for _, s := range denses {
		d := s.d
		if d.In != s.in || d.Out != s.out {
			return fmt.Errorf("export: %s is %dx%d, want %dx%d", s.name, d.In, d.Out, s.in, s.out)
		}
		if len(d.W) != d.In*d.Out || len(d.B) != d.Out {
			return fmt.Errorf("export: %s has %d weights and %d biases, want %d and %d", s.name, len(d.W), len(d.B), d.In*d.Out, d.Out)
		}
		if err := finite(s.name, d.W, d.B); err != nil {
			return err
		}
	}
	return nil
}

func finite(name string, w, b []float32) error {
	for i, v := range w {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return fmt.Errorf("export: %s weight %d is %v", name, i, v)
		}
	}
	for i, v := range b {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return fmt.Errorf("export: %s bias %d is %v", name, i, v)
		}
	}
	return nil
}

// Forward is a plain reference implementation of the exported graph, for
// tests and for checking other runtimes: input holds batch positions of
// model.InputSize values each (NHWC, as model.Encode writes them); policy
// receives batch*model.PolicySize logits and wdl batch*3 probabilities.
// Sums are accumulated in float64.
func (n *Net) Forward(input []float32, batch int, policy, wdl []float32) {
	const hw = model.Squares
	for b := 0; b < batch; b++ {
		in := input[b*model.InputSize : (b+1)*model.InputSize]
		// NHWC -> NCHW.
		x := make([]float64, model.NumPlanes*hw)
		for p := 0; p < hw; p++ {
			for c := 0; c < model.NumPlanes; c++ {
				x[c*hw+p] = float64(in[p*model.NumPlanes+c])
			}
		}
		x = relu(convForward(&n.Input, x))
		for i := range n.Blocks {
			y := relu(convForward(&n.Blocks[i].Conv1, x))
			y = convForward(&n.Blocks[i].Conv2, y)
			for j := range y {
				y[j] += x[j]
			}
			x = relu(y)
		}
		pl := denseForward(&n.PolicyDense, relu(convForward(&n.PolicyConv, x)))
		for j, v := range pl {
			policy[b*model.PolicySize+j] = float32(v)
		}
		v := relu(denseForward(&n.ValueDense1, relu(convForward(&n.ValueConv, x))))
		v = denseForward(&n.ValueDense2, v)
		m := math.Max(v[0], math.Max(v[1], v[2]))
		var sum float64
		for j := range v {
			v[j] = math.Exp(v[j] - m)
			sum += v[j]
		}
		for j := range v {
			wdl[b*3+j] = float32(v[j] / sum)
		}
	}
}

func relu(x []float64) []float64 {
	for i, v := range x {
		if v < 0 {
			x[i] = 0
		}
	}
	return x
}

// convForward applies c to x (NCHW, one position) with zero padding.
func convForward(c *Conv, x []float64) []float64 {
	const h, w = model.Rows, model.Cols
	out := make([]float64, c.Out*h*w)
	pad := c.K / 2
	for o := 0; o < c.Out; o++ {
		for y := 0; y < h; y++ {
			for xx := 0; xx < w; xx++ {
				s := float64(c.B[o])
				for i := 0; i < c.In; i++ {
					for ky := 0; ky < c.K; ky++ {
						yy := y + ky - pad
						if yy < 0 || yy >= h {
							continue
						}
						for kx := 0; kx < c.K; kx++ {
							xs := xx + kx - pad
							if xs < 0 || xs >= w {
								continue
							}
							s += float64(c.W[((o*c.In+i)*c.K+ky)*c.K+kx]) * x[i*h*w+yy*w+xs]
						}
					}
				}
				out[o*h*w+y*w+xx] = s
			}
		}
	}
	return out
}

func denseForward(d *Dense, x []float64) []float64 {
	out := make([]float64, d.Out)
	for j := range out {
		out[j] = float64(d.B[j])
	}
	for i := 0; i < d.In; i++ {
		xi := x[i]
		if xi == 0 {
			continue
		}
		row := d.W[i*d.Out : (i+1)*d.Out]
		for j, wv := range row {
			out[j] += xi * float64(wv)
		}
	}
	return out
}
