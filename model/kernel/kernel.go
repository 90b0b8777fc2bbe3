// Package kernel is the arithmetic core of the network's pure-Go inference:
// single-precision matrix products and the convolutions built on them.
//
// All matrices are row-major float32 and all activations are NHWC
// ([batch][height][width][channels]). The work is done by an SGEMM with a
// register-blocked micro-kernel: Go assembly (AVX-512 or AVX2 with FMA on
// amd64, chosen at start-up from the CPU's features; NEON on arm64), or a
// portable pure-Go kernel on other architectures and under the purego
// build tag. A 3x3
// convolution is an SGEMM over the im2col matrix of its input, which the
// micro-kernels read in place from a zero-padded copy of the images (rows
// of A are passed as pointers), so the nine-fold im2col copy is never made.
// conv.go holds the same convolution with its weights prepared once
// (PackConv3x3, Conv3x3Packed), which runs as a Winograd F(4x4, 3x3)
// convolution, four times fewer multiplications on the SGEMM micro-kernels,
// where the CPU has AVX-512 or AVX2.
//
// bf16.go holds the same products in bfloat16 (float32 accumulation):
// VDPBF16PS on CPUs with AVX512_BF16, a portable kernel elsewhere; int8.go
// in int8 (int32 accumulation, float32 dequantization): VPDPBUSD on CPUs
// with AVX512_VNNI or AVX-VNNI, VPMADDWD on the operands widened to 16
// bits on CPUs with AVX2 (I8Level), SDOT on arm64, a portable kernel of
// the same integer arithmetic elsewhere, all with the same results bit for
// bit.
//
// Every function runs on the calling goroutine and is safe for concurrent
// use on distinct outputs. Slices that are too short for the given shapes
// are programming errors and panic with a message naming the operand.
package kernel

import (
	"fmt"
	"unsafe"
)

// Micro-kernel flags.
const (
	flagAcc  = 1 // add the product to C instead of overwriting it
	flagRelu = 2 // apply max(0, x) before storing
)

// Micro-kernel identifiers, dispatched by callKernel.
const (
	idGo = iota
	idAVX512
	idAVX2
)

// Upper bounds over all micro-kernels, sizing the edge buffers.
const (
	maxMR = 8
	maxNR = 32
	maxKC = 384
)

// impl is one SGEMM implementation: an mr x nr micro-kernel and the depth
// kc of the blocks of k it is fed.
type impl struct {
	name       string
	id         int
	mr, nr, kc int
	// winoVW is the channels per vector of the transforms of the
	// Winograd convolution (conv.go), 0 where it has none; from
	// winoMinTiles tiles of a batch on, the Winograd convolution is
	// faster than the direct product in a network (WinogradMinBatch).
	winoVW, winoMinTiles int
}

// goImpl runs the Winograd convolution with the transforms in Go: its
// multiplications cost so much more than the transforms that it is 2.4
// times faster than the direct product on the workstation net, a single
// position included (BenchmarkConv3x3Packed, and the network under
// GODEBUG's portable mask).
var goImpl = &impl{name: "go", id: idGo, mr: 2, nr: 4, kc: 256, winoVW: 1, winoMinTiles: 1}

// impls lists the implementations this CPU can run, fastest first.
var impls = append(archImpls(), goImpl)

// active is the implementation used by the exported functions.
var active = impls[0]

// Backend names the SGEMM implementation in use: "avx512", "avx2", "neon"
// or "go".
func Backend() string { return active.name }

// Sgemm computes C = A*B (+ C when acc) for row-major A (m x k, stride
// lda), B (k x n, stride ldb) and C (m x n, stride ldc). C must not
// overlap A or B.
func Sgemm(m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int, acc bool) {
	checkMatrix("Sgemm", "a", a, m, k, lda)
	checkMatrix("Sgemm", "b", b, k, n, ldb)
	checkMatrix("Sgemm", "c", c, m, n, ldc)
	gemm(active, m, n, k, &operandA{data: a, lda: lda}, b, ldb, c, ldc, acc, false, false)
}

// Conv3x3Scratch is the length of the scratch buffer Conv3x3 needs to run
// without allocating: one zero-padded copy of the input.
func Conv3x3Scratch(batch, h, w, cin int) int { return batch * (h + 2) * (w + 2) * cin }

