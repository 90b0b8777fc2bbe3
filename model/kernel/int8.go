package kernel

import (
	"fmt"
	"math"
	"os"
	"strings"
	"unsafe"
)

// The int8 path: products of unsigned 8-bit activations and signed 8-bit
// weights summed in int32, then dequantized in float32. Weights are
// quantized once per output column, symmetrically (PackI8,
// PackConv3x3I8: scale max|w|/127); activations, which the network only
// feeds to these products after a ReLU (or as its 0..1 input planes), are
// quantized as they are read with one scale per matrix (its input scale,
// calibrated by the caller), zero point 0, rounding to nearest even and
// saturating to [0, 255]. Each output is float32(sum) * (input scale *
// column scale) + bias (+ residual), then max(0, x) if relu. The
// micro-kernel works on a tile of C over quads of k, at the best level
// the CPU has (I8Level): VPDPBUSD on ZMM (AVX512_VNNI, 8 x 32) or on YMM
// (AVX-VNNI, 6 x 16); on AVX2, VPMADDWD on the operands widened to 16
// bits for the 3x3 convolutions (6 x 16: the quantized inputs are written
// as uint16 and PackConv3x3I8 keeps the weights a second time as int16,
// I8Matrix.data16), most of which run as an exact integer Winograd
// F(2x2, 3x3) on the same kernel (wino_amd64.go), and VPMADDUBSW on the
// bytes for the dense layers (4 x 16: few rows, so the weights' bytes are
// what costs) on amd64;
// SDOT (FEAT_DotProd, int8_arm64.go, 8 x 32) on arm64; else a portable Go
// kernel of the same integer arithmetic and the same float32 epilogue
// (8 x 32). Every level gives the same results bit for bit, and the path
// is exercised on every CPU.

// i8Impl is one level of the int8 micro-kernel: callKernelI8 runs its
// kernel (id) on a full mr x nr tile of C, quantU8Native its quantization.
type i8Impl struct {
	name   string
	reason string // why the CPU runs this level and no better one
	id     int
	mr, nr int
	// wide: the kernel reads A as uint16 and B as I8Matrix.data16, the
	// values of the bytes widened (the AVX2 level's convolutions).
	wide bool
	// wino: the 3x3 convolutions whose shape allows it run as Winograd
	// F(2x2, 3x3) products of the same exact sums (the AVX2 level, see
	// wino_amd64.go), on I8Matrix.wino.
	wino bool
	// dense is the kernel of DenseI8 and of the matrices without data16
	// where it is not this one (the AVX2 level's byte kernel); nil means
	// this one.
	dense *i8Impl
}

// forDense returns the kernel DenseI8 runs at level im.
func (im *i8Impl) forDense() *i8Impl {
	if im.dense != nil {
		return im.dense
	}
	return im
}

// i8Go is the portable level.
var i8Go = &i8Impl{name: "go", reason: i8GoReason, id: idGo, mr: i8MR, nr: i8NR}

// i8Impls lists the levels this CPU runs, best first; i8Active is the one
// the int8 functions use (tests switch it).
var (
	i8Impls  = append(archI8Impls(), i8Go)
	i8Active = i8Impls[0]
)

// I8Native reports whether the int8 functions run an assembly
// micro-kernel (any level but "go", which is slow).
func I8Native() bool { return i8Active != i8Go }

// I8Level names the int8 micro-kernel in use: "avx512vnni", "avxvnni" or
// "avx2" on amd64, "sdot" on arm64, else "go" (portable). GODEBUG's
// cpu.* settings (golang.org/x/sys/cpu), e.g. cpu.avx512vnni=off or
// cpu.avxvnni=off, make the CPU look like a lower level.
func I8Level() string { return i8Active.name }

// I8LevelReason says why I8Level is what it is, in CPU features: what the
// CPU has, or lacks for the next level up (noting GODEBUG cpu.* settings
// where there are any), or that SetI8Level chose it.
func I8LevelReason() string {
	r := i8Active.reason
	if i8Active != i8Impls[0] {
		return fmt.Sprintf("chosen by SetI8Level (the CPU runs %s: %s)", i8Impls[0].name, i8Impls[0].reason)
	}
	if strings.Contains(os.Getenv("GODEBUG"), "cpu.") {
		r += " (GODEBUG's cpu.* settings in effect)"
	}
	return r
}

