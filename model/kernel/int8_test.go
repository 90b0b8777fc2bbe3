package kernel

import (
	"fmt"
	"math"
	"math/rand"
	"os"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"dama/internal/floatcmp"
)

// withI8 runs f with im as the active int8 level.
func withI8(im *i8Impl, f func()) {
	saved := i8Active
	defer func() { i8Active = saved }()
	i8Active = im
	f()
}

// runI8 returns what f writes at the portable level and, for every
// assembly level this CPU runs (AVX512_VNNI, AVX-VNNI and AVX2 on amd64,
// FEAT_DotProd on arm64; fewer under GODEBUG's cpu.* masks), what it
// writes there, by level name.
func runI8(f func() []float32) (goOut []float32, native map[string][]float32) {
	withI8(i8Go, func() { goOut = f() })
	native = map[string][]float32{}
	for _, im := range i8Impls {
		if im != i8Go {
			withI8(im, func() { native[im.name] = f() })
		}
	}
	return goOut, native
}

// sameI8 reports every level of native whose output is not goOut's bit
// for bit.
func sameI8(t *testing.T, what string, goOut []float32, native map[string][]float32) {
	t.Helper()
	for name, out := range native {
		for i := range goOut {
			if math.Float32bits(out[i]) != math.Float32bits(goOut[i]) {
				t.Errorf("%s: level %s: [%d] = %v, the go kernel gives %v", what, name, i, out[i], goOut[i])
				break
			}
		}
	}
}

// The levels this CPU runs are those its features allow, best first, the
// active one the first, and each says why it was chosen. Under CI's
// GODEBUG masks DAMA_EXPECT_I8LEVEL names the level the mask must give,
// so that a mask that does not take effect cannot pass quietly.
func TestI8Levels(t *testing.T) {
	if i8Impls[0] != i8Active || i8Impls[len(i8Impls)-1] != i8Go {
		t.Fatalf("levels %v: the active one must come first and go last", I8Levels())
	}
	for _, im := range i8Impls {
		if im.reason == "" || im.mr < 1 || im.mr > i8MR || im.nr < 1 || i8NR%im.nr != 0 {
			t.Errorf("level %s: reason %q, tile %dx%d", im.name, im.reason, im.mr, im.nr)
		}
	}
	if I8Level() != i8Impls[0].name || I8LevelReason() == "" || I8Native() != (I8Level() != "go") {
		t.Errorf("I8Level %q (%q), I8Native %v", I8Level(), I8LevelReason(), I8Native())
	}
	t.Logf("int8 levels %v; using %s: %s", I8Levels(), I8Level(), I8LevelReason())
	if want, ok := os.LookupEnv("DAMA_EXPECT_I8LEVEL"); ok && I8Level() != want {
		t.Errorf("I8Level() = %q, want %q (DAMA_EXPECT_I8LEVEL)", I8Level(), want)
	}
	best := I8Level()
	defer SetI8Level(best)
	if err := SetI8Level("go"); err != nil || I8Level() != "go" || I8Native() || best != "go" && !strings.Contains(I8LevelReason(), "SetI8Level") {
		t.Errorf("SetI8Level(go): %v; level %s (%s)", err, I8Level(), I8LevelReason())
	}
	if err := SetI8Level("avx1024"); err == nil || I8Level() != "go" {
		t.Errorf("SetI8Level(avx1024) = %v, level %s; want an error and no change", err, I8Level())
	}
	if err := SetI8Level(best); err != nil || I8LevelReason() != i8Impls[0].reason && !strings.Contains(I8LevelReason(), "GODEBUG") {
		t.Errorf("SetI8Level(%s): %v, reason %q", best, err, I8LevelReason())
	}
}