// Conv3x3 is a 3x3 convolution with zero padding and stride 1 over batch
// images of h x w pixels in NHWC layout: src is [batch][h][w][cin], dst is
// [batch][h][w][cout], wt is [3][3][cin][cout] (ky, kx, ci, co) and bias
// is [cout] (nil means zero). If residual is not nil it is added (same
// shape as dst) after the bias; if relu, max(0, x) is applied last. dst
// may be the same slice as residual or src. scratch may be nil; with
// cap(scratch) >= Conv3x3Scratch(batch, h, w, cin) the call does not
// allocate (scratch must not overlap the other slices).
func Conv3x3(dst, src []float32, batch, h, w, cin, cout int, wt, bias, residual []float32, relu bool, scratch []float32) {
	checkConv3x3("Conv3x3", dst, src, batch, h, w, cin, cout, bias, residual)
	checkLen("Conv3x3", "wt", wt, 9*cin*cout)
	conv3x3Direct(dst, src, batch, h, w, cin, cout, wt, false, bias, residual, relu, scratch)
}

// checkConv3x3 checks the shape and the operands but the weights of a 3x3
// convolution for fn.
func checkConv3x3(fn string, dst, src []float32, batch, h, w, cin, cout int, bias, residual []float32) {
	if batch < 0 || h < 0 || w < 0 || cin < 0 || cout < 0 {
		panic(fmt.Sprintf("kernel: %s: negative shape batch=%d h=%d w=%d cin=%d cout=%d", fn, batch, h, w, cin, cout))
	}
	pixels := batch * h * w
	checkLen(fn, "src", src, pixels*cin)
	checkLen(fn, "dst", dst, pixels*cout)
	checkOptional(fn, "bias", bias, cout)
	checkOptional(fn, "residual", residual, pixels*cout)
}

// conv3x3Direct is Conv3x3 on checked operands, with the weights wt as
// Conv3x3 takes them or, with packed, in column panels (packPanels): the
// same results bit for bit, and as fast for 64 channels; the panels spare
// the copy of a partial panel of B where cout is not a multiple of the
// micro-kernel's columns.
func conv3x3Direct(dst, src []float32, batch, h, w, cin, cout int, wt []float32, packed bool, bias, residual []float32, relu bool, scratch []float32) {
	pixels := batch * h * w
	if pixels == 0 || cout == 0 {
		return
	}
	if cin == 0 {
		acc := fillBias(dst, pixels, cout, bias, residual)
		gemm(active, pixels, cout, 0, nil, nil, cout, dst, cout, acc, relu, false)
		return
	}
	need := Conv3x3Scratch(batch, h, w, cin)
	if cap(scratch) < need {
		scratch = make([]float32, need)
	}
	pad := scratch[:need]
	padImages(pad, src, batch, h, w, cin)
	acc := fillBias(dst, pixels, cout, bias, residual)
	a := &operandA{data: pad, h: h, w: w, cin: cin}
	if packed {
		gemmPanels(active, pixels, cout, 9*cin, a, wt, dst, cout, acc, relu)
	} else {
		gemm(active, pixels, cout, 9*cin, a, wt, cout, dst, cout, acc, relu, false)
	}
}

// padImages copies the NHWC images of src into pad with a border of one
// zero pixel on every side: pad is [batch][h+2][w+2][cin].
func padImages(pad, src []float32, batch, h, w, cin int) {
	padImagesAs(pad, src, batch, h, w, cin, cin, copyF32)
}

func copyF32(dst, src []float32) { copy(dst, src) }

// padImagesAs is padImages for the packed paths: each pixel's cin values
// of src are converted by conv into cp >= cin elements of pad (the rest
// zero), so pad is [batch][h+2][w+2][cp].
func padImagesAs[T any](pad []T, src []float32, batch, h, w, cin, cp int, conv func([]T, []float32)) {
	row := (w + 2) * cp
	for b := 0; b < batch; b++ {
		img := pad[b*(h+2)*row : (b+1)*(h+2)*row]
		clear(img[:row])
		clear(img[(h+1)*row:])
		for y := 0; y < h; y++ {
			d := img[(y+1)*row : (y+2)*row]
			clear(d[:cp])
			clear(d[(w+1)*cp:])
			convertRows(d[cp:(w+1)*cp], src[(b*h+y)*w*cin:(b*h+y+1)*w*cin], w, cin, cp, conv)
		}
	}
}

