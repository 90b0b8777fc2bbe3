package model

import (
	"fmt"
	"math"
	"math/rand"
	"slices"
)

// TensorKind says what a tensor of a Network holds.
type TensorKind uint8

// Tensor kinds.
const (
	Weight TensorKind = iota + 1 // a convolution or dense weight (decayed by L2)
	Bias                         // a dense bias or batch-norm beta (not decayed)
	Scale                        // a batch-norm gamma (not decayed)
	BNMean                       // a batch-norm running mean (not trained)
	BNVar                        // a batch-norm running variance (not trained)
)

// String names the kind.
func (k TensorKind) String() string {
	switch k {
	case Weight:
		return "weight"
	case Bias:
		return "bias"
	case Scale:
		return "scale"
	case BNMean:
		return "bn-mean"
	case BNVar:
		return "bn-var"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Trainable reports whether the optimizer updates tensors of this kind.
func (k TensorKind) Trainable() bool { return k == Weight || k == Bias || k == Scale }

// Tensor is one named array of a network. Layouts are the training graph's:
// a convolution weight is [cout][cin][kh][kw], a dense weight [in][out]
// (the dense input being the head's NCHW activations flattened as
// channel*32 + pixel), the rest are vectors.
type Tensor struct {
	Name  string
	Kind  TensorKind
	Shape []int
	Data  []float32
}

// shapeSize returns the number of elements the shape describes.
func shapeSize(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// BNEpsilon is the variance epsilon of every batch norm.
const BNEpsilon = 1e-5

// Network is the policy-value network: its config and all its tensors
// (weights and batch-norm running statistics), in a fixed order given by
// the config (see Layout).
type Network struct {
	Config  Config
	Tensors []Tensor
}

// TensorSpec is the name, kind and shape of one tensor of a layout.
type TensorSpec struct {
	Name  string
	Kind  TensorKind
	Shape []int
}

// Layout lists the tensors of a network with config c, layer by layer
// in the order of Spec (layerTensors):
//
//	input/conv [F][NumPlanes][3][3], input/bn/{gamma,beta,mean,var} [F]
//	blockI/conv1, blockI/bn1/..., blockI/conv2, blockI/bn2/...  (I = 0..Blocks-1)
//	policy/conv [PF][F][1][1], policy/bn/..., policy/dense/w [PF*32][1024], policy/dense/b [1024]
//	value/conv [VF][F][1][1], value/bn/..., value/dense1/w [VF*32][VH], value/dense1/b [VH],
//	value/dense2/w [VH][3], value/dense2/b [3]
//
// Convolutions have no bias: the batch norm after each supplies it.
func Layout(c Config) []TensorSpec {
	var specs []TensorSpec
	for _, l := range Spec(c) {
		specs = append(specs, layerTensors(l)...)
	}
	return specs
}

// NewSeededNetwork returns NewNetwork(cfg, rng) with rng the math/rand (v1)
// generator of seed: the seed's network of dama model new and of a run's
// generation 0. math/rand stays here, behind a seed, because the weights
// of a seed are visible to users and v2 draws different ones; elsewhere
// dama uses math/rand/v2.
func NewSeededNetwork(cfg Config, seed int64) *Network {
	return NewNetwork(cfg, rand.New(rand.NewSource(seed)))
}

// NewNetwork returns a freshly initialised network: He-normal weights
// (fan-in), zero biases, unit batch-norm scales, zero running means and unit
// running variances; the last layer of each head is scaled down so the
// initial policy is near uniform and the value near (1/3, 1/3, 1/3). The
// same config and seed give the same network. It panics on an invalid
// config (call Config.Validate first for user input).
func NewNetwork(cfg Config, rng *rand.Rand) *Network {
	if err := cfg.Validate(); err != nil {
		panic(err)
	}
	specs := Layout(cfg)
	last := map[string]bool{} // the weights of each head's last layer
	for _, l := range Spec(cfg) {
		if l.Output != NoOutput {
			last[l.Name+"/w"] = true
		}
	}
	n := &Network{Config: cfg, Tensors: make([]Tensor, len(specs))}
	for i, s := range specs {
		t := Tensor{Name: s.Name, Kind: s.Kind, Shape: append([]int(nil), s.Shape...), Data: make([]float32, shapeSize(s.Shape))}
		switch s.Kind {
		case Weight:
			fanIn := shapeSize(s.Shape) / s.Shape[0] // conv: cin*kh*kw
			if len(s.Shape) == 2 {
				fanIn = s.Shape[0]
			}
			std := math.Sqrt(2 / float64(fanIn))
			if last[s.Name] {
				std = 0.1 / math.Sqrt(float64(fanIn))
			}
			for j := range t.Data {
				t.Data[j] = float32(rng.NormFloat64() * std)
			}
		case Scale, BNVar:
			for j := range t.Data {
				t.Data[j] = 1
			}
		}
		n.Tensors[i] = t
	}
	return n
}

// Tensor returns the tensor with the given name, or nil.
func (n *Network) Tensor(name string) *Tensor {
	for i := range n.Tensors {
		if n.Tensors[i].Name == name {
			return &n.Tensors[i]
		}
	}
	return nil
}

// NumParams returns the number of trainable parameters (running statistics
// not counted).
func (n *Network) NumParams() int {
	total := 0
	for _, t := range n.Tensors {
		if t.Kind.Trainable() {
			total += len(t.Data)
		}
	}
	return total
}

// Clone returns a deep copy of n.
func (n *Network) Clone() *Network {
	c := &Network{Config: n.Config, Tensors: make([]Tensor, len(n.Tensors))}
	for i, t := range n.Tensors {
		c.Tensors[i] = Tensor{Name: t.Name, Kind: t.Kind, Shape: append([]int(nil), t.Shape...), Data: append([]float32(nil), t.Data...)}
	}
	return c
}

// Check verifies that n's tensors match the layout of its config: names,
// kinds, shapes and data lengths, and that every value is finite.
func (n *Network) Check() error {
	if err := n.Config.Validate(); err != nil {
		return err
	}
	specs := Layout(n.Config)
	if len(n.Tensors) != len(specs) {
		return fmt.Errorf("model: network has %d tensors, config %s needs %d", len(n.Tensors), n.Config, len(specs))
	}
	for i, s := range specs {
		t := n.Tensors[i]
		if t.Name != s.Name {
			return fmt.Errorf("model: tensor %d is named %q, want %q", i, t.Name, s.Name)
		}
		if t.Kind != s.Kind {
			return fmt.Errorf("model: tensor %s has kind %s, want %s", t.Name, t.Kind, s.Kind)
		}
		if !slices.Equal(t.Shape, s.Shape) {
			return fmt.Errorf("model: tensor %s has shape %v, want %v", t.Name, t.Shape, s.Shape)
		}
		if len(t.Data) != shapeSize(s.Shape) {
			return fmt.Errorf("model: tensor %s has %d values, shape %v needs %d", t.Name, len(t.Data), s.Shape, shapeSize(s.Shape))
		}
		for j, v := range t.Data {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return fmt.Errorf("model: tensor %s value %d is %v", t.Name, j, v)
			}
			if t.Kind == BNVar && v < 0 {
				return fmt.Errorf("model: tensor %s value %d is a negative variance %v", t.Name, j, v)
			}
		}
	}
	return nil
}