func TestQuantU8(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	tests := []struct {
		x, s float32
		want uint8
	}{
		{0, 1, 0}, {-3, 1, 0}, {0.5, 1, 0}, {1.5, 1, 2}, {2.5, 1, 2}, {254.5, 1, 254},
		{255.4, 1, 255}, {1e30, 1, 255}, {inf, 1, 255}, {-inf, 1, 0}, {nan, 1, 255},
		{1, 1.0 / 255, 255}, {0.5, 0.25, 2},
	}
	src := make([]float32, 32) // 16 for the assembly, the rest for the tail
	for i, tc := range tests {
		if got := QuantU8(tc.x, tc.s); got != tc.want {
			t.Errorf("QuantU8(%v, %v) = %d, want %d", tc.x, tc.s, got, tc.want)
		}
		src[i] = tc.x
	}
	rng := rand.New(rand.NewSource(3))
	for i := len(tests); i < len(src); i++ {
		src[i] = float32(rng.NormFloat64() * 200)
	}
	for _, im := range i8Impls {
		for _, inv := range []float32{1, 0.37, 7.5} {
			want := make([]uint8, len(src))
			for i, x := range src {
				want[i] = quantOne(x, inv)
			}
			for _, n := range []int{len(src), 16, 31, 5} {
				got := make([]uint8, n+1)
				withI8(im, func() { quantU8(got, src[:n], inv) })
				if !slices.Equal(got[:n], want[:n]) || got[n] != 0 {
					t.Errorf("quantU8 (level %s) inv %v n %d = %v, want %v", im.name, inv, n, got, want[:n])
				}
				got16 := make([]uint16, n+1)
				withI8(im, func() { quantU16(got16, src[:n], inv) })
				for i, v := range got16 {
					if i < n && v != uint16(want[i]) || i == n && v != 0 {
						t.Errorf("quantU16 (level %s) inv %v n %d = %v, want %v", im.name, inv, n, got16, want[:n])
						break
					}
				}
			}
		}
	}
}

// convI8Ref is Conv3x3I8 written out: the same quantized operands, the sum
// in int64 and the epilogue in float64.
func convI8Ref(src []float32, batch, h, w, cin, cout int, wt []float32, inScale float32, bias, residual []float32, relu bool) []float32 {
	q, cs := quantW(wt, 9*cin, cout)
	out := make([]float32, batch*h*w*cout)
	for b := 0; b < batch; b++ {
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				for co := 0; co < cout; co++ {
					var s int64
					convTaps(b, y, x, h, w, cin, func(in, k int) {
						s += int64(QuantU8(src[in], inScale)) * int64(q[k*cout+co])
					})
					i := ((b*h+y)*w+x)*cout + co
					v := float64(s) * float64(inScale) * float64(cs[co])
					if bias != nil {
						v += float64(bias[co])
					}
					if residual != nil {
						v += float64(residual[i])
					}
					if relu {
						v = math.Max(v, 0)
					}
					out[i] = float32(v)
				}
			}
		}
	}
	return out
}

func randI8Slice(rng *rand.Rand, n int, scale float64, nonneg bool) []float32 {
	s := make([]float32, n)
	for i := range s {
		v := rng.NormFloat64() * scale
		if nonneg {
			v = math.Abs(v)
		}
		s[i] = float32(v)
	}
	return s
}

// Conv3x3I8 and DenseI8 compute the quantized product exactly (int32 sums)
// with a float32 epilogue: within float32 rounding of the reference, and
// the assembly kernel gives the portable kernel's results bit for bit.
func TestConv3x3I8(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, sh := range []struct{ batch, cin, cout int }{
		{1, 6, 16}, {3, 64, 64}, {2, 32, 40}, {1, 5, 3}, {5, 17, 64}, {3, 3, 17}, {1, 12, 48},
	} {
		t.Run(fmt.Sprintf("b%d_%dto%d", sh.batch, sh.cin, sh.cout), func(t *testing.T) {
			const h, w = 8, 4
			src := randI8Slice(rng, sh.batch*h*w*sh.cin, 1, true)
			wt := randI8Slice(rng, 9*sh.cin*sh.cout, 0.1, false)
			bias := randI8Slice(rng, sh.cout, 0.5, false)
			res := randI8Slice(rng, sh.batch*h*w*sh.cout, 1, false)
			inScale := slices.Max(src) / 255 // calibrated on the data
			m := PackConv3x3I8(wt, sh.cin, sh.cout, inScale)
			for _, withRes := range []bool{false, true} {
				var r []float32
				if withRes {
					r = res
				}
				want := convI8Ref(src, sh.batch, h, w, sh.cin, sh.cout, wt, inScale, bias, r, true)
				goOut, native := runI8(func() []float32 {
					dst := make([]float32, len(want))
					Conv3x3I8(dst, src, sh.batch, h, w, sh.cin, sh.cout, m, bias, r, true, nil)
					return dst
				})
				if e := floatcmp.RelErr(goOut, want); e > 1e-5 {
					t.Errorf("residual %v: go kernel off the reference by %g (relative)", withRes, e)
				}
				sameI8(t, fmt.Sprintf("residual %v", withRes), goOut, native)
				// A matrix packed by PackI8 (no 16-bit copy) runs on
				// the level's byte kernel, to the same results.
				plain := PackI8(padConvWeights("test", wt, sh.cin, quadUp(sh.cin), sh.cout), 9*quadUp(sh.cin), sh.cout, inScale)
				_, native = runI8(func() []float32 {
					dst := make([]float32, len(want))
					Conv3x3I8(dst, src, sh.batch, h, w, sh.cin, sh.cout, plain, bias, r, true, nil)
					return dst
				})
				sameI8(t, fmt.Sprintf("residual %v, PackI8", withRes), goOut, native)
				// And close to float32: the quantization error is small.
				fp := make([]float32, len(want))
				Conv3x3(fp, src, sh.batch, h, w, sh.cin, sh.cout, wt, bias, r, true, nil)
				if e := floatcmp.RelErr(goOut, fp); e > 0.02 {
					t.Errorf("residual %v: %g (relative) from float32", withRes, e)
				}
			}
		})
	}
}

