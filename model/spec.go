package model

import (
	"fmt"
	"math"
)

// The network spec: the one description of the architecture. Layout (the
// tensors and their order), NewNetwork's initialisation, Flops, the
// Gorgonia training graph (package learn), the batch-norm folding (Fold), the
// inference plan (package infer) and the exports (package export: ONNX, JSON
// and the float64 reference forward pass) are all built from Spec. Adding
// a block type or changing a head means editing Spec and, for a new kind
// of layer, one case in each of those builders.

// LayerKind is the operation of a layer of the spec.
type LayerKind uint8

// Layer kinds.
const (
	// ConvBN is a K x K convolution (stride 1, zero padding K/2, no bias)
	// followed by a batch norm, the Residual layer's output added when
	// there is one, then a ReLU when ReLU is set.
	ConvBN LayerKind = iota + 1
	// FullyConnected is a dense layer with bias, then a ReLU when ReLU is
	// set. A convolution's output is flattened channel-major (index
	// channel*32 + pixel, the training graph's NCHW order) before it.
	FullyConnected
)

// String names the kind.
func (k LayerKind) String() string {
	switch k {
	case ConvBN:
		return "conv"
	case FullyConnected:
		return "dense"
	}
	return fmt.Sprintf("layer(%d)", uint8(k))
}

// Layer references: In and Residual hold the index of an earlier layer of
// the spec, or one of these.
const (
	fromPlanes = -1 // In: the encoded input planes
	noResidual = -1 // Residual: nothing is added
)

// Output says which output of the network a layer produces.
type Output uint8

// Outputs: the last layer of each head.
const (
	NoOutput     Output = iota
	PolicyOutput        // PolicySize policy logits
	WDLOutput           // ValueSize win/draw/loss logits
)

// Layer is one step of the forward pass.
type Layer struct {
	// Name is the layer's name in the exports and its tensors' names: a
	// ConvBN's weight is Name, a FullyConnected's Name+"/w" and Name+"/b".
	Name string
	Kind LayerKind
	// BN is a ConvBN's batch-norm prefix: BN+"/gamma", "/beta", "/mean", "/var".
	BN string
	// K is a ConvBN's kernel size, 1 or 3.
	K int
	// In is the layer whose output this one reads (-1 for the input planes).
	In int
	// Residual is the layer whose output a ConvBN adds before its ReLU
	// (-1 for none); it has Cout channels.
	Residual int
	// Cin and Cout are a ConvBN's channels, or a FullyConnected's input and
	// output widths (Cin = channels*Squares when In is a ConvBN).
	Cin, Cout int
	ReLU      bool
	Output    Output
}

// OutSize returns the number of values of the layer's output per position.
func (l Layer) OutSize() int {
	if l.Kind == ConvBN {
		return Squares * l.Cout
	}
	return l.Cout
}

// Spec returns the layers of a network with config c, in the order of the
// forward pass (and of Layout):
//
//	input/conv     3x3, NumPlanes -> F, ReLU
//	blockI/conv1   3x3, F -> F, ReLU                       (I = 0..Blocks-1)
//	blockI/conv2   3x3, F -> F, + the block's input, ReLU
//	policy/conv    1x1, F -> PF, ReLU
//	policy/dense   PF*32 -> 1024 policy logits
//	value/conv     1x1, F -> VF, ReLU
//	value/dense1   VF*32 -> VH, ReLU
//	value/dense2   VH -> 3 win/draw/loss logits
func Spec(c Config) []Layer {
	F := c.Filters
	conv := func(name, bn string, k, in, res, cin, cout int) Layer {
		return Layer{Name: name, Kind: ConvBN, BN: bn, K: k, In: in, Residual: res, Cin: cin, Cout: cout, ReLU: true}
	}
	fc := func(name string, in, cin, cout int, relu bool, out Output) Layer {
		return Layer{Name: name, Kind: FullyConnected, In: in, Residual: noResidual, Cin: cin, Cout: cout, ReLU: relu, Output: out}
	}
	layers := []Layer{conv("input/conv", "input/bn", 3, fromPlanes, noResidual, NumPlanes, F)}
	for i := 0; i < c.Blocks; i++ {
		p := fmt.Sprintf("block%d", i)
		x := len(layers) - 1
		layers = append(layers,
			conv(p+"/conv1", p+"/bn1", 3, x, noResidual, F, F),
			conv(p+"/conv2", p+"/bn2", 3, x+1, x, F, F))
	}
	tower := len(layers) - 1
	layers = append(layers,
		conv("policy/conv", "policy/bn", 1, tower, noResidual, F, c.PolicyFilters),
		fc("policy/dense", tower+1, c.PolicyFilters*Squares, PolicySize, false, PolicyOutput),
		conv("value/conv", "value/bn", 1, tower, noResidual, F, c.ValueFilters),
		fc("value/dense1", tower+3, c.ValueFilters*Squares, c.ValueHidden, true, NoOutput),
		fc("value/dense2", tower+4, c.ValueHidden, ValueSize, false, WDLOutput))
	return layers
}

