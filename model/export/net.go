package export

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"dama/model"
)

// Net is a network with every batch norm folded, ready to export: the
// layers of model.Spec for its config, each with its folded weights
// (model.FoldedLayer: a convolution's W is [Cout][Cin][K][K] with bias B, a
// dense layer's W is [Cin][Cout], the layout of ONNX Gemm with transB = 0).
// The forward pass runs the layers in order, each on the output of its In
// layer (a convolution with zero padding K/2 on the 8x4 image, then the
// Residual layer's output added, then ReLU where the layer says so; a dense
// layer after a convolution flattens its NCHW activations channel-major,
// index channel*32 + row*4 + column); the value head's logits go through a
// softmax.
type Net struct {
	Config model.Config
	Layers []model.FoldedLayer
}

// Fold returns the exportable form of n (model.Network.Fold: each
// convolution multiplied by its batch norm's gamma/sqrt(var+eps) per output
// channel, with bias beta - mean*gamma/sqrt(var+eps)). It checks n first.
func Fold(n *model.Network) (*Net, error) {
	layers, err := n.Fold()
	if err != nil {
		return nil, err
	}
	out := &Net{Config: n.Config, Layers: layers}
	return out, out.Check()
}

// FoldCheckpoint folds ck's network (Fold) and returns it with the
// metadata that names its source (the checkpoint's file name), step,
// parent and creation time, to add to an export (Options.Metadata).
func FoldCheckpoint(ck *model.Checkpoint, source string) (*Net, []KV, error) {
	net, err := Fold(ck.Net)
	if err != nil {
		return nil, nil, err
	}
	meta := []KV{
		{Key: "dama.source", Value: source},
		{Key: "dama.step", Value: strconv.FormatInt(ck.Step, 10)},
	}
	if ck.Meta.Parent != "" {
		meta = append(meta, KV{Key: "dama.parent", Value: ck.Meta.Parent})
	}
	if !ck.Meta.Created.IsZero() {
		meta = append(meta, KV{Key: "dama.created", Value: ck.Meta.Created.UTC().Format(time.RFC3339)})
	}
	return net, meta, nil
}

// SaveCheckpoint writes ck's network, folded and named by source
// (FoldCheckpoint), to path as format: "onnx" (SaveONNX, producer naming
// the program that wrote it) or "json" (SaveJSON).
func SaveCheckpoint(path, format string, ck *model.Checkpoint, source, producer string) error {
	net, meta, err := FoldCheckpoint(ck, source)
	switch {
	case err != nil:
		return err
	case format == "onnx":
		return SaveONNX(path, net, Options{Producer: producer, Metadata: meta})
	case format == "json":
		return SaveJSON(path, net, meta)
	}
	return fmt.Errorf("export: format %q: want onnx or json", format)
}

// Check verifies that the layers are those of the config's spec, with
// weights and biases of the right sizes, and that every value is finite.
func (n *Net) Check() error {
	if err := n.Config.Validate(); err != nil {
		return err
	}
	spec := model.Spec(n.Config)
	if err := model.CheckSpec(spec); err != nil {
		return err
	}
	if len(n.Layers) != len(spec) {
		return fmt.Errorf("export: %d layers, config with %d blocks has %d", len(n.Layers), n.Config.Blocks, len(spec))
	}
	for i, s := range spec {
		l := &n.Layers[i]
		if l.Layer != s {
			return fmt.Errorf("export: layer %d is %s %s %dx%d, want %s %s %dx%d", i, l.Kind, l.Name, l.Cin, l.Cout, s.Kind, s.Name, s.Cin, s.Cout)
		}
		nw := s.Cin * s.Cout
		if s.Kind == model.ConvBN {
			nw *= s.K * s.K
		}
		if len(l.W) != nw || len(l.B) != s.Cout {
			return fmt.Errorf("export: %s has %d weights and %d biases, want %d and %d", s.Name, len(l.W), len(l.B), nw, s.Cout)
		}
		if err := finite(s.Name, l.W, l.B); err != nil {
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
	outs := make([][]float64, len(n.Layers))
	for b := 0; b < batch; b++ {
		in := input[b*model.InputSize : (b+1)*model.InputSize]
		// NHWC -> NCHW.
		planes := make([]float64, model.NumPlanes*hw)
		for p := 0; p < hw; p++ {
			for c := 0; c < model.NumPlanes; c++ {
				planes[c*hw+p] = float64(in[p*model.NumPlanes+c])
			}
		}
		for i := range n.Layers {
			l := &n.Layers[i]
			x := planes
			if l.In >= 0 {
				x = outs[l.In]
			}
			var y []float64
			if l.Kind == model.ConvBN {
				y = convForward(l, x)
			} else {
				y = denseForward(l, x)
			}
			if l.Residual >= 0 {
				for j, v := range outs[l.Residual] {
					y[j] += v
				}
			}
			if l.ReLU {
				relu(y)
			}
			outs[i] = y
			switch l.Output {
			case model.PolicyOutput:
				for j, v := range y {
					policy[b*model.PolicySize+j] = float32(v)
				}
			case model.WDLOutput:
				m := math.Max(y[0], math.Max(y[1], y[2]))
				var sum float64
				e := make([]float64, len(y))
				for j := range y {
					e[j] = math.Exp(y[j] - m)
					sum += e[j]
				}
				for j := range e {
					wdl[b*model.ValueSize+j] = float32(e[j] / sum)
				}
			}
		}
	}
}

func relu(x []float64) {
	for i, v := range x {
		if v < 0 {
			x[i] = 0
		}
	}
}

// convForward applies convolution c to x (NCHW, one position) with zero
// padding.
func convForward(c *model.FoldedLayer, x []float64) []float64 {
	const h, w = model.Rows, model.Cols
	out := make([]float64, c.Cout*h*w)
	pad := c.K / 2
	for o := 0; o < c.Cout; o++ {
		for y := 0; y < h; y++ {
			for xx := 0; xx < w; xx++ {
				s := float64(c.B[o])
				for i := 0; i < c.Cin; i++ {
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
							s += float64(c.W[((o*c.Cin+i)*c.K+ky)*c.K+kx]) * x[i*h*w+yy*w+xs]
						}
					}
				}
				out[o*h*w+y*w+xx] = s
			}
		}
	}
	return out
}

func denseForward(d *model.FoldedLayer, x []float64) []float64 {
	out := make([]float64, d.Cout)
	for j := range out {
		out[j] = float64(d.B[j])
	}
	for i := 0; i < d.Cin; i++ {
		xi := x[i]
		if xi == 0 {
			continue
		}
		row := d.W[i*d.Cout : (i+1)*d.Cout]
		for j, wv := range row {
			out[j] += xi * float64(wv)
		}
	}
	return out
}
