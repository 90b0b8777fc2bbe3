package model

import (
	"fmt"
	"hash"
	"hash/fnv"
	"runtime"
	"sync"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"dama/model/kernel"
)

// convOp is a k x k convolution (k = 1 or 3) with stride 1 and padding
// (k-1)/2 of float32 NCHW images by [cout][cin][k][k] weights, the same
// function as Gorgonia's Conv2d with those settings, computed by package
// kernel: the images are transposed to NHWC, a 3x3 convolution is
// kernel.Conv3x3 (its im2col matrix is never built) and a 1x1 one a single
// kernel.Sgemm. Gorgonia's Conv2d instead builds the im2col matrix with a
// per-element loop, multiplies, and transposes the result back; in the
// backward pass it scatters the gradient of that matrix back with col2im.
//
// Its gradients are two more ops: with respect to the images, a
// convolution of the output gradient with the weights flipped and
// transposed (convInputGradOp); with respect to the weights, the product
// of the transposed im2col matrix of the images and the output gradient
// (convWeightGradOp). Second derivatives are not available.
//
// The shapes are fixed when the op is made (a graph has a fixed batch
// size). inputGrad false marks the images as not differentiable (the
// graph's input planes), which saves the input-gradient convolution.
type convOp struct {
	k         int
	batch     int
	cin, cout int
	h, w      int
	inputGrad bool
}

// conv2d applies a convOp to x (batch, cin, h, w) and filter
// (cout, cin, k, k).
func conv2d(x, filter *G.Node, k int, inputGrad bool) (*G.Node, error) {
	xs, fs := x.Shape(), filter.Shape()
	if len(xs) != 4 || len(fs) != 4 {
		return nil, fmt.Errorf("model: convolution of a %v image by a %v filter: want 4 dimensions", xs, fs)
	}
	if k != 1 && k != 3 {
		return nil, fmt.Errorf("model: convolution with a %dx%d kernel: want 1x1 or 3x3", k, k)
	}
	op := convOp{k: k, batch: xs[0], cin: xs[1], cout: fs[0], h: xs[2], w: xs[3], inputGrad: inputGrad}
	if !equalShape(fs, []int{op.cout, op.cin, k, k}) {
		return nil, fmt.Errorf("model: convolution of a %v image by a %v filter: want a (%d, %d, %d, %d) filter", xs, fs, op.cout, op.cin, k, k)
	}
	return G.ApplyOp(op, x, filter)
}

func (op convOp) pad() int { return (op.k - 1) / 2 }

func (op convOp) xShape() tensor.Shape { return tensor.Shape{op.batch, op.cin, op.h, op.w} }
func (op convOp) wShape() tensor.Shape { return tensor.Shape{op.cout, op.cin, op.k, op.k} }
func (op convOp) yShape() tensor.Shape { return tensor.Shape{op.batch, op.cout, op.h, op.w} }

func (op convOp) desc() string {
	return fmt.Sprintf("%dx%d batch=%d cin=%d cout=%d h=%d w=%d dx=%t", op.k, op.k, op.batch, op.cin, op.cout, op.h, op.w, op.inputGrad)
}

// fnType4 is the type of an op taking and returning 4-d tensors of one
// element type.
func fnType4(arity int) hm.Type {
	t := G.TensorType{Dims: 4, Of: hm.TypeVariable('a')}
	ts := make([]hm.Type, arity+1)
	for i := range ts {
		ts[i] = t
	}
	return hm.NewFnType(ts...)
}

func checkShapes(name string, got []G.DimSizer, want ...tensor.Shape) error {
	if len(got) != len(want) {
		return fmt.Errorf("model: %s takes %d inputs, got %d", name, len(want), len(got))
	}
	for i, d := range got {
		s, ok := d.(tensor.Shape)
		if !ok || !s.Eq(want[i]) {
			return fmt.Errorf("model: %s input %d has shape %v, want %v", name, i, d, want[i])
		}
	}
	return nil
}

func opHash(op interface{ WriteHash(hash.Hash) }) uint32 {
	h := fnv.New32a()
	op.WriteHash(h)
	return h.Sum32()
}

// Arity implements G.Op.
func (op convOp) Arity() int { return 2 }

// Type implements G.Op.
func (op convOp) Type() hm.Type { return fnType4(2) }

// InferShape implements G.Op.
func (op convOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	if err := checkShapes("convolution", in, op.xShape(), op.wShape()); err != nil {
		return nil, err
	}
	return op.yShape(), nil
}

// Do implements G.Op.
func (op convOp) Do(in ...G.Value) (G.Value, error) {
	return op.UsePreallocDo(nil, in...)
}

