package infer

import (
	"fmt"
	"math"
	"math/rand/v2"

	"dama/model"
	"dama/model/kernel"
	"dama/rules"
)

// The int8 backend: the fp32 plan (infer.go) with the weights of every
// layer but the input convolution quantized to signed bytes per output
// channel and the layer's input to unsigned bytes with one scale per
// layer, products summed in int32 (VPDPBUSD) and dequantized, with bias,
// residual and ReLU, in float32 (package kernel, int8.go). Those layers
// read a ReLU's output, never negative, so activations use the full 0..255
// range with zero point 0. The input convolution (about 1% of the
// workstation net's multiply-adds) stays float32 (see int8Layer).
//
// Activation scales are calibrated when the backend is built, on the
// positions of int8CalibGames games that the network plays against itself
// in float32 (moves drawn from its policy, fixed seed): each layer's step
// is the largest input value seen, divided by 255 (a smaller range that
// clips the largest values measured worse: 0.7 of it doubled the largest
// |dE| on the shipped model's positions). Values past a layer's range
// saturate at 255. Calibrating at load rather than storing scales in the
// checkpoint keeps the checkpoint format as it is, works for every model
// (random, trained, any preset) and cannot go stale when a model's weights
// change; it is deterministic (same network, same scales) and costs about
// half a second of float32 inference for the workstation net.
//
// It is available on amd64 CPUs with AVX2 (the kernel level is the best
// of AVX512_VNNI, AVX-VNNI and AVX2: kernel.I8Level) and on arm64 CPUs
// with FEAT_DotProd (SDOT, cpu.ARM64.HasASIMDDP), which all give the same
// results bit for bit, and
// refused elsewhere with a one-line error; the portable kernel of the same
// arithmetic runs in the tests on any CPU.
// "auto" chooses it on amd64 CPUs with AVX2 but not AVX512_BF16, for
// what it won at equal time there, though it misses issue 12's top-move
// bar on the recent models' positions (98.5%; docs/performance.md,
// Inference backends).

// int8Name is the name of the int8 backend.
const int8Name = "int8"

// int8Available reports whether this CPU runs the int8 kernels natively
// (a variable so that tests can take the fallback path).
var int8Available = kernel.I8Native

// Calibration: games of the network against itself, and their longest
// length (plies).
const (
	int8CalibGames = 16
	int8CalibPlies = 200
	int8CalibSeed  = 12
)

type int8Backend struct {
	inf *inference
	// packed holds each layer's int8 weights; nil for the layers that run
	// in float32 (the input convolution).
	packed []*kernel.I8Matrix
	// ranges is the calibrated input range of each layer (0 for the
	// float32 layers).
	ranges []float32
}

// newInt8Backend builds the backend on any CPU (without AVX2 or
// FEAT_DotProd the kernels run a slow portable micro-kernel; NewBackend
// refuses it there), calibrated on the network's own games.
func newInt8Backend(n *model.Network) (Backend, error) {
	inf, err := newInference(n)
	if err != nil {
		return nil, err
	}
	ranges, err := calibrateInt8(inf, n)
	if err != nil {
		return nil, err
	}
	return newInt8WithRanges(inf, ranges)
}

// int8Layer reports whether layer i of the plan runs in int8: a layer
// whose input is a ReLU's output (so never negative), which is every layer
// but the input convolution. That one stays float32: it is small
// (NumPlanes input channels, about 1% of the workstation net's
// multiply-adds) and quantizing its weights costs the most accuracy of any
// layer (on the shipped model's self-play positions, mean |dE| 0.0065 with
// it in int8, 0.0038 without). The heads' dense layers cost nothing
// measurable in int8 (0.0038 either way) and gain much at batch 1, where
// they are matrix-vector products.
func (inf *inference) int8Layer(i int) bool {
	l := inf.layers[i]
	return l.In >= 0 && inf.layers[l.In].ReLU
}