// I8Levels lists the int8 levels this CPU runs, best first; the last is
// always "go".
func I8Levels() []string {
	l := make([]string, len(i8Impls))
	for i, im := range i8Impls {
		l[i] = im.name
	}
	return l
}

// SetI8Level makes the int8 functions use the named level, one of
// I8Levels, so that one process can compare the levels (benchmarks, and
// tests that every level gives the same results). It must not run
// concurrently with int8 functions.
func SetI8Level(name string) error {
	for _, im := range i8Impls {
		if im.name == name {
			i8Active = im
			return nil
		}
	}
	return fmt.Errorf("kernel: int8 level %q is not one this CPU runs (%s)", name, strings.Join(I8Levels(), ", "))
}

const (
	i8MR = 8 // the largest tile: i8Edge's size
	i8NR = 32
)

// I8Matrix is a k x n weight matrix packed for the int8 micro-kernel:
// signed bytes, rows taken in quads (k rounded up to a multiple of 4 with
// zero rows), each quad interleaved column by column, n rounded up to a
// multiple of 32 with zero columns; with the per-column scales and the
// scale of the matrix's input.
type I8Matrix struct {
	K, N     int
	kq, np   int       // quads of rows, padded columns
	data     []int8    // [kq][np][4]
	data16   []int16   // data widened, in pairs of rows: [2*kq][np][2] (PackConv3x3I8 only: wide kernels)
	colScale []float32 // [N]: max|w| / 127 of each column
	inScale  float32   // the input's quantization step
	scale    []float32 // [np]: inScale * colScale, zero-padded
	corr     []int32   // [np]: 128 * the sum of each column of data (the SDOT kernel)
	wino     *winoWeights
}

// winoWeights are the weights of a 3x3 convolution transformed for the
// Winograd convolution (PackConv3x3I8, where a level of this CPU has one):
// u is [16][cw/2][npw][2] int16, the 16 values of (2G) g (2G)^T of each
// input and output channel, input channels (cw, padded to 16) in pairs,
// output channels padded to npw (a multiple of 16).
type winoWeights struct {
	u       []int16
	cw, npw int
}

// winoScratch is the length in bytes of the scratch buffer the Winograd
// convolution with weights ww needs for batch images of h x w pixels: the
// padded 16-bit input, one block of transformed tiles (int16) and their
// products (int32), and 32 bytes to align them.
func winoScratch(ww *winoWeights, batch, h, w int) int {
	tiles := winoBlockTiles(batch * (h / 2) * (w / 2))
	return 2*batch*(h+2)*(w+2)*ww.cw + tiles*16*(2*ww.cw+4*ww.npw) + 32
}

// winoBlockTiles is the number of tiles, a multiple of the kernel's 6 rows,
// that the Winograd convolution transforms and multiplies at a time, out
// of tiles in all: at most 24 (a block's products, 24*16*64 int32 for 64
// channels, stay in the level-2 cache with the weights).
func winoBlockTiles(tiles int) int { return min(24, (tiles+5)/6*6) }

// Conv3x3Scratch is the length of the scratch buffer Conv3x3I8 needs with
// the weights m (packed by PackConv3x3I8) at every level of this CPU:
// Conv3x3I8Scratch, or more where the Winograd convolution runs.
func (m *I8Matrix) Conv3x3Scratch(batch, h, w int) int {
	n := Conv3x3I8Scratch(batch, h, w, m.K/9)
	if m.wino != nil && h%2 == 0 && w%2 == 0 {
		n = max(n, winoScratch(m.wino, batch, h, w))
	}
	return n
}

// quantW returns the symmetric int8 quantization of w (a row-major k x n
// matrix) per column and the columns' scales.
func quantW(w []float32, k, n int) ([]int8, []float32) {
	q := make([]int8, k*n)
	scales := make([]float32, n)
	for j := 0; j < n; j++ {
		var m float32
		for r := 0; r < k; r++ {
			m = max(m, float32(math.Abs(float64(w[r*n+j]))))
		}
		if m == 0 || math.IsInf(float64(m), 0) || math.IsNaN(float64(m)) {
			scales[j] = 1
			if m != 0 {
				panic(fmt.Sprintf("kernel: PackI8: column %d has a non-finite weight", j))
			}
			continue
		}
		s := m / 127
		scales[j] = s
		for r := 0; r < k; r++ {
			v := math.RoundToEven(float64(w[r*n+j] / s))
			q[r*n+j] = int8(max(-127, min(127, v)))
		}
	}
	return q, scales
}

