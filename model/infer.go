package model

import (
	"fmt"
	"math"

	"dama/model/kernel"
)

// The arithmetic of the forward pass (package kernel: SGEMM-based, with
// assembly micro-kernels where the CPU has them).
var (
	conv3x3        = kernel.Conv3x3
	conv3x3Scratch = kernel.Conv3x3Scratch
	conv1x1        = kernel.Conv1x1
	dense          = kernel.Dense
)

// The pure-Go inference backend. Batch norm is folded into the preceding
// convolution (weight scaled by gamma/sqrt(var+eps) per output channel, bias
// beta - mean*scale), so a forward pass is convolutions, dense layers and
// ReLUs only, in NHWC with weights [ky][kx][cin][cout], [cin][cout] and
// [in][out] as package kernel expects.

// inference holds a network's weights folded for the forward pass. It is
// read-only once built and may be shared by many workspaces.
type inference struct {
	cfg          Config
	inW, inB     []float32 // [3][3][NumPlanes][F], [F]
	blocks       []foldedBlock
	polW, polB   []float32 // [F][PF], [PF]
	polDW, polDB []float32 // [32*PF][1024] (rows pixel*PF + c), [1024]
	valW, valB   []float32 // [F][VF], [VF]
	valD1W       []float32 // [32*VF][VH]
	valD1B       []float32
	valD2W       []float32 // [VH][3]
	valD2B       []float32
	flops        float64 // multiply-adds*2 per position
}

type foldedBlock struct{ w1, b1, w2, b2 []float32 }

// newInference folds the batch norms of n into its convolutions.
func newInference(n *Network) (*inference, error) {
	if err := n.Check(); err != nil {
		return nil, err
	}
	c := n.Config
	get := func(name string) []float32 { return n.Tensor(name).Data }
	inf := &inference{cfg: c}
	inf.inW, inf.inB = foldConv(n, "input/conv", "input/bn")
	for i := 0; i < c.Blocks; i++ {
		p := fmt.Sprintf("block%d", i)
		var b foldedBlock
		b.w1, b.b1 = foldConv(n, p+"/conv1", p+"/bn1")
		b.w2, b.b2 = foldConv(n, p+"/conv2", p+"/bn2")
		inf.blocks = append(inf.blocks, b)
	}
	inf.polW, inf.polB = foldConv(n, "policy/conv", "policy/bn")
	inf.polDW = permuteHeadRows(get("policy/dense/w"), c.PolicyFilters, PolicySize)
	inf.polDB = append([]float32(nil), get("policy/dense/b")...)
	inf.valW, inf.valB = foldConv(n, "value/conv", "value/bn")
	inf.valD1W = permuteHeadRows(get("value/dense1/w"), c.ValueFilters, c.ValueHidden)
	inf.valD1B = append([]float32(nil), get("value/dense1/b")...)
	inf.valD2W = append([]float32(nil), get("value/dense2/w")...)
	inf.valD2B = append([]float32(nil), get("value/dense2/b")...)
	inf.flops = Flops(c)
	return inf, nil
}

// Flops returns the floating-point operations (2 per multiply-add) of one
// position's forward pass.
func Flops(c Config) float64 {
	F, px := float64(c.Filters), float64(Squares)
	f := px * 9 * NumPlanes * F
	f += float64(2*c.Blocks) * px * 9 * F * F
	f += px * F * float64(c.PolicyFilters)
	f += px * float64(c.PolicyFilters) * PolicySize
	f += px * F * float64(c.ValueFilters)
	f += px * float64(c.ValueFilters) * float64(c.ValueHidden)
	f += float64(c.ValueHidden) * ValueSize
	return 2 * f
}

// foldConv returns the weight of convolution conv ([cout][cin][k][k]) in
// [k][k][cin][cout] order scaled by the batch norm bn, and the folded bias.
func foldConv(n *Network, conv, bn string) (w, b []float32) {
	t := n.Tensor(conv)
	cout, cin, k := t.Shape[0], t.Shape[1], t.Shape[2]
	gamma, beta := n.Tensor(bn+"/gamma").Data, n.Tensor(bn+"/beta").Data
	mean, vr := n.Tensor(bn+"/mean").Data, n.Tensor(bn+"/var").Data
	w = make([]float32, len(t.Data))
	b = make([]float32, cout)
	for co := 0; co < cout; co++ {
		s := float64(gamma[co]) / math.Sqrt(float64(vr[co])+BNEpsilon)
		b[co] = float32(float64(beta[co]) - float64(mean[co])*s)
		for ci := 0; ci < cin; ci++ {
			for ky := 0; ky < k; ky++ {
				for kx := 0; kx < k; kx++ {
					v := float64(t.Data[((co*cin+ci)*k+ky)*k+kx])
					w[((ky*k+kx)*cin+ci)*cout+co] = float32(v * s)
				}
			}
		}
	}
	return w, b
}

// permuteHeadRows reorders the rows of a head's dense weight from the
// training graph's NCHW flattening (row c*32+p) to NHWC (row p*ch+c).
func permuteHeadRows(w []float32, ch, out int) []float32 {
	r := make([]float32, len(w))
	for c := 0; c < ch; c++ {
		for p := 0; p < Squares; p++ {
			copy(r[(p*ch+c)*out:(p*ch+c+1)*out], w[(c*Squares+p)*out:(c*Squares+p+1)*out])
		}
	}
	return r
}

// workspace holds the activations of forward passes of up to maxBatch
// positions. It is used by one goroutine at a time.
type workspace struct {
	maxBatch    int
	a, b, t     []float32 // tower activations, batch*32*F each
	scratch     []float32
	pol, val    []float32 // head activations
	hidden      []float32
	Policy, WDL []float32 // outputs: batch*PolicySize logits, batch*3 logits
	Input       []float32 // batch*InputSize, filled by the caller
}