// newInt8WithRanges packs the weights for the given input ranges (one per
// layer).
func newInt8WithRanges(inf *inference, ranges []float32) (*int8Backend, error) {
	b := &int8Backend{inf: inf, packed: make([]*kernel.I8Matrix, len(inf.layers)), ranges: ranges}
	for i, l := range inf.layers {
		if !inf.int8Layer(i) {
			continue
		}
		r := ranges[i]
		if !(r > 0) || math.IsInf(float64(r), 0) {
			if math.IsNaN(float64(r)) || math.IsInf(float64(r), 0) {
				return nil, fmt.Errorf("int8 calibration: layer %s has input range %v", l.Name, r)
			}
			r = 1 // an input that was always zero: any step will do
		}
		step := r / 255
		if l.conv3() {
			b.packed[i] = kernel.PackConv3x3I8(l.w, l.Cin, l.Cout, step)
		} else {
			b.packed[i] = kernel.PackI8(l.w, l.Cin, l.Cout, step)
		}
	}
	return b, nil
}

// calibrateInt8 returns the largest input value of each layer over the
// positions of int8CalibGames games of n against itself in float32.
func calibrateInt8(inf *inference, n *model.Network) ([]float32, error) {
	rng := rand.New(rand.NewPCG(int8CalibSeed, uint64(n.Config.Blocks)))
	games := make([]*rules.Game, int8CalibGames)
	for i := range games {
		games[i] = rules.NewGame(rules.Start())
	}
	ws := inf.newWorkspace(int8CalibGames)
	ranges := make([]float32, len(inf.layers))
	var legal [][]rules.Move
	var priors []float32
	for ply := 0; ply < int8CalibPlies; ply++ {
		live := games[:0:0]
		legal = legal[:0]
		for _, g := range games {
			if ms := g.Legal(nil); len(ms) > 0 {
				live = append(live, g)
				legal = append(legal, ms)
			}
		}
		if len(live) == 0 {
			break
		}
		for i, g := range live {
			model.Encode(ws.Input[i*model.InputSize:(i+1)*model.InputSize], g.Position(), g.Repetitions(), g.QuietPlies())
		}
		inf.run(ws, len(live), inputRanges(ranges))
		for i, g := range live {
			ms := legal[i]
			priors = append(priors[:0], make([]float32, len(ms))...)
			legalSoftmax(priors, ws.Policy[i*model.PolicySize:(i+1)*model.PolicySize], g.Position(), ms)
			x, k := rng.Float32(), 0
			for k < len(ms)-1 && x >= priors[k] {
				x -= priors[k]
				k++
			}
			g.PlayUnchecked(ms[k])
		}
		games = live
	}
	return ranges, nil
}

func (b *int8Backend) Name() string { return int8Name }

func (b *int8Backend) NewRunner(maxBatch int) Runner {
	ws := b.inf.newActivations(maxBatch)
	// The float32 convolution scratch only for the float32 3x3 layers;
	// the byte scratch (quantized inputs, the Winograd convolution's
	// tiles) for the int8 ones.
	need, need8 := 0, 0
	for i, l := range b.inf.layers {
		q := b.packed[i]
		switch {
		case q == nil && l.conv3():
			need = max(need, ws.convScratch(&b.inf.layers[i]))
		case q == nil:
		case l.conv3():
			need8 = max(need8, q.Conv3x3Scratch(maxBatch, model.Rows, model.Cols))
		default:
			need8 = max(need8, kernel.DenseI8Scratch(maxBatch*l.rowsPer(), l.Cin))
		}
	}
	ws.scratch = make([]float32, need)
	return &planRunner{inf: b.inf, ws: ws, k: &int8Kernels{packed: b.packed, scratch: make([]uint8, need8)}}
}

// int8Kernels computes the layers of a runner packed in int8 (all but the
// input convolution).
type int8Kernels struct {
	packed  []*kernel.I8Matrix
	scratch []uint8 // the quantized inputs
}

func (k *int8Kernels) layer(i int, l *planLayer, dst, src, res []float32, batch, rows int) bool {
	q := k.packed[i]
	switch {
	case q == nil:
		return false
	case l.conv3():
		kernel.Conv3x3I8(dst, src, batch, model.Rows, model.Cols, l.Cin, l.Cout, q, l.b, res, l.ReLU, k.scratch)
	default: // dense, or 1x1 over the pixels
		kernel.DenseI8(dst, src, rows, l.Cin, l.Cout, q, l.b, l.ReLU && res == nil, k.scratch)
	}
	return true
}

// inputRanges records the largest input value of each layer of a float32
// forward pass (the calibration of the int8 activations).
type inputRanges []float32

func (m inputRanges) layer(i int, _ *planLayer, _, src, _ []float32, _, _ int) bool {
	for _, v := range src {
		m[i] = max(m[i], v)
	}
	return false
}