// padInto is padImagesAs into scratch, or into a new slice when scratch
// is shorter than the padded images; it returns them.
func padInto[T any](scratch []T, src []float32, batch, h, w, cin, cp int, conv func([]T, []float32)) []T {
	pad := scratchOf(scratch, batch*(h+2)*(w+2)*cp)
	padImagesAs(pad, src, batch, h, w, cin, cp, conv)
	return pad
}

// convertRows converts rows rows of in values of src by conv into dst,
// whose rows are ld >= in elements long (the rest zero).
func convertRows[T any](dst []T, src []float32, rows, in, ld int, conv func([]T, []float32)) {
	if ld == in {
		conv(dst[:rows*in], src[:rows*in])
		return
	}
	for r := 0; r < rows; r++ {
		d := dst[r*ld : (r+1)*ld]
		conv(d, src[r*in:(r+1)*in])
		clear(d[in:])
	}
}

// loadTile copies the nrows x ncols tile of C at c (stride ldc) into buf
// (stride nr), for a micro-kernel that accumulates onto a partial tile.
func loadTile(buf, c []float32, ldc, nr, nrows, ncols int) {
	for r := 0; r < nrows; r++ {
		copy(buf[r*nr:r*nr+ncols], c[r*ldc:r*ldc+ncols])
	}
}

// storeTile copies the valid nrows x ncols part of buf (stride nr) back
// to C at c (stride ldc).
func storeTile(c, buf []float32, ldc, nr, nrows, ncols int) {
	for r := 0; r < nrows; r++ {
		copy(c[r*ldc:r*ldc+ncols], buf[r*nr:r*nr+ncols])
	}
}

// kBlock returns the next block of k for the blocked GEMMs at pc: its
// length kb (at most kc, within one contiguous segment of segLen), the
// column of A where it starts (unit elements per step of k) and the
// micro-kernel's flags (accumulate onto C after the first block or with
// acc; relu on the last).
func kBlock(pc, k, kc, segLen, segJump, unit int, acc, relu bool) (kb, col, flags int) {
	inSeg := pc % segLen
	kb = min(kc, segLen-inSeg, k-pc)
	col = pc/segLen*segJump + unit*inSeg
	if acc || pc > 0 {
		flags |= flagAcc
	}
	if relu && pc+kb == k {
		flags |= flagRelu
	}
	return kb, col, flags
}

// Dense computes dst[batch][out] = src[batch][in] * wt[in][out] + bias
// (nil means zero), then max(0, x) if relu. dst must not overlap src.
func Dense(dst, src []float32, batch, in, out int, wt, bias []float32, relu bool) {
	pointwise("Dense", dst, src, batch, in, out, wt, bias, relu)
}

// Conv1x1 is a pointwise convolution over NHWC pixels (batch*h*w of them):
// dst[p][cout] = src[p][cin] * wt[cin][cout] + bias (nil means zero), then
// max(0, x) if relu. dst must not overlap src.
func Conv1x1(dst, src []float32, pixels, cin, cout int, wt, bias []float32, relu bool) {
	pointwise("Conv1x1", dst, src, pixels, cin, cout, wt, bias, relu)
}

func pointwise(fn string, dst, src []float32, rows, in, out int, wt, bias []float32, relu bool) {
	if rows < 0 || in < 0 || out < 0 {
		panic(fmt.Sprintf("kernel: %s: negative shape %d x %d -> %d", fn, rows, in, out))
	}
	checkLen(fn, "src", src, rows*in)
	checkLen(fn, "dst", dst, rows*out)
	checkLen(fn, "wt", wt, in*out)
	checkOptional(fn, "bias", bias, out)
	acc := fillBias(dst, rows, out, bias, nil)
	gemm(active, rows, out, in, &operandA{data: src, lda: in}, wt, out, dst, out, acc, relu, false)
}

func checkLen(fn, name string, s []float32, n int) {
	if len(s) < n {
		panic(fmt.Sprintf("kernel: %s: len(%s) = %d, need %d", fn, name, len(s), n))
	}
}

func checkOptional(fn, name string, s []float32, n int) {
	if s != nil {
		checkLen(fn, name, s, n)
	}
}

