package infer

import (
	"dama/model"
	"dama/model/kernel"
)

// The bf16 backend: the fp32 plan (infer.go) with every layer's weights
// rounded to bfloat16 and packed once, and each layer's input rounded to
// bfloat16 as it is read; products accumulate in float32 (VDPBF16PS), and
// biases, residuals and outputs stay float32. It is available on CPUs with
// AVX512_BF16 (golang.org/x/sys/cpu X86.HasAVX512BF16) and arm64 CPUs with
// FEAT_BF16 (BFDOT). It meets the accuracy criteria of issue 12
// (docs/performance.md: agreement with fp32 on positions of a trained
// model's self-play games, `dama model compare`, and an arena match
// against fp32 at equal visits), but "auto" does not choose it: on every
// CPU with AVX512_BF16 measured, int8 ran faster (1.75x at batch 32 on an
// AMD EPYC; 3x in self-play on an Intel Xeon with AMX, where bf16 ran
// slower than on the EPYC).

// bf16Name is the name of the bf16 backend.
const bf16Name = "bf16"

// bf16Available reports whether this CPU runs the bf16 kernels natively
// (a variable so that tests can take the fallback path).
var bf16Available = kernel.BF16Native

type bf16Backend struct {
	inf    *inference
	packed []*kernel.BF16Matrix // per layer
	// scratch is the length of the bf16 scratch buffer per position.
	scratch int
}

// newBF16Backend builds the backend on any CPU (without AVX512_BF16 the
// kernels run a slow portable micro-kernel; NewBackend refuses it there).
func newBF16Backend(n *model.Network) (Backend, error) {
	inf, err := newInference(n)
	if err != nil {
		return nil, err
	}
	b := &bf16Backend{inf: inf}
	for _, l := range inf.layers {
		var m *kernel.BF16Matrix
		if l.conv3() {
			m = kernel.PackConv3x3BF16(l.w, l.Cin, l.Cout)
			b.scratch = max(b.scratch, kernel.Conv3x3BF16Scratch(1, model.Rows, model.Cols, l.Cin))
		} else {
			m = kernel.PackBF16(l.w, l.Cin, l.Cout)
			b.scratch = max(b.scratch, kernel.DenseBF16Scratch(l.rowsPer(), l.Cin))
		}
		b.packed = append(b.packed, m)
	}
	return b, nil
}

func (b *bf16Backend) Name() string { return bf16Name }

func (b *bf16Backend) NewRunner(maxBatch int) Runner {
	ws := b.inf.newActivations(maxBatch)
	ws.scratch = nil // the float32 convolution scratch is not used
	return &planRunner{inf: b.inf, ws: ws, k: &bf16Kernels{packed: b.packed, scratch: make([]uint16, maxBatch*b.scratch)}}
}

// bf16Kernels computes every layer of a runner in bfloat16.
type bf16Kernels struct {
	packed  []*kernel.BF16Matrix
	scratch []uint16 // the rounded inputs
}

func (k *bf16Kernels) layer(i int, l *planLayer, dst, src, res []float32, batch, rows int) bool {
	if l.conv3() {
		kernel.Conv3x3BF16(dst, src, batch, model.Rows, model.Cols, l.Cin, l.Cout, k.packed[i], l.b, res, l.ReLU, k.scratch)
	} else { // dense, or 1x1 over the pixels
		kernel.DenseBF16(dst, src, rows, l.Cin, l.Cout, k.packed[i], l.b, l.ReLU && res == nil, k.scratch)
	}
	return true
}
