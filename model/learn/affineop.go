package learn

import (
	"fmt"
	"hash"
	"math"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// affineOp is the end of a batch norm and what follows it in the tower, in
// one pass over float32 NCHW activations:
//
//	y = max(0, x*gamma[c] + beta[c] (+ residual))
//
// with gamma and beta of shape (1, C, 1, 1). Gorgonia's BatchNorm does the
// scale and shift with two broadcasts (each copying gamma or beta to the
// full activation shape), its Rectify with a comparison and a product, and
// the residual with an addition, each allocating a new activation.
//
// Its gradients: gm = dy*(y > 0) (a reluGradOp; Gorgonia's Rectify passes
// the gradient where its input is >= 0, which differs only where the input
// is exactly 0) is the residual's; dx = gm*gamma, dgamma = sum gm*x and
// dbeta = sum gm are affineGradOps.
type affineOp struct {
	batch, c, h, w int
	residual       bool
	pureOp
}

// affineReLU applies an affineOp to x, gamma, beta and, when not nil,
// residual.
func affineReLU(x, gamma, beta, residual *G.Node) (*G.Node, error) {
	s := x.Shape()
	if len(s) != 4 {
		return nil, fmt.Errorf("learn: batch-norm scale of a %v tensor: want 4 dimensions", s)
	}
	op := affineOp{batch: s[0], h: s[1], w: s[2], c: s[3], residual: residual != nil}
	if residual == nil {
		return G.ApplyOp(op, x, gamma, beta)
	}
	return G.ApplyOp(op, x, gamma, beta, residual)
}

func (op affineOp) xShape() tensor.Shape { return tensor.Shape{op.batch, op.h, op.w, op.c} }
func (op affineOp) cShape() tensor.Shape { return tensor.Shape{1, op.c, 1, 1} }

func (op affineOp) desc() string {
	return fmt.Sprintf("batch=%d c=%d h=%d w=%d residual=%t", op.batch, op.c, op.h, op.w, op.residual)
}

// Arity implements G.Op.
func (op affineOp) Arity() int {
	if op.residual {
		return 4
	}
	return 3
}

// Type implements G.Op.
func (op affineOp) Type() hm.Type { return fnType4(op.Arity()) }

// InferShape implements G.Op.
func (op affineOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	want := []tensor.Shape{op.xShape(), op.cShape(), op.cShape()}
	if op.residual {
		want = append(want, op.xShape())
	}
	if err := checkShapes("batch-norm scale", in, want...); err != nil {
		return nil, err
	}
	return op.xShape(), nil
}

// Do implements G.Op.
func (op affineOp) Do(in ...G.Value) (G.Value, error) { return op.UsePreallocDo(nil, in...) }

// UsePreallocDo implements G.UsePreallocDoer.
func (op affineOp) UsePreallocDo(prealloc G.Value, in ...G.Value) (G.Value, error) {
	var x, gamma, beta, res []float32
	inputs := []opInput{{&x, "batch-norm input", op.xShape()}, {&gamma, "batch-norm gamma", op.cShape()}, {&beta, "batch-norm beta", op.cShape()}}
	if op.residual {
		inputs = append(inputs, opInput{&res, "residual", op.xShape()})
	}
	if err := readInputs("batch-norm scale", in, inputs...); err != nil {
		return nil, err
	}
	out, y := output(prealloc, op.xShape())
	hw, C := op.h*op.w, op.c
	parallel(op.batch, 32, func(lo, hi int) {
		for p := lo * hw; p < hi*hw; p++ {
			xs, ys := x[p*C:(p+1)*C], y[p*C:(p+1)*C:(p+1)*C]
			if res != nil {
				rs := res[p*C : (p+1)*C]
				for c, v := range xs {
					ys[c] = max(0, v*gamma[c]+beta[c]+rs[c])
				}
				continue
			}
			for c, v := range xs {
				ys[c] = max(0, v*gamma[c]+beta[c])
			}
		}
	})
	return out, nil
}

// WriteHash implements G.Op.
func (op affineOp) WriteHash(h hash.Hash) { fmt.Fprintf(h, "dama.affine %s", op.desc()) }

// Hashcode implements G.Op.
func (op affineOp) Hashcode() uint32 { return opHash(op) }

func (op affineOp) String() string { return "AffineReLU" + op.desc() }

// DiffWRT implements G.SDOp.
func (op affineOp) DiffWRT(n int) []bool {
	d := make([]bool, n)
	for i := range d {
		d[i] = true
	}
	return d
}

// SymDiff implements G.SDOp.
func (op affineOp) SymDiff(in G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	if len(in) != op.Arity() {
		return nil, fmt.Errorf("learn: batch-norm scale takes %d inputs, got %d", op.Arity(), len(in))
	}
	gm, err := G.ApplyOp(reluGradOp{shape: op.xShape()}, output, grad)
	if err != nil {
		return nil, err
	}
	grads := make(G.Nodes, len(in))
	for i := range 3 {
		if grads[i], err = G.ApplyOp(affineGradOp{affineOp: op, wrt: i}, in[0], in[1], gm); err != nil {
			return nil, err
		}
	}
	if op.residual {
		grads[3] = gm
	}
	return grads, nil
}

// reluGradOp computes dy * (y > 0) from the output y of a ReLU and its
// gradient dy.
type reluGradOp struct {
	shape tensor.Shape
	pureOp
}

// Arity implements G.Op.
func (op reluGradOp) Arity() int { return 2 }

// Type implements G.Op.
func (op reluGradOp) Type() hm.Type { return fnType4(2) }

// InferShape implements G.Op.
func (op reluGradOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	if err := checkShapes("ReLU gradient", in, op.shape, op.shape); err != nil {
		return nil, err
	}
	return op.shape.Clone(), nil
}

// Do implements G.Op.
func (op reluGradOp) Do(in ...G.Value) (G.Value, error) { return op.UsePreallocDo(nil, in...) }

// UsePreallocDo implements G.UsePreallocDoer.
func (op reluGradOp) UsePreallocDo(prealloc G.Value, in ...G.Value) (G.Value, error) {
	var y, dy []float32
	if err := readInputs("ReLU gradient", in, opInput{&y, "ReLU output", op.shape}, opInput{&dy, "ReLU output gradient", op.shape}); err != nil {
		return nil, err
	}
	out, d := output(prealloc, op.shape)
	parallel(len(d), 1<<15, func(lo, hi int) {
		ys, dys, ds := y[lo:hi], dy[lo:hi], d[lo:hi:hi]
		for p, v := range ys {
			// Branch-free dy*(v > 0): the mask is all ones when v's bits,
			// read as a signed integer, are positive (v > 0), else 0.
			m := uint32(-int32(math.Float32bits(v)) >> 31)
			ds[p] = math.Float32frombits(math.Float32bits(dys[p]) & m)
		}
	})
	return out, nil
}

// WriteHash implements G.Op.
func (op reluGradOp) WriteHash(h hash.Hash) { fmt.Fprintf(h, "dama.relugrad %v", op.shape) }

// Hashcode implements G.Op.
func (op reluGradOp) Hashcode() uint32 { return opHash(op) }

func (op reluGradOp) String() string { return fmt.Sprintf("ReLUGrad%v", op.shape) }

// affineGradOp computes the gradient of an affineOp with respect to input
// wrt (0: x, 1: gamma, 2: beta) from x, gamma and the gradient gm at the
// input of the ReLU: dx = gm*gamma, dgamma = sum gm*x, dbeta = sum gm.
type affineGradOp struct {
	affineOp
	wrt int
}

// Arity implements G.Op.
func (op affineGradOp) Arity() int { return 3 }

// Type implements G.Op.
func (op affineGradOp) Type() hm.Type { return fnType4(3) }

func (op affineGradOp) outShape() tensor.Shape {
	if op.wrt == 0 {
		return op.xShape()
	}
	return op.cShape()
}

// InferShape implements G.Op.
func (op affineGradOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	if err := checkShapes("batch-norm scale gradient", in, op.xShape(), op.cShape(), op.xShape()); err != nil {
		return nil, err
	}
	return op.outShape(), nil
}

// Do implements G.Op.
func (op affineGradOp) Do(in ...G.Value) (G.Value, error) { return op.UsePreallocDo(nil, in...) }

// UsePreallocDo implements G.UsePreallocDoer.
func (op affineGradOp) UsePreallocDo(prealloc G.Value, in ...G.Value) (G.Value, error) {
	var x, gamma, gm []float32
	if err := readInputs("batch-norm scale gradient", in, opInput{&x, "batch-norm input", op.xShape()},
		opInput{&gamma, "batch-norm gamma", op.cShape()}, opInput{&gm, "batch-norm scale output gradient", op.xShape()}); err != nil {
		return nil, err
	}
	out, d := output(prealloc, op.outShape())
	hw, C := op.h*op.w, op.c
	if op.wrt == 0 {
		parallel(op.batch, 32, func(lo, hi int) {
			for p := lo * hw; p < hi*hw; p++ {
				gs, ds := gm[p*C:(p+1)*C], d[p*C:(p+1)*C:(p+1)*C]
				for c, v := range gs {
					ds[c] = v * gamma[c]
				}
			}
		})
		return out, nil
	}
	sum := make([]float64, C)
	channelSums(op.batch, C, sum, nil, func(b int, t, _ []float32) {
		for p := b * hw; p < (b+1)*hw; p++ {
			gs := gm[p*C : (p+1)*C]
			if op.wrt == 1 {
				xs := x[p*C : (p+1)*C]
				for c, v := range gs {
					t[c] += v * xs[c]
				}
				continue
			}
			for c, v := range gs {
				t[c] += v
			}
		}
	})
	for c := range sum {
		d[c] = float32(sum[c])
	}
	return out, nil
}

// WriteHash implements G.Op.
func (op affineGradOp) WriteHash(h hash.Hash) {
	fmt.Fprintf(h, "dama.affinegrad%d %s", op.wrt, op.desc())
}

// Hashcode implements G.Op.
func (op affineGradOp) Hashcode() uint32 { return opHash(op) }

func (op affineGradOp) String() string { return fmt.Sprintf("AffineReLUGrad%d%s", op.wrt, op.desc()) }