// CheckSpec verifies that layers fit together: each reads an earlier layer
// (or the planes) of the right width, residuals match, and there is
// exactly one layer of each output of the right width. The builders rely
// on it.
func CheckSpec(layers []Layer) error {
	outputs := map[Output]int{}
	for i, l := range layers {
		bad := func(format string, args ...any) error {
			return fmt.Errorf("model: spec layer %d (%s): %s", i, l.Name, fmt.Sprintf(format, args...))
		}
		if l.In < fromPlanes || l.In >= i {
			return bad("reads layer %d, want an earlier layer or the planes", l.In)
		}
		if l.Cin < 1 || l.Cout < 1 {
			return bad("widths %d -> %d", l.Cin, l.Cout)
		}
		inSize, inConv := InputSize, true
		inCh := NumPlanes
		if l.In >= 0 {
			src := layers[l.In]
			if src.Output != NoOutput {
				return bad("reads output layer %s", src.Name)
			}
			inSize, inConv, inCh = src.OutSize(), src.Kind == ConvBN, src.Cout
		}
		switch l.Kind {
		case ConvBN:
			if l.K != 1 && l.K != 3 {
				return bad("kernel %dx%d, want 1x1 or 3x3", l.K, l.K)
			}
			if !inConv || inCh != l.Cin {
				return bad("takes %d channels from a %s", l.Cin, map[bool]string{true: "convolution", false: "dense layer"}[inConv])
			}
			if l.BN == "" {
				return bad("no batch norm")
			}
			if l.Residual != noResidual {
				if l.Residual < 0 || l.Residual >= i || layers[l.Residual].Kind != ConvBN || layers[l.Residual].Cout != l.Cout {
					return bad("residual layer %d does not have %d channels", l.Residual, l.Cout)
				}
			}
		case FullyConnected:
			if inSize != l.Cin {
				return bad("takes %d inputs, its input layer gives %d", l.Cin, inSize)
			}
			if l.Residual != noResidual {
				return bad("a dense layer has no residual")
			}
		default:
			return bad("unknown kind %s", l.Kind)
		}
		switch l.Output {
		case NoOutput:
		case PolicyOutput, WDLOutput:
			want := map[Output]int{PolicyOutput: PolicySize, WDLOutput: ValueSize}[l.Output]
			if l.Kind != FullyConnected || l.Cout != want || l.ReLU {
				return bad("output %d must be a dense layer of %d logits without ReLU", l.Output, want)
			}
			outputs[l.Output]++
		default:
			return bad("unknown output %d", l.Output)
		}
	}
	if outputs[PolicyOutput] != 1 || outputs[WDLOutput] != 1 {
		return fmt.Errorf("model: spec has %d policy and %d value outputs, want one each", outputs[PolicyOutput], outputs[WDLOutput])
	}
	return nil
}

// layerTensors returns the specs of a layer's tensors, in Layout order.
func layerTensors(l Layer) []TensorSpec {
	if l.Kind == ConvBN {
		return []TensorSpec{
			{l.Name, Weight, []int{l.Cout, l.Cin, l.K, l.K}},
			{l.BN + "/gamma", Scale, []int{l.Cout}},
			{l.BN + "/beta", Bias, []int{l.Cout}},
			{l.BN + "/mean", BNMean, []int{l.Cout}},
			{l.BN + "/var", BNVar, []int{l.Cout}},
		}
	}
	return []TensorSpec{
		{l.Name + "/w", Weight, []int{l.Cin, l.Cout}},
		{l.Name + "/b", Bias, []int{l.Cout}},
	}
}

// Flops returns the floating-point operations (2 per multiply-add) of one
// position's inference forward pass (Spec: training-only heads excluded).
func Flops(c Config) float64 {
	var f float64
	for _, l := range Spec(c) {
		if l.Kind == ConvBN {
			f += float64(Squares * l.K * l.K * l.Cin * l.Cout)
		} else {
			f += float64(l.Cin * l.Cout)
		}
	}
	return 2 * f
}

// FoldedLayer is a layer with its batch norm folded into its weights, in
// the training graph's layouts: a ConvBN's W is [Cout][Cin][K][K], scaled
// per output channel by gamma/sqrt(var+eps), and B is beta - mean*that
// scale; a FullyConnected's W is [Cin][Cout] and B its bias.
type FoldedLayer struct {
	Layer
	W, B []float32
}

// Fold returns the layers of n's spec with every batch norm folded (in
// float64, rounded once): the one place where folding is done, for the
// inference backends and the exports. It checks n first.
func (n *Network) Fold() ([]FoldedLayer, error) {
	if err := n.Check(); err != nil {
		return nil, err
	}
	layers := Spec(n.Config)
	out := make([]FoldedLayer, len(layers))
	for i, l := range layers {
		f := FoldedLayer{Layer: l}
		if l.Kind == FullyConnected {
			f.W = append([]float32(nil), n.Tensor(l.Name+"/w").Data...)
			f.B = append([]float32(nil), n.Tensor(l.Name+"/b").Data...)
			out[i] = f
			continue
		}
		w := n.Tensor(l.Name).Data
		gamma, beta := n.Tensor(l.BN+"/gamma").Data, n.Tensor(l.BN+"/beta").Data
		mean, vr := n.Tensor(l.BN+"/mean").Data, n.Tensor(l.BN+"/var").Data
		per := l.Cin * l.K * l.K
		f.W = make([]float32, len(w))
		f.B = make([]float32, l.Cout)
		for o := 0; o < l.Cout; o++ {
			s := float64(gamma[o]) / math.Sqrt(float64(vr[o])+BNEpsilon)
			f.B[o] = float32(float64(beta[o]) - float64(mean[o])*s)
			for j := o * per; j < (o+1)*per; j++ {
				f.W[j] = float32(float64(w[j]) * s)
			}
		}
		out[i] = f
	}
	return out, nil
}