// UsePreallocDo implements G.UsePreallocDoer.
func (op convOp) UsePreallocDo(prealloc G.Value, in ...G.Value) (G.Value, error) {
	if len(in) != 2 {
		return nil, fmt.Errorf("model: convolution takes 2 inputs, got %d", len(in))
	}
	x, err := f32Data(in[0], "convolution image", op.xShape())
	if err != nil {
		return nil, err
	}
	w, err := f32Data(in[1], "convolution filter", op.wShape())
	if err != nil {
		return nil, err
	}
	out, y := output(prealloc, op.yShape())
	op.forward(y, x, w)
	return out, nil
}

// ReturnsPtr implements G.Op.
func (op convOp) ReturnsPtr() bool { return false }

// CallsExtern implements G.Op.
func (op convOp) CallsExtern() bool { return false }

// OverwritesInput implements G.Op.
func (op convOp) OverwritesInput() int { return -1 }

// WriteHash implements G.Op.
func (op convOp) WriteHash(h hash.Hash) { fmt.Fprintf(h, "dama.conv %s", op.desc()) }

// Hashcode implements G.Op.
func (op convOp) Hashcode() uint32 { return opHash(op) }

func (op convOp) String() string { return "Conv" + op.desc() }

// DiffWRT implements G.SDOp.
func (op convOp) DiffWRT(int) []bool { return []bool{op.inputGrad, true} }

// SymDiff implements G.SDOp.
func (op convOp) SymDiff(in G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	if len(in) != 2 {
		return nil, fmt.Errorf("model: convolution takes 2 inputs, got %d", len(in))
	}
	dw, err := G.ApplyOp(convWeightGradOp{op}, in[0], grad)
	if err != nil {
		return nil, err
	}
	var dx *G.Node
	if op.inputGrad {
		if dx, err = G.ApplyOp(convInputGradOp{op}, in[1], grad); err != nil {
			return nil, err
		}
	}
	return G.Nodes{dx, dw}, nil
}

// convInputGradOp computes the gradient of a convOp with respect to its
// images from its filter and output gradient.
type convInputGradOp struct{ convOp }

// Type implements G.Op.
func (op convInputGradOp) Type() hm.Type { return fnType4(2) }

// InferShape implements G.Op.
func (op convInputGradOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	if err := checkShapes("convolution input gradient", in, op.wShape(), op.yShape()); err != nil {
		return nil, err
	}
	return op.xShape(), nil
}

// Do implements G.Op.
func (op convInputGradOp) Do(in ...G.Value) (G.Value, error) {
	return op.UsePreallocDo(nil, in...)
}

// UsePreallocDo implements G.UsePreallocDoer.
func (op convInputGradOp) UsePreallocDo(prealloc G.Value, in ...G.Value) (G.Value, error) {
	if len(in) != 2 {
		return nil, fmt.Errorf("model: convolution input gradient takes 2 inputs, got %d", len(in))
	}
	w, err := f32Data(in[0], "convolution filter", op.wShape())
	if err != nil {
		return nil, err
	}
	dy, err := f32Data(in[1], "convolution output gradient", op.yShape())
	if err != nil {
		return nil, err
	}
	out, dx := output(prealloc, op.xShape())
	op.inputGradient(dx, w, dy)
	return out, nil
}

// WriteHash implements G.Op.
func (op convInputGradOp) WriteHash(h hash.Hash) { fmt.Fprintf(h, "dama.convdx %s", op.desc()) }

// Hashcode implements G.Op.
func (op convInputGradOp) Hashcode() uint32 { return opHash(op) }

func (op convInputGradOp) String() string { return "ConvGradX" + op.desc() }

// convWeightGradOp computes the gradient of a convOp with respect to its
// filter from its images and output gradient.
type convWeightGradOp struct{ convOp }

// Type implements G.Op.
func (op convWeightGradOp) Type() hm.Type { return fnType4(2) }

// InferShape implements G.Op.
func (op convWeightGradOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	if err := checkShapes("convolution filter gradient", in, op.xShape(), op.yShape()); err != nil {
		return nil, err
	}
	return op.wShape(), nil
}

// Do implements G.Op.
func (op convWeightGradOp) Do(in ...G.Value) (G.Value, error) {
	return op.UsePreallocDo(nil, in...)
}