// checkMatrix panics unless s holds a rows x cols matrix with stride ld.
func checkMatrix(fn, name string, s []float32, rows, cols, ld int) {
	if rows < 0 || cols < 0 || ld < cols || ld < 1 {
		panic(fmt.Sprintf("kernel: %s: bad shape for %s: %d x %d with stride %d", fn, name, rows, cols, ld))
	}
	if rows > 0 && cols > 0 {
		checkLen(fn, name, s, (rows-1)*ld+cols)
	}
}

// fillBias sets each of the rows of dst (width n) to bias + residual and
// reports whether it wrote anything (false when both are nil).
func fillBias(dst []float32, rows, n int, bias, residual []float32) bool {
	if bias == nil && residual == nil {
		return false
	}
	for r := 0; r < rows; r++ {
		row := dst[r*n : (r+1)*n]
		if residual == nil {
			copy(row, bias[:n])
			continue
		}
		copy(row, residual[r*n:(r+1)*n])
		if bias != nil {
			for j, v := range bias[:n] {
				row[j] += v
			}
		}
	}
	return true
}

// operandA describes the left operand of a product: either a plain
// row-major matrix, or the im2col view of a zero-padded NHWC image in which
// row i and column (ky, kx, ci) lie at pad[base(i) + ky*(w+2)*cin + kx*cin + ci].
type operandA struct {
	data []float32
	lda  int // plain: row stride
	// conv (when cin > 0): geometry of the unpadded images
	h, w, cin int
}

// rowOffsets sets off[r] to the offset in data of row i0+r, column 0.
func (s *operandA) rowOffsets(off []int, i0 int) {
	if s.cin == 0 {
		for r := range off {
			off[r] = (i0 + r) * s.lda
		}
		return
	}
	hw := s.h * s.w
	b, rem := i0/hw, i0%hw
	y, x := rem/s.w, rem%s.w
	for r := range off {
		off[r] = ((b*(s.h+2)+y)*(s.w+2) + x) * s.cin
		if x++; x == s.w {
			x = 0
			if y++; y == s.h {
				y = 0
				b++
			}
		}
	}
}

// segment returns the length of the contiguous runs of columns (the whole
// row for a plain matrix, one (ky) row of taps for a convolution) and the
// distance in data between the starts of consecutive runs.
func (s *operandA) segment(k int) (length, jump int) {
	if s.cin == 0 {
		return k, k
	}
	return 3 * s.cin, (s.w + 2) * s.cin
}

// mcRows is the number of rows of A and C processed together, so that
// their blocks stay in the level-2 cache.
const mcRows = 256

// zeroRow stands in for the missing rows of A of a partial tile. It is
// never written.
var zeroRow [maxKC]float32

// edgeBuf holds zero-padded copies of the partial tiles of B and C, so
// that the micro-kernels only ever see full mr x nr tiles. b is nil when
// B is padded already (see gemm).
type edgeBuf struct {
	c [maxMR * maxNR]float32
	b []float32 // maxKC * maxNR
}

// gemm computes C = A*B (+ C when acc), then max(0, x) if relu, with the
// implementation im. The operands have been checked. With padded, every
// row of B may be read up to its column n rounded up to a multiple of
// im.nr, where it holds zeros (packPanels' panels): partial tiles of
// columns then read B in place.
func gemm(im *impl, m, n, k int, a *operandA, b []float32, ldb int, c []float32, ldc int, acc, relu, padded bool) {
	if m <= 0 || n <= 0 {
		return
	}
	if k <= 0 {
		for i := 0; i < m; i++ {
			row := c[i*ldc : i*ldc+n]
			if !acc {
				clear(row)
			}
			if relu {
				for j, v := range row {
					row[j] = max(v, 0)
				}
			}
		}
		return
	}
	if m%im.mr == 0 && n%im.nr == 0 {
		gemmBlocks(im, m, n, k, a, b, ldb, c, ldc, acc, relu, nil)
		return
	}
	gemmEdges(im, m, n, k, a, b, ldb, c, ldc, acc, relu, padded)
}

// gemmEdges is gemmBlocks with the buffers for partial tiles, kept out of
// the stack frame of the common case; the large one, for a partial panel
// of B, only where B is not padded.
//
//go:noinline
func gemmEdges(im *impl, m, n, k int, a *operandA, b []float32, ldb int, c []float32, ldc int, acc, relu, padded bool) {
	var buf edgeBuf
	if !padded && n%im.nr != 0 {
		var bb [maxKC * maxNR]float32
		buf.b = bb[:]
	}
	gemmBlocks(im, m, n, k, a, b, ldb, c, ldc, acc, relu, &buf)
}

