package learn

import (
	"fmt"
	"hash"
	"hash/fnv"
	"runtime"
	"slices"
	"sync"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"dama/model/kernel"
)

// convOp is a k x k convolution (k = 1 or 3) with stride 1 and padding
// (k-1)/2 of float32 NHWC images by [cout][cin][k][k] weights, the
// function of Gorgonia's Conv2d with those settings in the layout the
// package's kernels use, so the float32 training graph keeps its
// activations NHWC from the input planes to the heads and no op transposes
// them (flattenOp turns a head's activations channel-major for its dense
// layer). A 3x3 convolution is kernel.Conv3x3 (its im2col matrix is never
// built) and a 1x1 one a single kernel.Sgemm.
//
// Its gradients are two more ops: with respect to the images, a
// convolution of the output gradient with the weights flipped and
// transposed (convGradOp); with respect to the weights, the product
// of the transposed output gradient and the im2col matrix of the images
// (convGradOp with filter true). Second derivatives are not available.
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
	pureOp
}

// conv2d applies a convOp to x (batch, h, w, cin) and filter
// (cout, cin, k, k).
func conv2d(x, filter *G.Node, k int, inputGrad bool) (*G.Node, error) {
	xs, fs := x.Shape(), filter.Shape()
	if len(xs) != 4 || len(fs) != 4 {
		return nil, fmt.Errorf("learn: convolution of a %v image by a %v filter: want 4 dimensions", xs, fs)
	}
	if k != 1 && k != 3 {
		return nil, fmt.Errorf("learn: convolution with a %dx%d kernel: want 1x1 or 3x3", k, k)
	}
	op := convOp{k: k, batch: xs[0], cin: xs[3], cout: fs[0], h: xs[1], w: xs[2], inputGrad: inputGrad}
	if !slices.Equal([]int(fs), []int{op.cout, op.cin, k, k}) {
		return nil, fmt.Errorf("learn: convolution of a %v image by a %v filter: want a (%d, %d, %d, %d) filter", xs, fs, op.cout, op.cin, k, k)
	}
	return G.ApplyOp(op, x, filter)
}

func (op convOp) pad() int { return (op.k - 1) / 2 }

func (op convOp) xShape() tensor.Shape { return tensor.Shape{op.batch, op.h, op.w, op.cin} }
func (op convOp) wShape() tensor.Shape { return tensor.Shape{op.cout, op.cin, op.k, op.k} }
func (op convOp) yShape() tensor.Shape { return tensor.Shape{op.batch, op.h, op.w, op.cout} }

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
		return fmt.Errorf("learn: %s takes %d inputs, got %d", name, len(want), len(got))
	}
	for i, d := range got {
		s, ok := d.(tensor.Shape)
		if !ok || !s.Eq(want[i]) {
			return fmt.Errorf("learn: %s input %d has shape %v, want %v", name, i, d, want[i])
		}
	}
	return nil
}

func opHash(op interface{ WriteHash(hash.Hash) }) uint32 {
	h := fnv.New32a()
	op.WriteHash(h)
	return h.Sum32()
}

// pureOp gives an op the G.Op methods that the package's ops answer
// alike: each returns a new (or preallocated) value, calls no external
// library and overwrites none of its inputs.
type pureOp struct{}

// ReturnsPtr implements G.Op.
func (pureOp) ReturnsPtr() bool { return false }

// CallsExtern implements G.Op.
func (pureOp) CallsExtern() bool { return false }

// OverwritesInput implements G.Op.
func (pureOp) OverwritesInput() int { return -1 }

// opInput is an input an op reads: where its float32 backing goes, what
// it is (for errors) and its shape.
type opInput struct {
	dst   *[]float32
	what  string
	shape tensor.Shape
}

// readInputs checks that the op named name got one value per input and
// sets each input's dst to the float32 backing of its value (f32Data).
func readInputs(name string, in []G.Value, inputs ...opInput) error {
	if len(in) != len(inputs) {
		noun := "inputs"
		if len(inputs) == 1 {
			noun = "input"
		}
		return fmt.Errorf("learn: %s takes %d %s, got %d", name, len(inputs), noun, len(in))
	}
	for i, x := range inputs {
		d, err := f32Data(in[i], x.what, x.shape)
		if err != nil {
			return err
		}
		*x.dst = d
	}
	return nil
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
	var x, w []float32
	if err := readInputs("convolution", in, opInput{&x, "convolution image", op.xShape()}, opInput{&w, "convolution filter", op.wShape()}); err != nil {
		return nil, err
	}
	out, y := output(prealloc, op.yShape())
	op.forward(y, x, w)
	return out, nil
}

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
		return nil, fmt.Errorf("learn: convolution takes 2 inputs, got %d", len(in))
	}
	dw, err := G.ApplyOp(convGradOp{convOp: op, filter: true}, in[0], grad)
	if err != nil {
		return nil, err
	}
	var dx *G.Node
	if op.inputGrad {
		if dx, err = G.ApplyOp(convGradOp{convOp: op}, in[1], grad); err != nil {
			return nil, err
		}
	}
	return G.Nodes{dx, dw}, nil
}