// PackI8 packs w, a row-major k x n float32 matrix (a dense weight
// [in][out]), quantized per column, for inputs quantized with step
// inScale (> 0): the value v of an input is read as the byte
// round(v/inScale) clamped to [0, 255].
func PackI8(w []float32, k, n int, inScale float32) *I8Matrix {
	return packI8(w, k, n, inScale, false)
}

// packI8 is PackI8, keeping data16 too when wide.
func packI8(w []float32, k, n int, inScale float32, wide bool) *I8Matrix {
	checkLen("PackI8", "w", w, k*n)
	if !(inScale > 0) || math.IsInf(float64(inScale), 0) {
		panic(fmt.Sprintf("kernel: PackI8: input scale %v is not a positive number", inScale))
	}
	q, cs := quantW(w, k, n)
	m := &I8Matrix{K: k, N: n, kq: (k + 3) / 4, np: (n + i8NR - 1) / i8NR * i8NR, colScale: cs, inScale: inScale}
	m.data = make([]int8, m.kq*m.np*4)
	for r := 0; r < k; r++ {
		for j := 0; j < n; j++ {
			m.data[((r/4)*m.np+j)*4+r%4] = q[r*n+j]
		}
	}
	if wide {
		m.data16 = make([]int16, len(m.data))
		for r := 0; r < k; r++ {
			for j := 0; j < n; j++ {
				m.data16[((r/2)*m.np+j)*2+r%2] = int16(q[r*n+j])
			}
		}
	}
	m.corr = make([]int32, m.np)
	for r := 0; r < k; r++ {
		for j := 0; j < n; j++ {
			m.corr[j] += 128 * int32(q[r*n+j])
		}
	}
	m.scale = make([]float32, m.np)
	for j, s := range cs {
		m.scale[j] = inScale * s
	}
	return m
}

// InScale is the quantization step of the matrix's input.
func (m *I8Matrix) InScale() float32 { return m.inScale }

// quadUp rounds c up to a multiple of 4: the channels of an int8 image, so
// that quads never straddle pixels.
func quadUp(c int) int { return (c + 3) &^ 3 }

// PackConv3x3I8 packs a 3x3 convolution weight [3][3][cin][cout] (the
// layout of Conv3x3) for Conv3x3I8, its input channels padded to a
// multiple of 4; inScale as for PackI8.
func PackConv3x3I8(wt []float32, cin, cout int, inScale float32) *I8Matrix {
	cp := quadUp(cin)
	w := padConvWeights("PackConv3x3I8", wt, cin, cp, cout)
	m := packI8(w, 9*cp, cout, inScale, true)
	for _, im := range i8Impls {
		if im.wino {
			packWino(m)
			break
		}
	}
	return m
}

// Conv3x3I8Scratch is the length of the scratch buffer Conv3x3I8's direct
// kernels need (at every level: two bytes a value, which the wide kernel
// uses); I8Matrix.Conv3x3Scratch covers the Winograd convolution too.
func Conv3x3I8Scratch(batch, h, w, cin int) int { return 2 * batch * (h + 2) * (w + 2) * quadUp(cin) }

// DenseI8Scratch is the length of the scratch buffer DenseI8 needs.
func DenseI8Scratch(rows, in int) int { return rows * quadUp(in) }

// QuantU8 is the quantization of an input value x with step s, as the
// int8 functions read their inputs: round to nearest even of x*(1/s),
// clamped to [0, 255] (NaN reads as 255).
func QuantU8(x, s float32) uint8 { return quantOne(x, 1/s) }

func quantOne(x, inv float32) uint8 {
	v := x * inv
	if !(v < 255) {
		v = 255
	}
	v = max(v, 0)
	return uint8(math.RoundToEven(float64(v)))
}

// quantU8 quantizes src into dst (len(dst) >= len(src)) with 1/step inv.
func quantU8(dst []uint8, src []float32, inv float32) {
	dst = dst[:len(src)]
	n := quantU8Native(i8Active.id, dst, src, inv)
	for i := n; i < len(src); i++ {
		dst[i] = quantOne(src[i], inv)
	}
}

// quantU16 is quantU8 into 16-bit values (a wide kernel's A).
func quantU16(dst []uint16, src []float32, inv float32) {
	dst = dst[:len(src)]
	n := quantU16Native(i8Active.id, dst, src, inv)
	for i := n; i < len(src); i++ {
		dst[i] = uint16(quantOne(src[i], inv))
	}
}

