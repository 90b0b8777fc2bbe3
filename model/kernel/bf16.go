package kernel

import (
	"fmt"
	"math"
	"unsafe"
)

// The bf16 path: products of bfloat16 weights and activations accumulated
// in float32. Weights are packed once (PackBF16, PackConv3x3BF16); each
// call rounds its float32 input to bfloat16 (round to nearest even) into a
// scratch buffer laid out as the micro-kernel reads it, and writes float32
// outputs with bias, residual and ReLU as the float32 functions do. The
// micro-kernel is an 8 x 32 tile over pairs of k: VDPBF16PS (AVX512_BF16)
// where the CPU has it (BF16Native), else a portable Go kernel of the same
// arithmetic, so the path is exercised on every CPU.

// BF16Native reports whether the bf16 functions run the AVX512_BF16
// micro-kernel (otherwise they run a slow portable one).
func BF16Native() bool { return bf16Native && !bf16ForceGo }

// bf16ForceGo makes the bf16 functions use the portable micro-kernel
// (tests).
var bf16ForceGo bool

const (
	bf16MR = 8
	bf16NR = 32
	bf16KC = 256 // pairs of k per block: a 32 KB block of B
)

// ToBF16 rounds x to bfloat16 (nearest, ties to even; NaN stays NaN).
func ToBF16(x float32) uint16 {
	u := math.Float32bits(x)
	if u&0x7fffffff > 0x7f800000 {
		return uint16(u>>16) | 0x40
	}
	u += 0x7fff + (u>>16)&1
	return uint16(u >> 16)
}

// roundBF16 rounds src to bfloat16 into dst (len(dst) >= len(src)).
func roundBF16(dst []uint16, src []float32) {
	dst = dst[:len(src)]
	n := 0
	if BF16Native() {
		n = cvtBF16Native(dst, src)
	}
	for i := n; i < len(src); i++ {
		dst[i] = ToBF16(src[i])
	}
}

// FromBF16 widens a bfloat16 to float32 (exactly).
func FromBF16(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }

// BF16Matrix is a k x n matrix packed for the bf16 micro-kernel: rows taken
// in pairs (k rounded up to even, with a zero row), each pair interleaved
// column by column, and n rounded up to a multiple of 32 with zero columns.
type BF16Matrix struct {
	K, N   int
	kp, np int      // pairs of rows, padded columns
	data   []uint16 // [kp][np][2]
}

// PackBF16 packs w, a row-major k x n float32 matrix (a dense weight
// [in][out]), rounding to bfloat16.
func PackBF16(w []float32, k, n int) *BF16Matrix {
	checkLen("PackBF16", "w", w, k*n)
	m := &BF16Matrix{K: k, N: n, kp: (k + 1) / 2, np: (n + bf16NR - 1) / bf16NR * bf16NR}
	m.data = make([]uint16, m.kp*m.np*2)
	for r := 0; r < k; r++ {
		for j := 0; j < n; j++ {
			m.data[((r/2)*m.np+j)*2+r%2] = ToBF16(w[r*n+j])
		}
	}
	return m
}

// evenUp rounds c up to even: the channels of a bf16 image, so that pairs
// never straddle pixels.
func evenUp(c int) int { return (c + 1) &^ 1 }

// PackConv3x3BF16 packs a 3x3 convolution weight [3][3][cin][cout] (the
// layout of Conv3x3) for Conv3x3BF16, its input channels padded to even.
func PackConv3x3BF16(wt []float32, cin, cout int) *BF16Matrix {
	cp := evenUp(cin)
	w := padConvWeights("PackConv3x3BF16", wt, cin, cp, cout)
	return PackBF16(w, 9*cp, cout)
}

// Conv3x3BF16Scratch is the length of the scratch buffer Conv3x3BF16 needs.
func Conv3x3BF16Scratch(batch, h, w, cin int) int { return batch * (h + 2) * (w + 2) * evenUp(cin) }

// DenseBF16Scratch is the length of the scratch buffer DenseBF16 needs.
func DenseBF16Scratch(rows, in int) int { return rows * evenUp(in) }