// convGradOp computes the gradient of a convOp with respect to its images
// (from its filter and output gradient) or, filter true, its filter (from
// its images and output gradient).
type convGradOp struct {
	convOp
	filter bool
}

// Type implements G.Op.
func (op convGradOp) Type() hm.Type { return fnType4(2) }

// shapes returns the shape of the input the gradient is computed from
// besides the output gradient (the filter, or the images), what that
// input is, and the shape of the gradient.
func (op convGradOp) shapes() (operand tensor.Shape, what string, out tensor.Shape) {
	if op.filter {
		return op.xShape(), "convolution image", op.wShape()
	}
	return op.wShape(), "convolution filter", op.xShape()
}

func (op convGradOp) name() string {
	if op.filter {
		return "convolution filter gradient"
	}
	return "convolution input gradient"
}

// InferShape implements G.Op.
func (op convGradOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	operand, _, out := op.shapes()
	if err := checkShapes(op.name(), in, operand, op.yShape()); err != nil {
		return nil, err
	}
	return out, nil
}

// Do implements G.Op.
func (op convGradOp) Do(in ...G.Value) (G.Value, error) {
	return op.UsePreallocDo(nil, in...)
}

// UsePreallocDo implements G.UsePreallocDoer.
func (op convGradOp) UsePreallocDo(prealloc G.Value, in ...G.Value) (G.Value, error) {
	operand, what, outShape := op.shapes()
	var a, dy []float32
	if err := readInputs(op.name(), in, opInput{&a, what, operand}, opInput{&dy, "convolution output gradient", op.yShape()}); err != nil {
		return nil, err
	}
	out, d := output(prealloc, outShape)
	if op.filter {
		op.weightGradient(d, a, dy)
	} else {
		op.inputGradient(d, a, dy)
	}
	return out, nil
}

// WriteHash implements G.Op.
func (op convGradOp) WriteHash(h hash.Hash) {
	tag := "convdx"
	if op.filter {
		tag = "convdw"
	}
	fmt.Fprintf(h, "dama.%s %s", tag, op.desc())
}

// Hashcode implements G.Op.
func (op convGradOp) Hashcode() uint32 { return opHash(op) }

func (op convGradOp) String() string {
	if op.filter {
		return "ConvGradW" + op.desc()
	}
	return "ConvGradX" + op.desc()
}