// gemmBlocks is the blocked loop of gemm for k >= 1; buf may be nil when
// mr divides m and nr divides n.
func gemmBlocks(im *impl, m, n, k int, a *operandA, b []float32, ldb int, c []float32, ldc int, acc, relu bool, buf *edgeBuf) {
	var offs [mcRows]int
	var rows [maxMR]*float32
	mr, nr, kc := im.mr, im.nr, im.kc
	segLen, segJump := a.segment(k)
	mc := mcRows - mcRows%mr
	for ic := 0; ic < m; ic += mc {
		mb := min(mc, m-ic)
		off := offs[:mb]
		a.rowOffsets(off, ic)
		for pc := 0; pc < k; {
			kb, col, flags := kBlock(pc, k, kc, segLen, segJump, 1, acc, relu)
			if n%nr != 0 && buf.b != nil { // pack the last, partial column panel of B
				j0 := n - n%nr
				for p := 0; p < kb; p++ {
					dst := buf.b[p*nr : (p+1)*nr]
					copy(dst, b[(pc+p)*ldb+j0:(pc+p)*ldb+n])
					clear(dst[n-j0:])
				}
			}
			for i := 0; i < mb; i += mr {
				nrows := min(mr, mb-i)
				for r := range rows[:mr] {
					if r < nrows {
						rows[r] = &a.data[off[i+r]+col]
					} else {
						rows[r] = &zeroRow[0]
					}
				}
				ci := (ic + i) * ldc
				for j := 0; j < n; j += nr {
					ncols := min(nr, n-j)
					if nrows == mr && ncols == nr {
						callKernel(im.id, kb, &rows[0], &b[pc*ldb+j], ldb, &c[ci+j], ldc, flags)
						continue
					}
					bp, ldb2 := &b[pc*ldb+j], ldb
					if ncols < nr && buf.b != nil {
						bp, ldb2 = &buf.b[0], nr
					}
					// Partial tile: compute into buf.c and copy the valid part.
					if flags&flagAcc != 0 {
						loadTile(buf.c[:], c[ci+j:], ldc, nr, nrows, ncols)
					}
					callKernel(im.id, kb, &rows[0], bp, ldb2, &buf.c[0], nr, flags)
					storeTile(c[ci+j:], buf.c[:], ldc, nr, nrows, ncols)
				}
			}
			pc += kb
		}
	}
}

// kernelGo is the portable 2x4 micro-kernel: C[0:2][0:4] = A[0:2][0:k] *
// B[0:k][0:4] (+ C with flagAcc), then max(0, x) with flagRelu, where row
// r of A starts at rows[r]. Its eight accumulators, the two values of A and
// one of B fit the fifteen float registers Go uses, so nothing spills.
func kernelGo(k int, rows **float32, b *float32, ldb int, c *float32, ldc int, flags int) {
	rp := unsafe.Slice(rows, 2)
	a0, a1 := unsafe.Slice(rp[0], k), unsafe.Slice(rp[1], k)
	bs := unsafe.Slice(b, (k-1)*ldb+4)
	var c00, c01, c02, c03, c10, c11, c12, c13 float32
	for p := range k {
		bp := bs[p*ldb : p*ldb+4 : p*ldb+4]
		x0, x1 := a0[p], a1[p]
		y := bp[0]
		c00 += x0 * y
		c10 += x1 * y
		y = bp[1]
		c01 += x0 * y
		c11 += x1 * y
		y = bp[2]
		c02 += x0 * y
		c12 += x1 * y
		y = bp[3]
		c03 += x0 * y
		c13 += x1 * y
	}
	cs := unsafe.Slice(c, ldc+4)
	store4(cs[0:4:4], c00, c01, c02, c03, flags)
	store4(cs[ldc:ldc+4:ldc+4], c10, c11, c12, c13, flags)
}

func store4(dst []float32, v0, v1, v2, v3 float32, flags int) {
	if flags&flagAcc != 0 {
		v0 += dst[0]
		v1 += dst[1]
		v2 += dst[2]
		v3 += dst[3]
	}
	if flags&flagRelu != 0 {
		v0, v1, v2, v3 = max(v0, 0), max(v1, 0), max(v2, 0), max(v3, 0)
	}
	dst[0], dst[1], dst[2], dst[3] = v0, v1, v2, v3
}