// u16Scratch returns the bytes of scratch as uint16 values, or nil where
// its start is not 2-byte aligned (a new buffer is made then).
func u16Scratch(scratch []uint8) []uint16 {
	if len(scratch) < 2 || uintptr(unsafe.Pointer(unsafe.SliceData(scratch)))%2 != 0 {
		return nil
	}
	return unsafe.Slice((*uint16)(unsafe.Pointer(unsafe.SliceData(scratch))), len(scratch)/2)
}

// u16Bytes returns the bytes of s, the operand A of a wide kernel.
func u16Bytes(s []uint16) []uint8 {
	return unsafe.Slice((*uint8)(unsafe.Pointer(unsafe.SliceData(s))), 2*len(s))
}

// Conv3x3I8 is Conv3x3 with wt packed by PackConv3x3I8 and the products in
// int8. scratch may be nil or shorter than wt.Conv3x3Scratch (then the
// call allocates).
func Conv3x3I8(dst, src []float32, batch, h, w, cin, cout int, wt *I8Matrix, bias, residual []float32, relu bool, scratch []uint8) {
	cp := quadUp(cin)
	if !checkPackedConv("Conv3x3I8", dst, src, batch, h, w, cin, cout, cp, wt.K, wt.N, bias, residual) {
		return
	}
	inv := 1 / wt.inScale
	im := i8Active
	if wt.data16 == nil {
		im = im.forDense()
	}
	if conv3x3I8Wino(im, dst, src, batch, h, w, cin, cout, wt, bias, residual, relu, scratch) {
		return
	}
	var pad []uint8
	if im.wide {
		pad = u16Bytes(padInto(u16Scratch(scratch), src, batch, h, w, cin, cp, func(d []uint16, s []float32) { quantU16(d, s, inv) }))
	} else {
		pad = padInto(scratch, src, batch, h, w, cin, cp, func(d []uint8, s []float32) { quantU8(d, s, inv) })
	}
	pixels := batch * h * w
	acc := fillBias(dst, pixels, cout, bias, residual)
	// Three segments (the rows of taps) of 3*cp bytes, (w+2)*cp apart.
	gemmI8(im, pixels, wt, pad, 0, h, w, cp, 3, 3*cp/4, (w+2)*cp-3*cp, dst, cout, acc, relu)
}

// DenseI8 is Dense (and, with rows = pixels, Conv1x1) with wt packed by
// PackI8 and the products in int8. scratch may be nil or shorter than
// DenseI8Scratch (then the call allocates).
func DenseI8(dst, src []float32, rows, in, out int, wt *I8Matrix, bias []float32, relu bool, scratch []uint8) {
	if !checkPackedDense("DenseI8", dst, src, rows, in, out, wt.K, wt.N, bias) {
		return
	}
	ip := quadUp(in)
	a := scratchOf(scratch, rows*ip)
	inv := 1 / wt.inScale
	convertRows(a, src, rows, in, ip, func(d []uint8, s []float32) { quantU8(d, s, inv) })
	acc := fillBias(dst, rows, out, bias, nil)
	gemmI8(i8Active.forDense(), rows, wt, a, ip, 0, 0, 0, 1, wt.kq, 0, dst, out, acc, relu)
}

// i8Edge holds a tile of C for partial tiles.
type i8Edge struct {
	c [i8MR * i8NR]float32
}