func TestDenseI8(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for _, sh := range []struct{ rows, in, out int }{
		{1, 128, 1024}, {9, 64, 32}, {32, 7, 5}, {260, 64, 3}, {17, 256, 96},
		{5, 3, 17}, {7, 300, 33}, {13, 4, 48}, {2, 1, 1}, {6, 64, 16}, {4, 16, 16},
	} {
		t.Run(fmt.Sprintf("%dx%dto%d", sh.rows, sh.in, sh.out), func(t *testing.T) {
			src := randI8Slice(rng, sh.rows*sh.in, 1, true)
			wt := randI8Slice(rng, sh.in*sh.out, 0.1, false)
			bias := randI8Slice(rng, sh.out, 0.5, false)
			inScale := slices.Max(src) / 255
			m := PackI8(wt, sh.in, sh.out, inScale)
			q, cs := quantW(wt, sh.in, sh.out)
			want := make([]float32, sh.rows*sh.out)
			for r := 0; r < sh.rows; r++ {
				for j := 0; j < sh.out; j++ {
					var s int64
					for k := 0; k < sh.in; k++ {
						s += int64(QuantU8(src[r*sh.in+k], inScale)) * int64(q[k*sh.out+j])
					}
					want[r*sh.out+j] = float32(float64(s)*float64(inScale)*float64(cs[j]) + float64(bias[j]))
				}
			}
			goOut, native := runI8(func() []float32 {
				dst := make([]float32, len(want))
				DenseI8(dst, src, sh.rows, sh.in, sh.out, m, bias, false, nil)
				return dst
			})
			if e := floatcmp.RelErr(goOut, want); e > 1e-5 {
				t.Errorf("go kernel off the reference by %g (relative)", e)
			}
			sameI8(t, "DenseI8", goOut, native)
			fp := make([]float32, len(want))
			Dense(fp, src, sh.rows, sh.in, sh.out, wt, bias, false)
			if e := floatcmp.RelErr(goOut, fp); e > 0.02 {
				t.Errorf("%g (relative) from float32", e)
			}
		})
	}
}

// Per-column scales: a column of tiny weights keeps its precision next to
// one of large weights.
func TestPackI8PerColumn(t *testing.T) {
	w := []float32{100, 0.001, -50, -0.002, 25, 0.0005, 0, 0}
	m := PackI8(w, 4, 2, 1)
	if m.colScale[0] != 100.0/127 || m.colScale[1] != 0.002/127 {
		t.Fatalf("column scales %v", m.colScale)
	}
	if got := m.data[0*4+1*4+0]; got != 64 { // w[0][1] = 0.001 -> 63.5 -> 64
		t.Errorf("w[0][1] quantized to %d, want 64", got)
	}
}