func newWorkspace(c Config, maxBatch int) *workspace {
	px := maxBatch * Squares
	return &workspace{
		maxBatch: maxBatch,
		a:        make([]float32, px*c.Filters),
		b:        make([]float32, px*c.Filters),
		t:        make([]float32, px*c.Filters),
		scratch:  make([]float32, max(conv3x3Scratch(maxBatch, Rows, Cols, NumPlanes), conv3x3Scratch(maxBatch, Rows, Cols, c.Filters))),
		pol:      make([]float32, px*c.PolicyFilters),
		val:      make([]float32, px*c.ValueFilters),
		hidden:   make([]float32, maxBatch*c.ValueHidden),
		Policy:   make([]float32, maxBatch*PolicySize),
		WDL:      make([]float32, maxBatch*ValueSize),
		Input:    make([]float32, maxBatch*InputSize),
	}
}

// forward runs the network on the first batch positions of ws.Input and
// leaves the policy and value logits in ws.Policy and ws.WDL.
func (inf *inference) forward(ws *workspace, batch int) {
	if batch > ws.maxBatch {
		panic("model: forward batch larger than its workspace")
	}
	c := inf.cfg
	F := c.Filters
	px := batch * Squares
	in := ws.Input[:batch*InputSize]
	a, b, t := ws.a[:px*F], ws.b[:px*F], ws.t[:px*F]
	conv3x3(a, in, batch, Rows, Cols, NumPlanes, F, inf.inW, inf.inB, nil, true, ws.scratch)
	for _, blk := range inf.blocks {
		conv3x3(t, a, batch, Rows, Cols, F, F, blk.w1, blk.b1, nil, true, ws.scratch)
		conv3x3(b, t, batch, Rows, Cols, F, F, blk.w2, blk.b2, a, true, ws.scratch)
		a, b = b, a
	}
	pol := ws.pol[:px*c.PolicyFilters]
	conv1x1(pol, a, px, F, c.PolicyFilters, inf.polW, inf.polB, true)
	dense(ws.Policy[:batch*PolicySize], pol, batch, Squares*c.PolicyFilters, PolicySize, inf.polDW, inf.polDB, false)
	val := ws.val[:px*c.ValueFilters]
	conv1x1(val, a, px, F, c.ValueFilters, inf.valW, inf.valB, true)
	hid := ws.hidden[:batch*c.ValueHidden]
	dense(hid, val, batch, Squares*c.ValueFilters, c.ValueHidden, inf.valD1W, inf.valD1B, true)
	dense(ws.WDL[:batch*ValueSize], hid, batch, c.ValueHidden, ValueSize, inf.valD2W, inf.valD2B, false)
}

// EvalLosses returns the mean losses of net on samples in eval mode (batch
// norm with running statistics, the pure-Go forward pass): the same policy
// and value cross-entropies the trainer minimises, for validation data. L2
// and LR are zero; Total is Policy + Value.
func EvalLosses(net *Network, samples []Sample) (Losses, error) {
	inf, err := newInference(net)
	if err != nil {
		return Losses{}, err
	}
	const chunk = 64
	ws := newWorkspace(net.Config, chunk)
	target := make([]float32, PolicySize)
	mask := make([]float32, PolicySize)
	var l Losses
	for start := 0; start < len(samples); start += chunk {
		batch := samples[start:min(start+chunk, len(samples))]
		for i := range batch {
			s := &batch[i]
			if err := checkSample(s); err != nil {
				return Losses{}, fmt.Errorf("model: sample %d (%s): %w", start+i, s.Pos.FEN(), err)
			}
			Encode(ws.Input[i*InputSize:(i+1)*InputSize], s.Pos, s.Repetitions, s.QuietPlies)
		}
		inf.forward(ws, len(batch))
		for i := range batch {
			s := &batch[i]
			if err := PolicyTarget(target, mask, s.Pos, s.Legal, s.Policy, illegalLogit); err != nil {
				return Losses{}, err
			}
			logits := ws.Policy[i*PolicySize : (i+1)*PolicySize]
			// log-softmax over the legal indices (each counted once).
			mx := math.Inf(-1)
			for k, m := range mask {
				if m == 0 {
					mx = math.Max(mx, float64(logits[k]))
				}
			}
			var z float64
			for k, m := range mask {
				if m == 0 {
					z += math.Exp(float64(logits[k]) - mx)
				}
			}
			lz := mx + math.Log(z)
			var tsum float64
			for _, p := range s.Policy {
				tsum += float64(p)
			}
			for k, m := range mask {
				if m != 0 {
					continue
				}
				lp := float64(logits[k]) - lz
				l.Policy -= float64(target[k]) / tsum * lp
				l.Entropy -= math.Exp(lp) * lp
			}
			v := ws.WDL[i*ValueSize : (i+1)*ValueSize]
			vm := math.Max(float64(v[0]), math.Max(float64(v[1]), float64(v[2])))
			vz := vm + math.Log(math.Exp(float64(v[0])-vm)+math.Exp(float64(v[1])-vm)+math.Exp(float64(v[2])-vm))
			wsum := float64(s.WDL[0] + s.WDL[1] + s.WDL[2])
			for k := 0; k < ValueSize; k++ {
				l.Value -= float64(s.WDL[k]) / wsum * (float64(v[k]) - vz)
			}
		}
	}
	if n := float64(len(samples)); n > 0 {
		l.Policy /= n
		l.Value /= n
		l.Entropy /= n
	}
	l.Total = l.Policy + l.Value
	return l, nil
}
