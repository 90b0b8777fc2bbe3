package learn

import (
	"fmt"
	"hash"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// flattenOp flattens float32 NHWC activations (batch, h, w, c) channel-major
// into (batch, c*h*w), index channel*h*w + pixel: the order in which the
// heads' dense weights are stored (the training graph was NCHW when the
// checkpoint format was fixed). With inverse it maps such a matrix back to
// NHWC, which is its gradient.
type flattenOp struct {
	batch, h, w, c int
	inverse        bool
	pureOp
}

// flattenNCHW applies a flattenOp to x (batch, h, w, c).
func flattenNCHW(x *G.Node) (*G.Node, error) {
	s := x.Shape()
	if len(s) != 4 {
		return nil, fmt.Errorf("learn: flattening a %v tensor: want 4 dimensions", s)
	}
	return G.ApplyOp(flattenOp{batch: s[0], h: s[1], w: s[2], c: s[3]}, x)
}

func (op flattenOp) nhwc() tensor.Shape { return tensor.Shape{op.batch, op.h, op.w, op.c} }
func (op flattenOp) flat() tensor.Shape { return tensor.Shape{op.batch, op.c * op.h * op.w} }

func (op flattenOp) shapes() (in, out tensor.Shape) {
	if op.inverse {
		return op.flat(), op.nhwc()
	}
	return op.nhwc(), op.flat()
}

// Arity implements G.Op.
func (op flattenOp) Arity() int { return 1 }

// Type implements G.Op.
func (op flattenOp) Type() hm.Type {
	in, out := G.TensorType{Dims: 4, Of: hm.TypeVariable('a')}, G.TensorType{Dims: 2, Of: hm.TypeVariable('a')}
	if op.inverse {
		in, out = out, in
	}
	return hm.NewFnType(in, out)
}

// InferShape implements G.Op.
func (op flattenOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	want, out := op.shapes()
	if err := checkShapes("flatten", in, want); err != nil {
		return nil, err
	}
	return out.Clone(), nil
}

// Do implements G.Op.
func (op flattenOp) Do(in ...G.Value) (G.Value, error) { return op.UsePreallocDo(nil, in...) }

// UsePreallocDo implements G.UsePreallocDoer.
func (op flattenOp) UsePreallocDo(prealloc G.Value, in ...G.Value) (G.Value, error) {
	inShape, outShape := op.shapes()
	var x []float32
	if err := readInputs("flatten", in, opInput{&x, "flatten input", inShape}); err != nil {
		return nil, err
	}
	out, y := output(prealloc, outShape)
	if op.inverse {
		toNHWC(y, x, op.batch, op.c, op.h*op.w)
	} else {
		toNCHW(y, x, op.batch, op.c, op.h*op.w)
	}
	return out, nil
}

// WriteHash implements G.Op.
func (op flattenOp) WriteHash(h hash.Hash) { fmt.Fprintf(h, "dama.flatten %s", op) }

// Hashcode implements G.Op.
func (op flattenOp) Hashcode() uint32 { return opHash(op) }

func (op flattenOp) String() string {
	return fmt.Sprintf("FlattenNCHW(batch=%d h=%d w=%d c=%d inverse=%t)", op.batch, op.h, op.w, op.c, op.inverse)
}

// DiffWRT implements G.SDOp.
func (op flattenOp) DiffWRT(int) []bool { return []bool{true} }

// SymDiff implements G.SDOp.
func (op flattenOp) SymDiff(in G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	inv := op
	inv.inverse = !op.inverse
	dx, err := G.ApplyOp(inv, grad)
	if err != nil {
		return nil, err
	}
	return G.Nodes{dx}, nil
}

// toNHWC transposes images from [batch][c][hw] to [batch][hw][c].
func toNHWC(dst, src []float32, batch, c, hw int) {
	for b := 0; b < batch; b++ {
		s := src[b*c*hw : (b+1)*c*hw]
		d := dst[b*c*hw : (b+1)*c*hw]
		for ch := 0; ch < c; ch++ {
			for p, v := range s[ch*hw : (ch+1)*hw] {
				d[p*c+ch] = v
			}
		}
	}
}

// toNCHW transposes images from [batch][hw][c] to [batch][c][hw].
func toNCHW(dst, src []float32, batch, c, hw int) {
	for b := 0; b < batch; b++ {
		s := src[b*c*hw : (b+1)*c*hw]
		d := dst[b*c*hw : (b+1)*c*hw]
		for ch := 0; ch < c; ch++ {
			row := d[ch*hw : (ch+1)*hw]
			for p := range row {
				row[p] = s[p*c+ch]
			}
		}
	}
}
