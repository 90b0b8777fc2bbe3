package infer

import (
	"dama/model"
	"dama/model/kernel"
)

// The fp32 inference backend, planned from the network spec: the folded
// layers of Network.Fold converted to package kernel's NHWC layouts
// (convolution weights [ky][kx][cin][cout], a dense layer after a
// convolution with its rows reordered from the training graph's NCHW
// flattening to NHWC) and packed once for the kernels (kernel.PackConv3x3:
// the 3x3 convolutions run as Winograd convolutions where the CPU has
// them; kernel.PackDense: the dense layers and 1x1 convolutions read their
// weights in column panels), and each layer's output given a buffer that is
// reused once no later layer reads it (so the tower ping-pongs between
// three buffers whatever its depth).

// fp32Name is the name of the fp32 backend.
const fp32Name = "fp32"

// inference holds a network's folded weights and its plan. It is
// read-only once built and shared by the workspaces of all batchers.
type inference struct {
	cfg    model.Config
	layers []planLayer
	bufs   []int // size per position of each activation buffer
	flops  float64
}

// planLayer is a layer of the plan: its spec, kernel-layout weights and the
// buffers it reads and writes (indices into the workspace's buffers; the
// input planes and the outputs are buffers of their own, see workspace).
type planLayer struct {
	model.Layer
	w, b []float32
	// w packed: a 3x3 convolution's, with and without its Winograd
	// transform (see workspace.direct); the other layers'.
	conv, convDirect *kernel.Conv3x3Weights
	dense            *kernel.DenseWeights
	src, res, dst    int // buffers; res -1 for no residual
}

// conv3 reports whether l is a 3x3 convolution; the other layers are
// dense products of rowsPer rows per position.
func (l *planLayer) conv3() bool { return l.Kind == model.ConvBN && l.K == 3 }

// rowsPer is the rows per position of l's dense product: Squares for a
// convolution (a 1x1 one runs over the pixels), 1 for a head's dense layer.
func (l *planLayer) rowsPer() int {
	if l.Kind == model.ConvBN {
		return model.Squares
	}
	return 1
}

// Buffer indices of a workspace below its activation buffers.
const (
	bufInput  = -1
	bufPolicy = -2
	bufWDL    = -3
	bufNone   = -4
)

// newInference folds the batch norms of n and plans its forward pass.
func newInference(n *model.Network) (*inference, error) {
	folded, err := n.Fold()
	if err != nil {
		return nil, err
	}
	layers := model.Spec(n.Config)
	if err := model.CheckSpec(layers); err != nil {
		return nil, err
	}
	inf := &inference{cfg: n.Config, flops: model.Flops(n.Config)}
	// lastUse[i] is the last layer that reads layer i's output.
	lastUse := make([]int, len(layers))
	for i, l := range layers {
		lastUse[i] = i
		if l.In >= 0 {
			lastUse[l.In] = i
		}
		if l.Residual >= 0 {
			lastUse[l.Residual] = i
		}
	}
	bufOf := make([]int, len(layers))
	var free []int
	inDense := func(l model.Layer) bool {
		return l.Kind == model.FullyConnected && l.In >= 0 && layers[l.In].Kind == model.ConvBN
	}
	for i, f := range folded {
		l := f.Layer
		pl := planLayer{Layer: l, src: bufInput, res: bufNone}
		if l.In >= 0 {
			pl.src = bufOf[l.In]
		}
		if l.Residual >= 0 {
			pl.res = bufOf[l.Residual]
		}
		// Release the buffers whose last reader is before this layer.
		for j := 0; j < i; j++ {
			if lastUse[j] == i-1 && bufOf[j] >= 0 && layers[j].Output == model.NoOutput {
				free = append(free, bufOf[j])
			}
		}
		switch l.Output {
		case model.PolicyOutput:
			pl.dst = bufPolicy
		case model.WDLOutput:
			pl.dst = bufWDL
		default:
			pl.dst = -1
			for k, fb := range free {
				if inf.bufs[fb] >= l.OutSize() {
					pl.dst = fb
					free = append(free[:k], free[k+1:]...)
					break
				}
			}
			if pl.dst < 0 {
				pl.dst = len(inf.bufs)
				inf.bufs = append(inf.bufs, l.OutSize())
			}
		}
		bufOf[i] = pl.dst
		switch {
		case l.Kind == model.ConvBN:
			pl.w = kernelConvWeight(f.W, l.Cout, l.Cin, l.K)
		case inDense(l):
			pl.w = permuteHeadRows(f.W, layers[l.In].Cout, l.Cout)
		default:
			pl.w = f.W
		}
		if pl.conv3() {
			pl.conv = kernel.PackConv3x3(pl.w, l.Cin, l.Cout)
			pl.convDirect = pl.conv.Direct()
		} else {
			pl.dense = kernel.PackDense(pl.w, l.Cin, l.Cout)
		}
		pl.b = f.B
		inf.layers = append(inf.layers, pl)
	}
	return inf, nil
}

