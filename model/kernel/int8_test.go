package kernel

import (
	"fmt"
	"math"
	"math/rand"
	"slices"
	"testing"
)

// runI8 returns what f writes with the portable int8 kernels and, where the
// CPU runs an assembly one (AVX512_VNNI, or FEAT_DotProd on arm64), with
// the assembly ones (nil otherwise).
func runI8(f func() []float32) (goOut, native []float32) {
	saved := i8ForceGo
	defer func() { i8ForceGo = saved }()
	i8ForceGo = true
	goOut = f()
	if i8Native {
		i8ForceGo = false
		native = f()
	}
	return goOut, native
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
	for _, inv := range []float32{1, 0.37, 7.5} {
		want := make([]uint8, len(src))
		for i, x := range src {
			want[i] = quantOne(x, inv)
		}
		got := make([]uint8, len(src))
		quantU8(got, src, inv)
		if !slices.Equal(got, want) {
			t.Errorf("quantU8 (native %v) inv %v = %v, want %v", I8Native(), inv, got, want)
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
					for ky := 0; ky < 3; ky++ {
						for kx := 0; kx < 3; kx++ {
							yy, xx := y+ky-1, x+kx-1
							if yy < 0 || yy >= h || xx < 0 || xx >= w {
								continue
							}
							for ci := 0; ci < cin; ci++ {
								a := QuantU8(src[((b*h+yy)*w+xx)*cin+ci], inScale)
								s += int64(a) * int64(q[((ky*3+kx)*cin+ci)*cout+co])
							}
						}
					}
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
		{1, 6, 16}, {3, 64, 64}, {2, 32, 40}, {1, 5, 3}, {5, 17, 64},
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
				if e := relErr(goOut, want); e > 1e-5 {
					t.Errorf("residual %v: go kernel off the reference by %g (relative)", withRes, e)
				}
				if native != nil && !slices.Equal(native, goOut) {
					t.Errorf("residual %v: native kernel differs from the go kernel (max %g)", withRes, relErr(native, goOut))
				}
				// And close to float32: the quantization error is small.
				fp := make([]float32, len(want))
				Conv3x3(fp, src, sh.batch, h, w, sh.cin, sh.cout, wt, bias, r, true, nil)
				if e := relErr(goOut, fp); e > 0.02 {
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
			if e := relErr(goOut, want); e > 1e-5 {
				t.Errorf("go kernel off the reference by %g (relative)", e)
			}
			if native != nil && !slices.Equal(native, goOut) {
				t.Errorf("native kernel differs from the go kernel (max %g)", relErr(native, goOut))
			}
			fp := make([]float32, len(want))
			Dense(fp, src, sh.rows, sh.in, sh.out, wt, bias, false)
			if e := relErr(goOut, fp); e > 0.02 {
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

// The assembly micro-kernel against the portable one on random tiles,
// straight: segments of every length mod 4 (the four-quad loop and the
// single-quad tail), several segments with gaps between them, bytes at the
// ends of their ranges (0 and 255 in A, -127 and 127 in B: the SDOT
// kernel's offset of 128 must come back exactly), every flag, bit for bit.
func TestKernelI8NativeMatchesGo(t *testing.T) {
	if !i8Native {
		t.Skip("no int8 assembly kernel on this CPU")
	}
	rng := rand.New(rand.NewSource(3))
	extreme := func(lo, hi int) int {
		switch rng.Intn(4) {
		case 0:
			return lo
		case 1:
			return hi
		}
		return lo + rng.Intn(hi-lo+1)
	}
	for trial := 0; trial < 60; trial++ {
		seg := 1 + rng.Intn(13)
		nseg := 1 + rng.Intn(3)
		skip := 4 * rng.Intn(5)
		ldb := i8NR * (1 + rng.Intn(3))
		ldc := i8NR + rng.Intn(9)
		flags := rng.Intn(4)
		kq := seg * nseg
		span := kq*4 + (nseg-1)*skip
		var rows [i8MR]*uint8
		for r := range rows {
			a := make([]uint8, span)
			for i := range a {
				a[i] = uint8(extreme(0, 255))
			}
			rows[r] = &a[0]
		}
		b := make([]int8, kq*ldb*4)
		for i := range b {
			b[i] = int8(extreme(-127, 127))
		}
		// corr as PackI8 computes it: 128 times the sums of the columns.
		corr := make([]int32, i8NR)
		for q := 0; q < kq; q++ {
			for j := 0; j < i8NR; j++ {
				for e := 0; e < 4; e++ {
					corr[j] += 128 * int32(b[(q*ldb+j)*4+e])
				}
			}
		}
		scale := make([]float32, i8NR)
		for j := range scale {
			scale[j] = float32(rng.ExpFloat64() * 1e-4)
		}
		c0 := make([]float32, (i8MR-1)*ldc+i8NR)
		for i := range c0 {
			c0[i] = float32(rng.NormFloat64())
		}
		want, got := slices.Clone(c0), slices.Clone(c0)
		kernelI8Go(seg, nseg, skip, &rows[0], &b[0], ldb, &want[0], ldc, &scale[0], flags)
		callKernelI8Native(seg, nseg, skip, &rows[0], &b[0], ldb, &got[0], ldc, &scale[0], &corr[0], flags)
		for i := range want {
			if math.Float32bits(want[i]) != math.Float32bits(got[i]) {
				t.Fatalf("seg %d nseg %d skip %d ldb %d ldc %d flags %d: C[%d] = %v, want %v (go kernel)",
					seg, nseg, skip, ldb, ldc, flags, i, got[i], want[i])
			}
		}
	}
}