// gemmI8 computes C (m x b.N, stride ldc) = dequantized A*B (+ C when
// acc), then max(0, x) if relu, with im's micro-kernel (im.wide needs
// b.data16). A is a plain
// matrix of row stride lda (cin 0) or the im2col view of padded images (h
// x w pixels of cin channels); each row is read as nseg segments of seg
// quads, skip values apart. A holds bytes, or at a wide level the bytes of
// 16-bit values (strides and skip in values all the same). The tile's nr
// divides 32, so its columns never pass the padded width of B.
func gemmI8(im *i8Impl, m int, b *I8Matrix, a []uint8, lda, h, w, cin, nseg, seg, skip int, c []float32, ldc int, acc, relu bool) {
	mr, nr := im.mr, im.nr
	es, bdata := 1, b.data // bytes a value of A, and B as the kernel reads it
	if im.wide {
		es, bdata = 2, unsafe.Slice((*int8)(unsafe.Pointer(unsafe.SliceData(b.data16))), 2*len(b.data16))
		skip *= 2
	}
	flags := 0
	if acc {
		flags |= flagAcc
	}
	if relu {
		flags |= flagRelu
	}
	op := operandA{lda: lda, h: h, w: w, cin: cin}
	var buf i8Edge
	var offs [mcRows]int
	var rows [i8MR]*uint8
	n := b.N
	mc := mcRows - mcRows%mr
	// A plain matrix (a dense layer: few rows, large weights) is swept a
	// strip of nr columns at a time over all its rows, so that the strip
	// of B stays in the level-1 cache (the policy head's 512 x 1024 bytes
	// were read again from memory for every tile of rows); a convolution's
	// small weights are swept for each tile of rows instead.
	byCols := cin == 0
	for ic := 0; ic < m; ic += mc {
		mb := min(mc, m-ic)
		off := offs[:mb]
		op.rowOffsets(off, ic)
		ni, nj := (mb+mr-1)/mr, (n+nr-1)/nr
		for t := 0; t < ni*nj; t++ {
			ti, tj := t/nj, t%nj
			if byCols {
				ti, tj = t%ni, t/ni
			}
			i, j := ti*mr, tj*nr
			nrows := min(mr, mb-i)
			if byCols || tj == 0 {
				for r := range rows {
					// Missing rows repeat the first: their results are dropped.
					rows[r] = &a[es*off[i+min(r, nrows-1)]]
				}
			}
			ci := (ic + i) * ldc
			bp := &bdata[j*4] // column j: 4 bytes into a row of quads or of pairs
			sp := &b.scale[j]
			cp := &b.corr[j]
			ncols := min(nr, n-j)
			if nrows == mr && ncols == nr {
				callKernelI8(im.id, seg, nseg, skip, &rows[0], bp, b.np, &c[ci+j], ldc, sp, cp, flags)
				continue
			}
			if acc {
				loadTile(buf.c[:], c[ci+j:], ldc, nr, nrows, ncols)
			}
			callKernelI8(im.id, seg, nseg, skip, &rows[0], bp, b.np, &buf.c[0], nr, sp, cp, flags)
			storeTile(c[ci+j:], buf.c[:], ldc, nr, nrows, ncols)
		}
	}
}

// kernelI8Go is the portable int8 micro-kernel, the arithmetic of the
// VPDPBUSD kernel in Go: over nseg segments of seg quads (skip bytes
// between a segment's end and the next one's start in every row of A),
// sums[r][j] = sum over k of int32(A[r][k]) * int32(B[k][j]); then C[r][j]
// = float32(sums[r][j]) * scale[j] (+ C with flagAcc), max(0, x) with
// flagRelu. The int32 sums are exact, so the result equals the assembly's.
func kernelI8Go(seg, nseg, skip int, rows **uint8, b *int8, ldb int, c *float32, ldc int, scale *float32, flags int) {
	rp := unsafe.Slice(rows, i8MR)
	kq := seg * nseg
	span := (seg*nseg)*4 + (nseg-1)*skip
	bs := unsafe.Slice(b, ((kq-1)*ldb+i8NR)*4)
	cs := unsafe.Slice(c, (i8MR-1)*ldc+i8NR)
	sc := unsafe.Slice(scale, i8NR)
	var sums [i8MR][i8NR]int32
	for r := 0; r < i8MR; r++ {
		a := unsafe.Slice(rp[r], span)
		row := &sums[r]
		q, off := 0, 0
		for s := 0; s < nseg; s++ {
			for e := 0; e < seg; e++ {
				bq := bs[q*ldb*4 : q*ldb*4+4*i8NR]
				a0, a1, a2, a3 := int32(a[off]), int32(a[off+1]), int32(a[off+2]), int32(a[off+3])
				for j := range row {
					row[j] += a0*int32(bq[4*j]) + a1*int32(bq[4*j+1]) + a2*int32(bq[4*j+2]) + a3*int32(bq[4*j+3])
				}
				q++
				off += 4
			}
			off += skip
		}
	}
	for r := 0; r < i8MR; r++ {
		d := cs[r*ldc : r*ldc+i8NR]
		for j, s := range sums[r] {
			v := float32(float32(s) * sc[j]) // rounded before the add, as VMULPS
			if flags&flagAcc != 0 {
				v += d[j]
			}
			if flags&flagRelu != 0 {
				v = max(v, 0)
			}
			d[j] = v
		}
	}
}