// Conv3x3BF16 is Conv3x3 with wt packed by PackConv3x3BF16 and the
// products in bfloat16. scratch may be nil or shorter than
// Conv3x3BF16Scratch (then the call allocates).
func Conv3x3BF16(dst, src []float32, batch, h, w, cin, cout int, wt *BF16Matrix, bias, residual []float32, relu bool, scratch []uint16) {
	cp := evenUp(cin)
	if !checkPackedConv("Conv3x3BF16", dst, src, batch, h, w, cin, cout, cp, wt.K, wt.N, bias, residual) {
		return
	}
	pad := padInto(scratch, src, batch, h, w, cin, cp, roundBF16)
	pixels := batch * h * w
	acc := fillBias(dst, pixels, cout, bias, residual)
	gemmBF16(pixels, wt, &operandBF16{data: pad, h: h, w: w, cin: cp}, dst, cout, acc, relu)
}

// DenseBF16 is Dense (and, with rows = pixels, Conv1x1) with wt packed by
// PackBF16 and the products in bfloat16. scratch may be nil or shorter than
// DenseBF16Scratch (then the call allocates).
func DenseBF16(dst, src []float32, rows, in, out int, wt *BF16Matrix, bias []float32, relu bool, scratch []uint16) {
	if !checkPackedDense("DenseBF16", dst, src, rows, in, out, wt.K, wt.N, bias) {
		return
	}
	ip := evenUp(in)
	a := scratchOf(scratch, rows*ip)
	convertRows(a, src, rows, in, ip, roundBF16)
	acc := fillBias(dst, rows, out, bias, nil)
	gemmBF16(rows, wt, &operandBF16{data: a, lda: ip}, dst, out, acc, relu)
}

// operandBF16 is operandA in bfloat16: a plain matrix (row stride lda) or
// the im2col view of padded NHWC images of cin (even) channels.
type operandBF16 struct {
	data      []uint16
	lda       int
	h, w, cin int
}

func (s *operandBF16) rowOffsets(off []int, i0 int) {
	a := operandA{lda: s.lda, h: s.h, w: s.w, cin: s.cin}
	a.rowOffsets(off, i0)
}

// segment returns the length in pairs of the contiguous runs of k and the
// distance in elements between their starts.
func (s *operandBF16) segment(kp int) (pairs, jump int) {
	if s.cin == 0 {
		return kp, 2 * kp
	}
	return 3 * s.cin / 2, (s.w + 2) * s.cin
}

// bf16Edge holds the zero row standing in for missing rows of A and a tile
// of C for partial tiles.
type bf16Edge struct {
	zero [2 * bf16KC]uint16
	c    [bf16MR * bf16NR]float32
}

// gemmBF16 computes C (m x b.N, stride ldc) = A*B (+ C when acc), then
// max(0, x) if relu, over the kp pairs of k of b.
func gemmBF16(m int, b *BF16Matrix, a *operandBF16, c []float32, ldc int, acc, relu bool) {
	native := BF16Native()
	call := func(k int, rows **uint16, b *uint16, ldb int, c *float32, ldc int, flags int) {
		if native {
			callKernelBF16Native(k, rows, b, ldb, c, ldc, flags)
		} else {
			kernelBF16Go(k, rows, b, ldb, c, ldc, flags)
		}
	}
	var buf bf16Edge
	var offs [mcRows]int
	var rows [bf16MR]*uint16
	n, kp := b.N, b.kp
	segLen, segJump := a.segment(kp)
	mc := mcRows - mcRows%bf16MR
	for ic := 0; ic < m; ic += mc {
		mb := min(mc, m-ic)
		off := offs[:mb]
		a.rowOffsets(off, ic)
		for pc := 0; pc < kp; {
			kb, col, flags := kBlock(pc, kp, bf16KC, segLen, segJump, 2, acc, relu)
			for i := 0; i < mb; i += bf16MR {
				nrows := min(bf16MR, mb-i)
				for r := range rows {
					if r < nrows {
						rows[r] = &a.data[off[i+r]+col]
					} else {
						rows[r] = &buf.zero[0]
					}
				}
				ci := (ic + i) * ldc
				for j := 0; j < n; j += bf16NR {
					bp := &b.data[(pc*b.np+j)*2]
					ncols := min(bf16NR, n-j)
					if nrows == bf16MR && ncols == bf16NR {
						call(kb, &rows[0], bp, b.np, &c[ci+j], ldc, flags)
						continue
					}
					if flags&flagAcc != 0 {
						loadTile(buf.c[:], c[ci+j:], ldc, bf16NR, nrows, ncols)
					}
					call(kb, &rows[0], bp, b.np, &buf.c[0], bf16NR, flags)
					storeTile(c[ci+j:], buf.c[:], ldc, bf16NR, nrows, ncols)
				}
			}
			pc += kb
		}
	}
}

