package learn

import (
	"fmt"
	"hash"
	"math"
	"sort"
	"sync"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// statsOp is a batch norm with running statistics: *G.BatchNormOp in
// float64 graphs, *bnOp in float32 ones.
type statsOp interface {
	SetStats(mean, variance tensor.Tensor) error
	Stats() (mean, variance tensor.Tensor)
}

// bnOp is the normalisation of a batch norm over float32 NHWC activations
// (the scale and shift are the affineOp after it), with the semantics of
// Gorgonia's BatchNormOp: in training mode each channel is normalised
// with the batch's mean and biased variance, and the running statistics
// become momentum*batch + (1-momentum)*running (the variance unbiased);
// in eval mode the running statistics are used. As with BatchNormOp,
// switching a bnOp to training mode (which a tape machine made without
// G.EvalMode does) resets its running statistics to mean 0, variance 1.
//
// Gorgonia's BatchNormOp accumulates each channel's sums in a shared array
// from one goroutine per channel; here each image's sums are taken in
// float32 and added up in float64 (channelSums), in a fixed order.
//
// The gradient is a bnGradOp on the output xhat and its gradient dy:
// invStd * (dy - mean(dy) - xhat*mean(xhat*dy)) per channel, with the
// inverse standard deviations of the last training batch, which the op
// keeps.
type bnOp struct {
	batch, c, h, w    int
	momentum, epsilon float64

	training       bool
	mean, variance []float32 // running statistics
	invStd         []float32 // of the last batch run in training mode
	pureOp
}

// newBNOp returns a bnOp for activations of the given shape, in training
// mode, with running mean 0 and variance 1.
func newBNOp(shape tensor.Shape, momentum, epsilon float64) (*bnOp, error) {
	if len(shape) != 4 {
		return nil, fmt.Errorf("learn: batch norm of a %v tensor: want 4 dimensions", shape)
	}
	op := &bnOp{batch: shape[0], h: shape[1], w: shape[2], c: shape[3], momentum: momentum, epsilon: epsilon, training: true}
	op.mean = make([]float32, op.c)
	op.variance = make([]float32, op.c)
	op.invStd = make([]float32, op.c)
	op.reset()
	return op, nil
}

func (op *bnOp) reset() {
	clear(op.mean)
	for i := range op.variance {
		op.variance[i] = 1
	}
}

func (op *bnOp) xShape() tensor.Shape { return tensor.Shape{op.batch, op.h, op.w, op.c} }

func (op *bnOp) desc() string {
	return fmt.Sprintf("batch=%d c=%d h=%d w=%d momentum=%g eps=%g", op.batch, op.c, op.h, op.w, op.momentum, op.epsilon)
}

// SetStats copies the given running statistics (float32 vectors of one
// value per channel) into the op.
func (op *bnOp) SetStats(mean, variance tensor.Tensor) error {
	m, ok1 := mean.Data().([]float32)
	v, ok2 := variance.Data().([]float32)
	if !ok1 || !ok2 || len(m) != op.c || len(v) != op.c {
		return fmt.Errorf("learn: batch-norm statistics of %v and %v values (%v, %v), want %d float32", mean.Shape(), variance.Shape(), mean.Dtype(), variance.Dtype(), op.c)
	}
	copy(op.mean, m)
	copy(op.variance, v)
	return nil
}

// Stats returns the running statistics (backed by the op's own arrays).
func (op *bnOp) Stats() (mean, variance tensor.Tensor) {
	return tensor.New(tensor.WithShape(op.c), tensor.WithBacking(op.mean)),
		tensor.New(tensor.WithShape(op.c), tensor.WithBacking(op.variance))
}

// SetTraining implements G.TrainModeOp.
func (op *bnOp) SetTraining(training bool) error {
	if training {
		op.reset()
	}
	op.training = training
	return nil
}

// Arity implements G.Op.
func (op *bnOp) Arity() int { return 1 }

// Type implements G.Op.
func (op *bnOp) Type() hm.Type { return fnType4(1) }

// InferShape implements G.Op.
func (op *bnOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	if err := checkShapes("batch norm", in, op.xShape()); err != nil {
		return nil, err
	}
	return op.xShape(), nil
}

// Do implements G.Op.
func (op *bnOp) Do(in ...G.Value) (G.Value, error) { return op.UsePreallocDo(nil, in...) }

// UsePreallocDo implements G.UsePreallocDoer.
func (op *bnOp) UsePreallocDo(prealloc G.Value, in ...G.Value) (G.Value, error) {
	var x []float32
	if err := readInputs("batch norm", in, opInput{&x, "batch-norm input", op.xShape()}); err != nil {
		return nil, err
	}
	out, y := output(prealloc, op.xShape())
	hw, C := op.h*op.w, op.c
	n := float64(op.batch * hw)
	mean, invStd := make([]float32, C), make([]float32, C)
	if op.training {
		sum, ss := make([]float64, C), make([]float64, C)
		channelSums(op.batch, C, sum, nil, func(b int, t, _ []float32) {
			for p := b * hw; p < (b+1)*hw; p++ {
				for c, v := range x[p*C : (p+1)*C] {
					t[c] += v
				}
			}
		})
		for c := range mean {
			mean[c] = float32(sum[c] / n)
		}
		channelSums(op.batch, C, ss, nil, func(b int, t, _ []float32) {
			for p := b * hw; p < (b+1)*hw; p++ {
				for c, v := range x[p*C : (p+1)*C] {
					d := v - mean[c]
					t[c] += d * d
				}
			}
		})
		mom := op.momentum
		for c := range mean {
			m := sum[c] / n
			invStd[c] = float32(1 / math.Sqrt(ss[c]/n+op.epsilon))
			op.invStd[c] = invStd[c]
			op.mean[c] = float32(mom*m + (1-mom)*float64(op.mean[c]))
			op.variance[c] = float32(mom*ss[c]/(n-1) + (1-mom)*float64(op.variance[c]))
		}
	} else {
		for c := range mean {
			mean[c], invStd[c] = op.mean[c], float32(1/math.Sqrt(float64(op.variance[c])+op.epsilon))
		}
	}
	shift := make([]float32, C)
	for c := range shift {
		shift[c] = -mean[c] * invStd[c]
	}
	parallel(op.batch, 8, func(lo, hi int) {
		for p := lo * hw; p < hi*hw; p++ {
			ys := y[p*C : (p+1)*C : (p+1)*C]
			for c, v := range x[p*C : (p+1)*C] {
				ys[c] = v*invStd[c] + shift[c]
			}
		}
	})
	return out, nil
}

// channelSums adds up, per channel, quantities of batch images: image(b,
// t0, t1) adds image b's values to the zeroed float32 sums t0 and t1 (one
// per channel); those are added in float64 to s0 and s1 (s1 may be nil).
// The images are split over the cores and the partial sums added in a
// fixed order, so the result does not depend on scheduling.
func channelSums(batch, c int, s0, s1 []float64, image func(b int, t0, t1 []float32)) {
	type part struct {
		lo     int
		a0, a1 []float64
	}
	var mu sync.Mutex
	var parts []part
	parallel(batch, 8, func(lo, hi int) {
		t0, t1 := make([]float32, c), make([]float32, c)
		p := part{lo, make([]float64, c), make([]float64, c)}
		for b := lo; b < hi; b++ {
			clear(t0)
			clear(t1)
			image(b, t0, t1)
			for i := range t0 {
				p.a0[i] += float64(t0[i])
				p.a1[i] += float64(t1[i])
			}
		}
		mu.Lock()
		parts = append(parts, p)
		mu.Unlock()
	})
	sort.Slice(parts, func(i, j int) bool { return parts[i].lo < parts[j].lo })
	clear(s0)
	clear(s1)
	for _, p := range parts {
		for i := range s0 {
			s0[i] += p.a0[i]
			if s1 != nil {
				s1[i] += p.a1[i]
			}
		}
	}
}

// WriteHash implements G.Op.
func (op *bnOp) WriteHash(h hash.Hash) { fmt.Fprintf(h, "dama.bn %p %s", op, op.desc()) }

// Hashcode implements G.Op.
func (op *bnOp) Hashcode() uint32 { return opHash(op) }

func (op *bnOp) String() string { return "BatchNorm" + op.desc() }

// DiffWRT implements G.SDOp.
func (op *bnOp) DiffWRT(int) []bool { return []bool{true} }

// SymDiff implements G.SDOp.
func (op *bnOp) SymDiff(in G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	if len(in) != 1 {
		return nil, fmt.Errorf("learn: batch norm takes 1 input, got %d", len(in))
	}
	dx, err := G.ApplyOp(bnGradOp{bn: op}, output, grad)
	if err != nil {
		return nil, err
	}
	return G.Nodes{dx}, nil
}

// bnGradOp computes the gradient of a bnOp with respect to its input from
// its output xhat and the gradient dy of that output.
type bnGradOp struct {
	bn *bnOp
	pureOp
}

// Arity implements G.Op.
func (op bnGradOp) Arity() int { return 2 }

// Type implements G.Op.
func (op bnGradOp) Type() hm.Type { return fnType4(2) }

// InferShape implements G.Op.
func (op bnGradOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	if err := checkShapes("batch-norm gradient", in, op.bn.xShape(), op.bn.xShape()); err != nil {
		return nil, err
	}
	return op.bn.xShape(), nil
}

// Do implements G.Op.
func (op bnGradOp) Do(in ...G.Value) (G.Value, error) { return op.UsePreallocDo(nil, in...) }

// UsePreallocDo implements G.UsePreallocDoer.
func (op bnGradOp) UsePreallocDo(prealloc G.Value, in ...G.Value) (G.Value, error) {
	bn := op.bn
	var xh, dy []float32
	if err := readInputs("batch-norm gradient", in, opInput{&xh, "batch-norm output", bn.xShape()}, opInput{&dy, "batch-norm output gradient", bn.xShape()}); err != nil {
		return nil, err
	}
	out, dx := output(prealloc, bn.xShape())
	hw, C := bn.h*bn.w, bn.c
	n := float64(bn.batch * hw)
	scale, meanDy, meanDot := make([]float32, C), make([]float32, C), make([]float32, C)
	if bn.training {
		sum, dot := make([]float64, C), make([]float64, C)
		channelSums(bn.batch, C, sum, dot, func(b int, s, d []float32) {
			for p := b * hw; p < (b+1)*hw; p++ {
				xs := xh[p*C : (p+1)*C]
				for c, v := range dy[p*C : (p+1)*C] {
					s[c] += v
					d[c] += v * xs[c]
				}
			}
		})
		for c := range scale {
			scale[c], meanDy[c], meanDot[c] = bn.invStd[c], float32(sum[c]/n), float32(dot[c]/n)
		}
	} else {
		for c := range scale {
			scale[c] = float32(1 / math.Sqrt(float64(bn.variance[c])+bn.epsilon))
		}
	}
	parallel(bn.batch, 8, func(lo, hi int) {
		for p := lo * hw; p < hi*hw; p++ {
			xs, ds := xh[p*C:(p+1)*C], dx[p*C:(p+1)*C:(p+1)*C]
			for c, v := range dy[p*C : (p+1)*C] {
				ds[c] = (v - meanDy[c] - xs[c]*meanDot[c]) * scale[c]
			}
		}
	})
	return out, nil
}

// WriteHash implements G.Op.
func (op bnGradOp) WriteHash(h hash.Hash) { fmt.Fprintf(h, "dama.bngrad %p %s", op.bn, op.bn.desc()) }

// Hashcode implements G.Op.
func (op bnGradOp) Hashcode() uint32 { return opHash(op) }

func (op bnGradOp) String() string { return "BatchNormGrad" + op.bn.desc() }