// Every assembly micro-kernel against the portable one on random tiles,
// straight: segments of every length mod 4 (the four-quad loop and the
// single-quad tail), several segments with gaps between them, bytes at the
// ends of their ranges (0 and 255 in A, -127 and 127 in B: the offset of
// 128 of the SDOT and AVX2 byte kernels must come back exactly, the AVX2
// 16-bit operands must be widened with the right sign), every flag, bit
// for bit, and nothing written outside the tile.
func TestKernelI8NativeMatchesGo(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	forEachNativeI8(t, func(t *testing.T, im *i8Impl) {
		extreme := func(lo, hi int) int {
			switch rng.Intn(4) {
			case 0:
				return lo
			case 1:
				return hi
			}
			return lo + rng.Intn(hi-lo+1)
		}
		for trial := 0; trial < 80; trial++ {
			seg := 1 + rng.Intn(13)
			nseg := 1 + rng.Intn(3)
			skip := 4 * rng.Intn(5)
			a := func(int) uint8 { return uint8(extreme(0, 255)) }
			b := func(int) int8 { return int8(extreme(-127, 127)) }
			checkKernelI8(t, rng, im, seg, nseg, skip, rng.Intn(4), a, b)
		}
	})
}

// forEachNativeI8 runs f as a subtest for every assembly kernel this CPU
// runs (i8Kernels but go).
func forEachNativeI8(t *testing.T, f func(t *testing.T, im *i8Impl)) {
	for _, im := range i8Kernels() {
		if im != i8Go {
			t.Run(im.name, func(t *testing.T) { f(t, im) })
		}
	}
}

// i8Kernels lists the micro-kernels of the levels this CPU runs: each
// level's, and its dense layers' where that is another.
func i8Kernels() []*i8Impl {
	var l []*i8Impl
	for _, im := range i8Impls {
		l = append(l, im)
		if im.dense != nil {
			l = append(l, im.dense)
		}
	}
	return l
}

// The worst cases for 16-bit intermediate sums: every byte of A at 255 or
// at 0 (the SDOT and AVX2 byte kernels read it as -128) against every
// weight at 127 or at -127, and alternating signs, over deep sums
// (VPMADDUBSW on the raw bytes would saturate a pair at 2*255*127; the
// AVX2 16-bit kernel's VPMADDWD must not, nor wrap its int32 pairs).
func TestKernelI8Saturation(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	forEachNativeI8(t, func(t *testing.T, im *i8Impl) {
		for _, av := range []int{0, 1, 127, 128, 129, 255} {
			for _, bv := range []int{127, -127, 1, -1} {
				for _, alt := range []bool{false, true} {
					a := func(int) uint8 { return uint8(av) }
					b := func(i int) int8 {
						if alt && i%2 == 1 {
							return int8(-bv)
						}
						return int8(bv)
					}
					// 4*576 products (a 3x3 convolution of 256
					// channels), fewer with -short (qemu in CI).
					seg := 192
					if testing.Short() {
						seg = 16
					}
					checkKernelI8(t, rng, im, seg, 3, 8, flagAcc, a, b)
				}
			}
		}
	})
}

// checkKernelI8 runs im's kernel on one tile (seg, nseg, skip as the
// kernels take them) with the bytes of A and B from a and b (by index),
// against kernelI8Go, bit for bit, with guards around the tile in C.
func checkKernelI8(t *testing.T, rng *rand.Rand, im *i8Impl, seg, nseg, skip, flags int, a func(int) uint8, b func(int) int8) {
	t.Helper()
	ldb := i8NR * (1 + rng.Intn(3))
	ldc := i8NR + rng.Intn(9)
	kq := seg * nseg
	span := kq*4 + (nseg-1)*skip
	var rows [i8MR]*uint8
	for r := range rows {
		ar := make([]uint8, span)
		for i := range ar {
			ar[i] = a(r*span + i)
		}
		rows[r] = &ar[0]
	}
	bm := make([]int8, kq*ldb*4)
	for i := range bm {
		bm[i] = b(i)
	}
	// corr as PackI8 computes it: 128 times the sums of the columns.
	corr := make([]int32, i8NR)
	for q := 0; q < kq; q++ {
		for j := 0; j < i8NR; j++ {
			for e := 0; e < 4; e++ {
				corr[j] += 128 * int32(bm[(q*ldb+j)*4+e])
			}
		}
	}
	scale := make([]float32, i8NR)
	for j := range scale {
		scale[j] = float32(rng.ExpFloat64() * 1e-4)
	}
	krows, kb, kskip := rows, bm, skip
	if im.wide {
		krows, kb, kskip = widenI8(rows, span, bm, kq, ldb), widenedB(bm, kq, ldb), 2*skip
	}
	// C: the tile from row 1, column 0, with a guard row above and below.
	c0 := make([]float32, (i8MR+2)*ldc)
	for i := range c0 {
		c0[i] = float32(rng.NormFloat64())
	}
	want, got := slices.Clone(c0), slices.Clone(c0)
	kernelI8Go(seg, nseg, skip, &rows[0], &bm[0], ldb, &want[ldc], ldc, &scale[0], flags)
	callKernelI8(im.id, seg, nseg, kskip, &krows[0], &kb[0], ldb, &got[ldc], ldc, &scale[0], &corr[0], flags)
	for i := range got {
		r, j := i/ldc-1, i%ldc
		w := want[i]
		if r < 0 || r >= im.mr || j >= im.nr {
			w = c0[i] // outside the tile: untouched
		}
		if math.Float32bits(w) != math.Float32bits(got[i]) {
			t.Fatalf("seg %d nseg %d skip %d ldb %d ldc %d flags %d: C[%d][%d] = %v, want %v",
				seg, nseg, skip, ldb, ldc, flags, r, j, got[i], w)
		}
	}
}