// kernelConvWeight reorders a convolution weight from [cout][cin][k][k] to
// [k][k][cin][cout].
func kernelConvWeight(w []float32, cout, cin, k int) []float32 {
	r := make([]float32, len(w))
	for co := 0; co < cout; co++ {
		for ci := 0; ci < cin; ci++ {
			for t := 0; t < k*k; t++ {
				r[(t*cin+ci)*cout+co] = w[(co*cin+ci)*k*k+t]
			}
		}
	}
	return r
}

// permuteHeadRows reorders the rows of a head's dense weight from the
// training graph's NCHW flattening (row c*32+p) to NHWC (row p*ch+c).
func permuteHeadRows(w []float32, ch, out int) []float32 {
	r := make([]float32, len(w))
	for c := 0; c < ch; c++ {
		for p := 0; p < model.Squares; p++ {
			copy(r[(p*ch+c)*out:(p*ch+c+1)*out], w[(c*model.Squares+p)*out:(c*model.Squares+p+1)*out])
		}
	}
	return r
}

// workspace holds the activations of forward passes of up to maxBatch
// positions. It is used by one goroutine at a time.
type workspace struct {
	maxBatch int
	// direct: the 3x3 convolutions by the direct product, for
	// workspaces smaller than kernel.WinogradMinBatch; the others take
	// kernel.Conv3x3Packed's Winograd convolutions where the CPU has them.
	// The choice is made once per workspace, never per batch, so that a
	// runner's outputs for a position do not depend on the positions
	// batched with it, bit for bit.
	direct      bool
	bufs        [][]float32
	scratch     []float32
	Policy, WDL []float32 // outputs: batch*PolicySize logits, batch*3 logits
	Input       []float32 // batch*InputSize, filled by the caller
}

// newWorkspace returns a workspace for forward passes of up to maxBatch
// positions with its own input and output buffers.
func (inf *inference) newWorkspace(maxBatch int) *workspace {
	ws := inf.newActivations(maxBatch)
	ws.Policy = make([]float32, maxBatch*model.PolicySize)
	ws.WDL = make([]float32, maxBatch*model.ValueSize)
	ws.Input = make([]float32, maxBatch*model.InputSize)
	return ws
}

// newActivations is newWorkspace without the input and output buffers,
// which a runner takes from its caller.
func (inf *inference) newActivations(maxBatch int) *workspace {
	ws := &workspace{maxBatch: maxBatch, direct: maxBatch < kernel.WinogradMinBatch(model.Rows, model.Cols)}
	for _, n := range inf.bufs {
		ws.bufs = append(ws.bufs, make([]float32, maxBatch*n))
	}
	scratch := 0
	for i := range inf.layers {
		scratch = max(scratch, ws.convScratch(&inf.layers[i]))
	}
	ws.scratch = make([]float32, scratch)
	return ws
}