// UsePreallocDo implements G.UsePreallocDoer.
func (op convWeightGradOp) UsePreallocDo(prealloc G.Value, in ...G.Value) (G.Value, error) {
	if len(in) != 2 {
		return nil, fmt.Errorf("model: convolution filter gradient takes 2 inputs, got %d", len(in))
	}
	x, err := f32Data(in[0], "convolution image", op.xShape())
	if err != nil {
		return nil, err
	}
	dy, err := f32Data(in[1], "convolution output gradient", op.yShape())
	if err != nil {
		return nil, err
	}
	out, dw := output(prealloc, op.wShape())
	op.weightGradient(dw, x, dy)
	return out, nil
}

// WriteHash implements G.Op.
func (op convWeightGradOp) WriteHash(h hash.Hash) { fmt.Fprintf(h, "dama.convdw %s", op.desc()) }

// Hashcode implements G.Op.
func (op convWeightGradOp) Hashcode() uint32 { return opHash(op) }

func (op convWeightGradOp) String() string { return "ConvGradW" + op.desc() }

// f32Data returns the float32 backing of v, a dense tensor of the given
// shape.
func f32Data(v G.Value, what string, shape tensor.Shape) ([]float32, error) {
	t, ok := v.(*tensor.Dense)
	if !ok {
		return nil, fmt.Errorf("model: %s is a %T, want a dense tensor", what, v)
	}
	if t.RequiresIterator() {
		if t, ok = t.Materialize().(*tensor.Dense); !ok {
			return nil, fmt.Errorf("model: %s cannot be materialised", what)
		}
	}
	d, ok := t.Data().([]float32)
	if !ok {
		return nil, fmt.Errorf("model: %s has dtype %v, want float32", what, t.Dtype())
	}
	if !t.Shape().Eq(shape) || len(d) != shape.TotalSize() {
		return nil, fmt.Errorf("model: %s has shape %v (%d values), want %v", what, t.Shape(), len(d), shape)
	}
	return d, nil
}

// output returns prealloc when it is a float32 tensor of the given shape,
// otherwise a new one, and its backing. The backing is not cleared.
func output(prealloc G.Value, shape tensor.Shape) (G.Value, []float32) {
	if t, ok := prealloc.(*tensor.Dense); ok && !t.RequiresIterator() && t.Shape().Eq(shape) {
		if d, ok := t.Data().([]float32); ok && len(d) == shape.TotalSize() {
			return t, d
		}
	}
	t := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(shape...))
	return t, t.Data().([]float32)
}

// f32Pool holds the scratch buffers of the convolution ops.
var f32Pool = sync.Pool{New: func() any { return new([]float32) }}

// getBuf returns a pooled buffer of length n (contents undefined).
func getBuf(n int) *[]float32 {
	p := f32Pool.Get().(*[]float32)
	if cap(*p) < n {
		*p = make([]float32, n)
	}
	*p = (*p)[:n]
	return p
}

// parallel calls fn on consecutive ranges covering [0, n), on up to
// GOMAXPROCS goroutines, giving each range at least minPer items, and
// waits for them.
func parallel(n, minPer int, fn func(lo, hi int)) {
	workers := min(runtime.GOMAXPROCS(0), max(1, n/max(1, minPer)))
	if workers <= 1 {
		fn(0, n)
		return
	}
	per := (n + workers - 1) / workers
	var wg sync.WaitGroup
	for lo := per; lo < n; lo += per {
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			fn(lo, hi)
		}(lo, min(n, lo+per))
	}
	fn(0, min(n, per))
	wg.Wait()
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

// nhwcConv computes, for n NHWC images, dst[p][co] = sum over taps and ci
// of src[p+tap][ci] * wt[tap][ci][co] (the op's k x k, zero-padded
// convolution with the weights in kernel's [ky][kx][ci][co] layout).
func (op convOp) nhwcConv(dst, src []float32, n, cin, cout int, wt []float32) {
	if op.k == 1 {
		kernel.Sgemm(n*op.h*op.w, cout, cin, src, cin, wt, cout, dst, cout, false)
		return
	}
	s := getBuf(kernel.Conv3x3Scratch(n, op.h, op.w, cin))
	kernel.Conv3x3(dst, src, n, op.h, op.w, cin, cout, wt, nil, nil, false, *s)
	f32Pool.Put(s)
}

// conv runs nhwcConv over NCHW images, split by image over the cores.
func (op convOp) conv(dst, src []float32, cin, cout int, wt []float32) {
	hw := op.h * op.w
	// Work on chunks of images small enough to stay in cache.
	chunk := max(1, 8192/(hw*max(cin, cout)))
	parallel(op.batch, 1, func(lo, hi int) {
		in := getBuf(chunk * hw * cin)
		out := getBuf(chunk * hw * cout)
		for b0 := lo; b0 < hi; b0 += chunk {
			n := min(chunk, hi-b0)
			toNHWC(*in, src[b0*hw*cin:(b0+n)*hw*cin], n, cin, hw)
			op.nhwcConv(*out, *in, n, cin, cout, wt)
			toNCHW(dst[b0*hw*cout:(b0+n)*hw*cout], *out, n, cout, hw)
		}
		f32Pool.Put(in)
		f32Pool.Put(out)
	})
}