// kernelBF16Go is the portable bf16 micro-kernel, the arithmetic of
// VDPBF16PS in Go: C[0:8][0:32] = sum over the k pairs p of
// A[r][2p]*B[2p][j] + A[r][2p+1]*B[2p+1][j] (+ C with flagAcc), then
// max(0, x) with flagRelu. The products of bfloat16 values are exact in
// float32.
func kernelBF16Go(k int, rows **uint16, b *uint16, ldb int, c *float32, ldc int, flags int) {
	rp := unsafe.Slice(rows, bf16MR)
	bs := unsafe.Slice(b, ((k-1)*ldb+bf16NR)*2)
	cs := unsafe.Slice(c, (bf16MR-1)*ldc+bf16NR)
	var bw [bf16NR * 2]float32
	var acc [bf16MR][bf16NR]float32
	for p := 0; p < k; p++ {
		for j, h := range bs[p*ldb*2 : p*ldb*2+2*bf16NR] {
			bw[j] = FromBF16(h)
		}
		for r := 0; r < bf16MR; r++ {
			a := unsafe.Slice(rp[r], 2*k)
			a0, a1 := FromBF16(a[2*p]), FromBF16(a[2*p+1])
			row := &acc[r]
			for j := range row {
				row[j] += a0*bw[2*j] + a1*bw[2*j+1]
			}
		}
	}
	for r := 0; r < bf16MR; r++ {
		d := cs[r*ldc : r*ldc+bf16NR]
		for j, v := range acc[r] {
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

// checkPackedConv checks the arguments of a 3x3 convolution whose weights
// are packed as a wk x wn matrix of 9*cp rows (cp: cin padded to the
// packing's unit), panicking with the kernel's name on a bad shape, and
// reports whether there is anything to compute.
func checkPackedConv(name string, dst, src []float32, batch, h, w, cin, cout, cp, wk, wn int, bias, residual []float32) bool {
	if batch < 0 || h < 0 || w < 0 || cin < 1 || cout < 0 {
		panic(fmt.Sprintf("kernel: %s: bad shape batch=%d h=%d w=%d cin=%d cout=%d", name, batch, h, w, cin, cout))
	}
	if wk != 9*cp || wn != cout {
		panic(fmt.Sprintf("kernel: %s: weight is %dx%d, want %dx%d", name, wk, wn, 9*cp, cout))
	}
	pixels := batch * h * w
	checkLen(name, "src", src, pixels*cin)
	checkLen(name, "dst", dst, pixels*cout)
	checkOptional(name, "bias", bias, cout)
	checkOptional(name, "residual", residual, pixels*cout)
	return pixels != 0 && cout != 0
}

// checkPackedDense checks the arguments of a dense layer whose weights are
// packed as a wk x wn matrix, panicking with the kernel's name on a bad
// shape, and reports whether there is anything to compute.
func checkPackedDense(name string, dst, src []float32, rows, in, out, wk, wn int, bias []float32) bool {
	if rows < 0 || in < 1 || out < 0 || wk != in || wn != out {
		panic(fmt.Sprintf("kernel: %s: %d x %d -> %d with a %dx%d weight", name, rows, in, out, wk, wn))
	}
	checkLen(name, "src", src, rows*in)
	checkLen(name, "dst", dst, rows*out)
	checkOptional(name, "bias", bias, out)
	return rows != 0 && out != 0
}

// scratchOf returns the first n elements of scratch, or a new slice of n
// when scratch is shorter.
func scratchOf[T any](scratch []T, n int) []T {
	if len(scratch) < n {
		return make([]T, n)
	}
	return scratch[:n]
}

// padConvWeights returns the 3x3 convolution weight wt [3][3][cin][cout]
// with its input channels padded with zeros to cp, for the packing
// function name (named in the panic on a bad length).
func padConvWeights(name string, wt []float32, cin, cp, cout int) []float32 {
	checkLen(name, "wt", wt, 9*cin*cout)
	w := make([]float32, 9*cp*cout)
	for t := 0; t < 9; t++ {
		for ci := 0; ci < cin; ci++ {
			copy(w[(t*cp+ci)*cout:(t*cp+ci+1)*cout], wt[(t*cin+ci)*cout:(t*cin+ci+1)*cout])
		}
	}
	return w
}