// convScratch is the float32 scratch that layer l needs in ws: that of
// its 3x3 convolution, 0 for the other layers.
func (ws *workspace) convScratch(l *planLayer) int {
	switch {
	case !l.conv3():
		return 0
	case ws.direct:
		return l.convDirect.Conv3x3Scratch(ws.maxBatch, model.Rows, model.Cols)
	}
	return l.conv.Conv3x3Scratch(ws.maxBatch, model.Rows, model.Cols)
}

// buf returns buffer i of ws (see the buf constants) cut to n values.
func (ws *workspace) buf(i, n int) []float32 {
	switch i {
	case bufInput:
		return ws.Input[:n]
	case bufPolicy:
		return ws.Policy[:n]
	case bufWDL:
		return ws.WDL[:n]
	case bufNone:
		return nil
	}
	return ws.bufs[i][:n]
}

// forward runs the network on the first batch positions of ws.Input and
// leaves the policy and value logits in ws.Policy and ws.WDL.
func (inf *inference) forward(ws *workspace, batch int) { inf.run(ws, batch, nil) }

// layerKernels runs layers of the plan with other products than the
// float32 kernels (bfloat16, int8), or watches them (calibration).
type layerKernels interface {
	// layer computes layer i into dst from src (res: the residual a
	// convolution adds, nil if none; rows: the rows of a dense product,
	// batch for the heads, batch*Squares over the pixels) and reports
	// whether it did; the float32 kernels compute the layers it leaves.
	layer(i int, l *planLayer, dst, src, res []float32, batch, rows int) bool
}

// run is forward with the layers k computes (all in float32 when k is nil).
func (inf *inference) run(ws *workspace, batch int, k layerKernels) {
	if batch > ws.maxBatch {
		panic("infer: forward batch larger than its workspace")
	}
	for i := range inf.layers {
		l := &inf.layers[i]
		inSize := model.InputSize
		if l.In >= 0 {
			inSize = inf.layers[l.In].OutSize()
		}
		src := ws.buf(l.src, batch*inSize)
		dst := ws.buf(l.dst, batch*l.OutSize())
		rows, relu := batch*l.rowsPer(), l.ReLU
		var res []float32
		if l.Kind == model.ConvBN {
			res = ws.buf(l.res, len(dst))
		}
		conv3 := l.conv3()
		switch {
		case k != nil && k.layer(i, l, dst, src, res, batch, rows):
		case conv3:
			c := l.conv
			if ws.direct {
				c = l.convDirect
			}
			kernel.Conv3x3Packed(dst, src, batch, model.Rows, model.Cols, l.Cin, l.Cout, c, l.b, res, relu, ws.scratch)
		default: // dense, or 1x1 over the pixels
			kernel.DensePacked(dst, src, rows, l.Cin, l.Cout, l.dense, l.b, relu && res == nil)
		}
		if res != nil && !conv3 { // a 1x1 convolution with a residual
			for j, v := range res {
				x := dst[j] + v
				if relu {
					x = max(x, 0)
				}
				dst[j] = x
			}
		}
	}
}

// fp32Backend is the backend of the package's own fp32 kernels.
type fp32Backend struct{ inf *inference }

func newFP32Backend(n *model.Network) (Backend, error) {
	inf, err := newInference(n)
	if err != nil {
		return nil, err
	}
	return fp32Backend{inf}, nil
}

func (b fp32Backend) Name() string { return fp32Name }

func (b fp32Backend) NewRunner(maxBatch int) Runner {
	return &planRunner{inf: b.inf, ws: b.inf.newActivations(maxBatch)}
}

// planRunner is the Runner of every backend: the plan of inf run on ws,
// with the layers k computes (nil for the fp32 backend: all in float32).
type planRunner struct {
	inf *inference
	ws  *workspace
	k   layerKernels
}

func (r *planRunner) Forward(input []float32, batch int, policy, wdl []float32) {
	ws := r.ws
	// The planes and the outputs are the caller's buffers: no copies.
	ws.Input, ws.Policy, ws.WDL = input, policy, wdl
	r.inf.run(ws, batch, r.k)
}