// forward computes y = conv(x, w).
func (op convOp) forward(y, x, w []float32) {
	kk := op.k * op.k
	// wt[ky][kx][ci][co] = w[co][ci][ky][kx]
	wt := getBuf(kk * op.cin * op.cout)
	for co := 0; co < op.cout; co++ {
		for ci := 0; ci < op.cin; ci++ {
			for t := 0; t < kk; t++ {
				(*wt)[(t*op.cin+ci)*op.cout+co] = w[(co*op.cin+ci)*kk+t]
			}
		}
	}
	op.conv(y, x, op.cin, op.cout, *wt)
	f32Pool.Put(wt)
}

// inputGradient computes dx, the convolution of dy by the flipped and
// transposed filter.
func (op convOp) inputGradient(dx, w, dy []float32) {
	kk := op.k * op.k
	// wf[ky][kx][co][ci] = w[co][ci][k-1-ky][k-1-kx]
	wf := getBuf(kk * op.cin * op.cout)
	for co := 0; co < op.cout; co++ {
		for ci := 0; ci < op.cin; ci++ {
			for t := 0; t < kk; t++ {
				(*wf)[((kk-1-t)*op.cout+co)*op.cin+ci] = w[(co*op.cin+ci)*kk+t]
			}
		}
	}
	op.conv(dx, dy, op.cout, op.cin, *wf)
	f32Pool.Put(wf)
}

// weightGradient computes dw[co][ci][ky][kx] = sum over images and pixels
// p of x[ci][p+(ky,kx)-pad] * dy[co][p] as the product of the transposed
// im2col matrix of x (rows (ky, kx, ci), one column per pixel) and the
// NHWC output gradient.
func (op convOp) weightGradient(dw, x, dy []float32) {
	hw := op.h * op.w
	P := op.batch * hw
	kk := op.k * op.k
	rows := kk * op.cin
	dyN := getBuf(P * op.cout)
	parallel(op.batch, 16, func(lo, hi int) {
		toNHWC((*dyN)[lo*hw*op.cout:hi*hw*op.cout], dy[lo*hw*op.cout:hi*hw*op.cout], hi-lo, op.cout, hw)
	})
	col := getBuf(rows * P)
	dwr := getBuf(rows * op.cout) // [ky][kx][ci][co]
	parallel(rows, 8, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			op.colRow((*col)[r*P:(r+1)*P], x, r/op.cin, r%op.cin)
		}
		kernel.Sgemm(hi-lo, op.cout, P, (*col)[lo*P:], P, *dyN, op.cout, (*dwr)[lo*op.cout:], op.cout, false)
	})
	for co := 0; co < op.cout; co++ {
		for ci := 0; ci < op.cin; ci++ {
			for t := 0; t < kk; t++ {
				dw[(co*op.cin+ci)*kk+t] = (*dwr)[(t*op.cin+ci)*op.cout+co]
			}
		}
	}
	f32Pool.Put(dyN)
	f32Pool.Put(col)
	f32Pool.Put(dwr)
}

// colRow writes row (tap, ci) of the transposed im2col matrix of the NCHW
// images x: for every image and pixel (y, x), the value of channel ci at
// (y+ky-pad, x+kx-pad), or 0 outside the image. With a padding of at most
// one, that row is the channel's image shifted by (ky-pad)*w + kx-pad, with
// the column that wrapped around the edge cleared.
func (op convOp) colRow(dst, x []float32, tap, ci int) {
	h, w, pad := op.h, op.w, op.pad()
	hw := h * w
	dy, dx := tap/op.k-pad, tap%op.k-pad
	shift := dy*w + dx
	lo := min(hw, max(0, -shift))
	hi := max(lo, min(hw, hw-shift))
	for b := 0; b < op.batch; b++ {
		img := x[(b*op.cin+ci)*hw : (b*op.cin+ci+1)*hw]
		out := dst[b*hw : (b+1)*hw]
		clear(out[:lo])
		copy(out[lo:hi], img[lo+shift:hi+shift])
		clear(out[hi:])
		switch dx {
		case 1:
			for p := w - 1; p < hw; p += w {
				out[p] = 0
			}
		case -1:
			for p := 0; p < hw; p += w {
				out[p] = 0
			}
		}
	}
}