// f32Data returns the float32 backing of v, a dense tensor of the given
// shape.
func f32Data(v G.Value, what string, shape tensor.Shape) ([]float32, error) {
	t, ok := v.(*tensor.Dense)
	if !ok {
		return nil, fmt.Errorf("learn: %s is a %T, want a dense tensor", what, v)
	}
	if t.RequiresIterator() {
		if t, ok = t.Materialize().(*tensor.Dense); !ok {
			return nil, fmt.Errorf("learn: %s cannot be materialised", what)
		}
	}
	d, ok := t.Data().([]float32)
	if !ok {
		return nil, fmt.Errorf("learn: %s has dtype %v, want float32", what, t.Dtype())
	}
	if !t.Shape().Eq(shape) || len(d) != shape.TotalSize() {
		return nil, fmt.Errorf("learn: %s has shape %v (%d values), want %v", what, t.Shape(), len(d), shape)
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

// conv runs nhwcConv over all images, split by image over the cores.
func (op convOp) conv(dst, src []float32, cin, cout int, wt []float32) {
	hw := op.h * op.w
	parallel(op.batch, 1, func(lo, hi int) {
		op.nhwcConv(dst[lo*hw*cout:hi*hw*cout], src[lo*hw*cin:hi*hw*cin], hi-lo, cin, cout, wt)
	})
}

// forward computes y = conv(x, w).
func (op convOp) forward(y, x, w []float32) { op.convReordered(y, x, w, false) }

// inputGradient computes dx, the convolution of dy by the flipped and
// transposed filter.
func (op convOp) inputGradient(dx, w, dy []float32) { op.convReordered(dx, dy, w, true) }

// convReordered convolves src by the filter w [co][ci][ky][kx] reordered
// for nhwcConv: wt[ky][kx][ci][co] = w[co][ci][ky][kx] (cin to cout
// channels), or, flipped for the input gradient, wt[ky][kx][co][ci] =
// w[co][ci][k-1-ky][k-1-kx] (cout to cin channels).
func (op convOp) convReordered(dst, src, w []float32, flipped bool) {
	kk := op.k * op.k
	wt := getBuf(kk * op.cin * op.cout)
	for co := 0; co < op.cout; co++ {
		for ci := 0; ci < op.cin; ci++ {
			for t := 0; t < kk; t++ {
				v := w[(co*op.cin+ci)*kk+t]
				if flipped {
					(*wt)[((kk-1-t)*op.cout+co)*op.cin+ci] = v
				} else {
					(*wt)[(t*op.cin+ci)*op.cout+co] = v
				}
			}
		}
	}
	if flipped {
		op.conv(dst, src, op.cout, op.cin, *wt)
	} else {
		op.conv(dst, src, op.cin, op.cout, *wt)
	}
	f32Pool.Put(wt)
}

// weightGradient computes dw[co][ci][ky][kx] = sum over images and pixels
// p of x[p+(ky,kx)-pad][ci] * dy[p][co] as the product of the transposed
// output gradient (cout x pixels) and the im2col matrix of the NHWC images
// (one row per pixel, columns (ky, kx, ci); for a 1x1 convolution the
// images themselves), split by column ranges over the cores.
func (op convOp) weightGradient(dw, x, dy []float32) {
	hw := op.h * op.w
	P := op.batch * hw
	kk := op.k * op.k
	cols := kk * op.cin
	dyT := getBuf(op.cout * P)
	parallel(op.cout, 4, func(lo, hi int) {
		for co := lo; co < hi; co++ {
			row := (*dyT)[co*P : (co+1)*P]
			for p := range row {
				row[p] = dy[p*op.cout+co]
			}
		}
	})
	col := x
	var colBuf *[]float32
	if op.k != 1 {
		colBuf = getBuf(P * cols)
		col = *colBuf
		parallel(op.batch, 8, func(lo, hi int) {
			for b := lo; b < hi; b++ {
				op.im2col(col[b*hw*cols:(b+1)*hw*cols], x[b*hw*op.cin:(b+1)*hw*op.cin])
			}
		})
	}
	dwr := getBuf(op.cout * cols) // [co][ky][kx][ci]
	parallel(cols, 32, func(lo, hi int) {
		kernel.Sgemm(op.cout, hi-lo, P, *dyT, P, col[lo:], cols, (*dwr)[lo:], cols, false)
	})
	for co := 0; co < op.cout; co++ {
		for ci := 0; ci < op.cin; ci++ {
			for t := 0; t < kk; t++ {
				dw[(co*op.cin+ci)*kk+t] = (*dwr)[co*cols+t*op.cin+ci]
			}
		}
	}
	f32Pool.Put(dyT)
	if colBuf != nil {
		f32Pool.Put(colBuf)
	}
	f32Pool.Put(dwr)
}

// im2col writes the im2col matrix of one NHWC image: row p (pixel (y, x))
// holds, for each tap (ky, kx), the cin channels of pixel
// (y+ky-pad, x+kx-pad), or zeros outside the image.
func (op convOp) im2col(dst, img []float32) {
	pad, cin := op.pad(), op.cin
	cols := op.k * op.k * cin
	for y := 0; y < op.h; y++ {
		for x := 0; x < op.w; x++ {
			row := dst[(y*op.w+x)*cols : (y*op.w+x+1)*cols]
			for ky := 0; ky < op.k; ky++ {
				for kx := 0; kx < op.k; kx++ {
					seg := row[(ky*op.k+kx)*cin : (ky*op.k+kx+1)*cin]
					sy, sx := y+ky-pad, x+kx-pad
					if sy < 0 || sy >= op.h || sx < 0 || sx >= op.w {
						clear(seg)
						continue
					}
					copy(seg, img[(sy*op.w+sx)*cin:(sy*op.w+sx+1)*cin])
				}
			}
		}
	}
}
