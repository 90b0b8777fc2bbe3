package model

import (
	"fmt"
	"hash"
	"math"

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

// bnOp is the normalisation of a batch norm over float32 NCHW activations
// (the scale and shift are the affineOp after it), with the semantics of
// Gorgonia's BatchNormOp: in training mode each channel is normalised
// with the batch's mean and biased variance, and the running statistics
// become momentum*batch + (1-momentum)*running (the variance unbiased);
// in eval mode the running statistics are used. As with BatchNormOp,
// switching a bnOp to training mode (which a tape machine made without
// G.EvalMode does) resets its running statistics to mean 0, variance 1.
//
// Gorgonia's BatchNormOp accumulates each channel's sums in a shared array
// from one goroutine per channel; here every channel's sums stay in
// registers (in float64).
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
}

// newBNOp returns a bnOp for activations of the given shape, in training
// mode, with running mean 0 and variance 1.
func newBNOp(shape tensor.Shape, momentum, epsilon float64) (*bnOp, error) {
	if len(shape) != 4 {
		return nil, fmt.Errorf("model: batch norm of a %v tensor: want 4 dimensions", shape)
	}
	op := &bnOp{batch: shape[0], c: shape[1], h: shape[2], w: shape[3], momentum: momentum, epsilon: epsilon, training: true}
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

func (op *bnOp) xShape() tensor.Shape { return tensor.Shape{op.batch, op.c, op.h, op.w} }

func (op *bnOp) desc() string {
	return fmt.Sprintf("batch=%d c=%d h=%d w=%d momentum=%g eps=%g", op.batch, op.c, op.h, op.w, op.momentum, op.epsilon)
}

// SetStats copies the given running statistics (float32 vectors of one
// value per channel) into the op.
func (op *bnOp) SetStats(mean, variance tensor.Tensor) error {
	m, ok1 := mean.Data().([]float32)
	v, ok2 := variance.Data().([]float32)
	if !ok1 || !ok2 || len(m) != op.c || len(v) != op.c {
		return fmt.Errorf("model: batch-norm statistics of %v and %v values (%v, %v), want %d float32", mean.Shape(), variance.Shape(), mean.Dtype(), variance.Dtype(), op.c)
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
	if len(in) != 1 {
		return nil, fmt.Errorf("model: batch norm takes 1 input, got %d", len(in))
	}
	x, err := f32Data(in[0], "batch-norm input", op.xShape())
	if err != nil {
		return nil, err
	}
	out, y := output(prealloc, op.xShape())
	hw := op.h * op.w
	n := float64(op.batch * hw)
	mom := op.momentum
	parallel(op.c, max(1, 4096/(op.batch*hw)), func(lo, hi int) {
		for c := lo; c < hi; c++ {
			var mean, invStd float32
			if op.training {
				var s float64
				for b := 0; b < op.batch; b++ {
					i := (b*op.c + c) * hw
					var t float32
					for _, v := range x[i : i+hw] {
						t += v
					}
					s += float64(t)
				}
				m := s / n
				var ss float64
				for b := 0; b < op.batch; b++ {
					i := (b*op.c + c) * hw
					var t float32
					for _, v := range x[i : i+hw] {
						d := v - float32(m)
						t += d * d
					}
					ss += float64(t)
				}
				mean, invStd = float32(m), float32(1/math.Sqrt(ss/n+op.epsilon))
				op.invStd[c] = invStd
				op.mean[c] = float32(mom*m + (1-mom)*float64(op.mean[c]))
				op.variance[c] = float32(mom*ss/(n-1) + (1-mom)*float64(op.variance[c]))
			} else {
				mean, invStd = op.mean[c], float32(1/math.Sqrt(float64(op.variance[c])+op.epsilon))
			}
			shift := -mean * invStd
			for b := 0; b < op.batch; b++ {
				i := (b*op.c + c) * hw
				ys := y[i : i+hw : i+hw]
				for p, v := range x[i : i+hw] {
					ys[p] = v*invStd + shift
				}
			}
		}
	})
	return out, nil
}

// ReturnsPtr implements G.Op.
func (op *bnOp) ReturnsPtr() bool { return false }

// CallsExtern implements G.Op.
func (op *bnOp) CallsExtern() bool { return false }

// OverwritesInput implements G.Op.
func (op *bnOp) OverwritesInput() int { return -1 }

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
		return nil, fmt.Errorf("model: batch norm takes 1 input, got %d", len(in))
	}
	dx, err := G.ApplyOp(bnGradOp{op}, output, grad)
	if err != nil {
		return nil, err
	}
	return G.Nodes{dx}, nil
}

// bnGradOp computes the gradient of a bnOp with respect to its input from
// its output xhat and the gradient dy of that output.
type bnGradOp struct{ bn *bnOp }

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
	if len(in) != 2 {
		return nil, fmt.Errorf("model: batch-norm gradient takes 2 inputs, got %d", len(in))
	}
	xh, err := f32Data(in[0], "batch-norm output", bn.xShape())
	if err != nil {
		return nil, err
	}
	dy, err := f32Data(in[1], "batch-norm output gradient", bn.xShape())
	if err != nil {
		return nil, err
	}
	out, dx := output(prealloc, bn.xShape())
	hw := bn.h * bn.w
	n := float64(bn.batch * hw)
	parallel(bn.c, max(1, 4096/(bn.batch*hw)), func(lo, hi int) {
		for c := lo; c < hi; c++ {
			if !bn.training {
				invStd := float32(1 / math.Sqrt(float64(bn.variance[c])+bn.epsilon))
				for b := 0; b < bn.batch; b++ {
					i := (b*bn.c + c) * hw
					ds := dx[i : i+hw : i+hw]
					for p, v := range dy[i : i+hw] {
						ds[p] = v * invStd
					}
				}
				continue
			}
			var sum, dot float64
			for b := 0; b < bn.batch; b++ {
				i := (b*bn.c + c) * hw
				xs := xh[i : i+hw : i+hw]
				var s, d float32
				for p, v := range dy[i : i+hw] {
					s += v
					d += v * xs[p]
				}
				sum += float64(s)
				dot += float64(d)
			}
			invStd := bn.invStd[c]
			meanDy, meanDot := float32(sum/n), float32(dot/n)
			for b := 0; b < bn.batch; b++ {
				i := (b*bn.c + c) * hw
				xs, ds := xh[i:i+hw:i+hw], dx[i:i+hw:i+hw]
				for p, v := range dy[i : i+hw] {
					ds[p] = (v - meanDy - xs[p]*meanDot) * invStd
				}
			}
		}
	})
	return out, nil
}

// ReturnsPtr implements G.Op.
func (op bnGradOp) ReturnsPtr() bool { return false }

// CallsExtern implements G.Op.
func (op bnGradOp) CallsExtern() bool { return false }

// OverwritesInput implements G.Op.
func (op bnGradOp) OverwritesInput() int { return -1 }

// WriteHash implements G.Op.
func (op bnGradOp) WriteHash(h hash.Hash) { fmt.Fprintf(h, "dama.bngrad %p %s", op.bn, op.bn.desc()) }

// Hashcode implements G.Op.
func (op bnGradOp) Hashcode() uint32 { return opHash(op) }

func (op bnGradOp) String() string { return "BatchNormGrad" + op.bn.desc() }