// widenI8 returns the rows of A (span bytes each) as the bytes of uint16
// copies, for a wide level's kernel.
func widenI8(rows [i8MR]*uint8, span int, bm []int8, kq, ldb int) [i8MR]*uint8 {
	var w [i8MR]*uint8
	for r, p := range rows {
		a16 := make([]uint16, span)
		for i, v := range unsafe.Slice(p, span) {
			a16[i] = uint16(v)
		}
		w[r] = &u16Bytes(a16)[0]
	}
	return w
}

// widenedB returns B packed in quads ([kq][ldb][4]) as a wide level's
// kernel reads it: int16 in pairs of rows ([2*kq][ldb][2]), as bytes.
func widenedB(bm []int8, kq, ldb int) []int8 {
	b16 := make([]int16, kq*ldb*4)
	for q := 0; q < kq; q++ {
		for j := 0; j < ldb; j++ {
			for e := 0; e < 4; e++ {
				b16[((2*q+e/2)*ldb+j)*2+e%2] = int16(bm[(q*ldb+j)*4+e])
			}
		}
	}
	return unsafe.Slice((*int8)(unsafe.Pointer(&b16[0])), 2*len(b16))
}

// Conv3x3I8 gives the same results with no scratch, with one of the size
// I8Matrix.Conv3x3Scratch gives (Conv3x3I8Scratch, or the Winograd
// convolution's), with one that starts at an odd address (the
// 16-bit kernel's operands then go to a new buffer) and with one too
// short, at every level, and writes nothing past the scratch's length.
func TestConv3x3I8Scratch(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	const batch, h, w, cin, cout = 2, 8, 4, 12, 16
	src := randI8Slice(rng, batch*h*w*cin, 1, true)
	m := PackConv3x3I8(randI8Slice(rng, 9*cin*cout, 0.1, false), cin, cout, slices.Max(src)/255)
	need := m.Conv3x3Scratch(batch, h, w)
	for _, im := range i8Impls {
		var want []float32
		for _, sc := range []struct {
			name     string
			off, len int
		}{{"nil", 0, -1}, {"exact", 0, need}, {"odd", 1, need}, {"short", 0, need / 3}} {
			buf := make([]uint8, need+8)
			for i := range buf {
				buf[i] = 0xa5
			}
			var scratch []uint8
			if sc.len >= 0 {
				scratch = buf[sc.off : sc.off+sc.len]
			}
			dst := make([]float32, batch*h*w*cout)
			withI8(im, func() { Conv3x3I8(dst, src, batch, h, w, cin, cout, m, nil, nil, true, scratch) })
			if want == nil {
				want = dst
			} else if !slices.Equal(dst, want) {
				t.Errorf("level %s, scratch %s: results differ from no scratch", im.name, sc.name)
			}
			for i := max(sc.off+sc.len, 0); i < len(buf); i++ {
				if buf[i] != 0xa5 && sc.len >= 0 {
					t.Fatalf("level %s, scratch %s: byte %d past the scratch written", im.name, sc.name, i)
				}
			}
		}
	}
}
