package kernel

import (
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"
)

// forEachImpl runs f once per implementation this CPU supports, with that
// implementation active.
func forEachImpl(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	for _, im := range impls {
		t.Run(im.name, func(t *testing.T) {
			saved := active
			active = im
			defer func() { active = saved }()
			f(t)
		})
	}
}

func randSlice(rng *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(rng.NormFloat64())
	}
	return s
}

const sentinel = float32(-12345.5)

// close reports whether got is within a relative 1e-5 of want, measured
// against scale, the sum of the magnitudes of the terms.
func close(got float32, want, scale float64) bool {
	return math.Abs(float64(got)-want) <= 1e-5*scale+1e-6
}

func TestSgemm(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewSource(1))
		type shape struct{ m, n, k int }
		var shapes []shape
		for range 60 {
			shapes = append(shapes, shape{1 + rng.Intn(70), 1 + rng.Intn(70), 1 + rng.Intn(70)})
		}
		shapes = append(shapes,
			shape{1, 1, 1}, shape{12, 32, 1}, shape{12, 32, 4}, shape{24, 64, 257},
			shape{13, 33, 300}, shape{37, 96, 600}, shape{6, 16, 5}, shape{5, 7, 0},
			shape{0, 5, 3}, shape{4, 0, 3}, shape{100, 3, 513}, shape{300, 40, 20},
			shape{517, 33, 9})
		for _, s := range shapes {
			for _, acc := range []bool{false, true} {
				name := fmt.Sprintf("m%d_n%d_k%d_acc%v", s.m, s.n, s.k, acc)
				lda, ldb, ldc := s.k+rng.Intn(5), s.n+rng.Intn(5), s.n+rng.Intn(5)
				lda, ldb, ldc = max(lda, 1), max(ldb, 1), max(ldc, 1)
				a := randSlice(rng, max(s.m*lda, 1))
				b := randSlice(rng, max(s.k*ldb, 1))
				c := randSlice(rng, max(s.m*ldc, 1))
				for i := range c {
					if i%ldc >= s.n {
						c[i] = sentinel
					}
				}
				c0 := append([]float32(nil), c...)
				Sgemm(s.m, s.n, s.k, a, lda, b, ldb, c, ldc, acc)
				for i := 0; i < s.m; i++ {
					for j := 0; j < ldc; j++ {
						got := c[i*ldc+j]
						if j >= s.n {
							if got != sentinel {
								t.Fatalf("%s: c[%d][%d] = %v outside the matrix was written", name, i, j, got)
							}
							continue
						}
						want, scale := 0.0, 0.0
						if acc {
							want, scale = float64(c0[i*ldc+j]), math.Abs(float64(c0[i*ldc+j]))
						}
						for p := 0; p < s.k; p++ {
							v := float64(a[i*lda+p]) * float64(b[p*ldb+j])
							want += v
							scale += math.Abs(v)
						}
						if !close(got, want, scale) {
							t.Fatalf("%s: c[%d][%d] = %v, want %v", name, i, j, got, want)
						}
					}
				}
			}
		}
	})
}

// convTaps calls f for each tap of the 3x3 convolution at output pixel
// (b, y, x) of h x w NHWC images of cin channels that falls inside the
// image, channel by channel: in indexes the input value, k = (ky*3+kx)*cin
// + ci the row of the weights.
func convTaps(b, y, x, h, w, cin int, f func(in, k int)) {
	for ky := 0; ky < 3; ky++ {
		for kx := 0; kx < 3; kx++ {
			yy, xx := y+ky-1, x+kx-1
			if yy < 0 || yy >= h || xx < 0 || xx >= w {
				continue
			}
			for ci := 0; ci < cin; ci++ {
				f(((b*h+yy)*w+xx)*cin+ci, (ky*3+kx)*cin+ci)
			}
		}
	}
}

// refConv3x3 is the float64 reference convolution.
func refConv3x3(src []float32, batch, h, w, cin, cout int, wt, bias, residual []float32, relu bool) (out, scale []float64) {
	out = make([]float64, batch*h*w*cout)
	scale = make([]float64, len(out))
	for b := 0; b < batch; b++ {
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				o := ((b*h+y)*w + x) * cout
				for co := 0; co < cout; co++ {
					sum, sc := 0.0, 0.0
					if bias != nil {
						sum, sc = float64(bias[co]), math.Abs(float64(bias[co]))
					}
					convTaps(b, y, x, h, w, cin, func(in, k int) {
						v := float64(src[in]) * float64(wt[k*cout+co])
						sum += v
						sc += math.Abs(v)
					})
					if residual != nil {
						sum += float64(residual[o+co])
						sc += math.Abs(float64(residual[o+co]))
					}
					if relu {
						sum = max(sum, 0)
					}
					out[o+co], scale[o+co] = sum, sc
				}
			}
		}
	}
	return out, scale
}

func TestConv3x3(t *testing.T) {
	type shape struct{ batch, h, w, cin, cout int }
	type testCase struct {
		shape
		src, wt, bias, residual []float32
		relu, scratch           bool
		want, scale             []float64
	}
	rng := rand.New(rand.NewSource(2))
	shapes := []shape{
		{1, 8, 4, 1, 1}, {2, 8, 4, 32, 32}, {1, 8, 4, 64, 64}, {3, 8, 4, 13, 130},
		{1, 8, 4, 130, 7}, {2, 1, 1, 5, 33}, {1, 1, 7, 3, 3}, {1, 6, 1, 4, 17},
		{4, 8, 4, 96, 96}, {9, 5, 7, 8, 20}, {10, 8, 4, 33, 64}, {1, 8, 4, 0, 5},
	}
	for range 25 {
		shapes = append(shapes, shape{1 + rng.Intn(3), 1 + rng.Intn(5), 1 + rng.Intn(5), 1 + rng.Intn(130), 1 + rng.Intn(130)})
	}
	var cases []testCase
	for i, s := range shapes {
		pixels := s.batch * s.h * s.w
		tc := testCase{shape: s, relu: i%5 < 3, scratch: i%4 != 0}
		tc.src = randSlice(rng, pixels*s.cin)
		tc.wt = randSlice(rng, 9*s.cin*s.cout)
		if i%3 != 0 {
			tc.bias = randSlice(rng, s.cout)
		}
		if i%2 == 0 {
			tc.residual = randSlice(rng, pixels*s.cout)
		}
		tc.want, tc.scale = refConv3x3(tc.src, s.batch, s.h, s.w, s.cin, s.cout, tc.wt, tc.bias, tc.residual, tc.relu)
		cases = append(cases, tc)
	}
	forEachImpl(t, func(t *testing.T) {
		for _, tc := range cases {
			var scratch []float32
			if tc.scratch {
				scratch = make([]float32, Conv3x3Scratch(tc.batch, tc.h, tc.w, tc.cin))
			}
			dst := randSlice(rng, len(tc.want))
			Conv3x3(dst, tc.src, tc.batch, tc.h, tc.w, tc.cin, tc.cout, tc.wt, tc.bias, tc.residual, tc.relu, scratch)
			for j, got := range dst {
				if !close(got, tc.want[j], tc.scale[j]) {
					t.Fatalf("%+v bias=%v residual=%v relu=%v: dst[%d] = %v, want %v",
						tc.shape, tc.bias != nil, tc.residual != nil, tc.relu, j, got, tc.want[j])
				}
			}
		}
	})
}

// TestConv3x3InPlace checks that dst may be the residual slice, as in a
// residual block's second convolution.
func TestConv3x3InPlace(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewSource(3))
		batch, h, w, c := 2, 8, 4, 40
		src := randSlice(rng, batch*h*w*c)
		wt := randSlice(rng, 9*c*c)
		bias := randSlice(rng, c)
		res := randSlice(rng, batch*h*w*c)
		want, scale := refConv3x3(src, batch, h, w, c, c, wt, bias, res, true)
		Conv3x3(res, src, batch, h, w, c, c, wt, bias, res, true, nil)
		for j, got := range res {
			if !close(got, want[j], scale[j]) {
				t.Fatalf("dst[%d] = %v, want %v", j, got, want[j])
			}
		}
	})
}

func TestDenseAndConv1x1(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewSource(4))
		for i := range 40 {
			rows, in, out := 1+rng.Intn(130), 1+rng.Intn(130), 1+rng.Intn(130)
			if i == 0 {
				rows, in, out = 128, 512, 3
			}
			src := randSlice(rng, rows*in)
			wt := randSlice(rng, in*out)
			var bias []float32
			if i%3 != 0 {
				bias = randSlice(rng, out)
			}
			relu := i%2 == 0
			want := make([]float64, rows*out)
			scale := make([]float64, rows*out)
			for r := 0; r < rows; r++ {
				for o := 0; o < out; o++ {
					sum, sc := 0.0, 0.0
					if bias != nil {
						sum, sc = float64(bias[o]), math.Abs(float64(bias[o]))
					}
					for p := 0; p < in; p++ {
						v := float64(src[r*in+p]) * float64(wt[p*out+o])
						sum += v
						sc += math.Abs(v)
					}
					if relu {
						sum = max(sum, 0)
					}
					want[r*out+o], scale[r*out+o] = sum, sc
				}
			}
			for _, conv := range []bool{false, true} {
				dst := randSlice(rng, rows*out)
				if conv {
					Conv1x1(dst, src, rows, in, out, wt, bias, relu)
				} else {
					Dense(dst, src, rows, in, out, wt, bias, relu)
				}
				for j, got := range dst {
					if !close(got, want[j], scale[j]) {
						t.Fatalf("case %d (conv1x1=%v) %dx%d->%d: dst[%d][%d] = %v, want %v",
							i, conv, rows, in, out, j/out, j%out, got, want[j])
					}
				}
			}
		}
	})
}

func TestNoAllocs(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewSource(5))
		batch, h, w, c := 3, 8, 4, 35
		src := randSlice(rng, batch*h*w*c)
		dst := make([]float32, batch*h*w*c)
		wt := randSlice(rng, 9*c*c)
		bias := randSlice(rng, c)
		scratch := make([]float32, Conv3x3Scratch(batch, h, w, c))
		allocs := testing.AllocsPerRun(10, func() {
			Conv3x3(dst, src, batch, h, w, c, c, wt, bias, src, true, scratch)
			Conv1x1(dst, src, batch*h*w, c, c, wt, bias, true)
			Dense(dst, src, batch, h*w*c, 3, wt, nil, false)
			Sgemm(batch*h*w, c, c, src, c, wt, c, dst, c, true)
		})
		if allocs != 0 {
			t.Errorf("%v allocations per run, want 0", allocs)
		}
	})
}

func TestShortSlicesPanic(t *testing.T) {
	cases := []struct {
		name string
		f    func()
		want string
	}{
		{"sgemm a", func() { Sgemm(2, 2, 2, make([]float32, 3), 2, make([]float32, 4), 2, make([]float32, 4), 2, false) }, "len(a)"},
		{"sgemm ldc", func() { Sgemm(2, 2, 2, make([]float32, 4), 2, make([]float32, 4), 2, make([]float32, 4), 1, false) }, "stride"},
		{"conv src", func() {
			Conv3x3(make([]float32, 64), make([]float32, 63), 1, 8, 4, 2, 2, make([]float32, 36), nil, nil, false, nil)
		}, "len(src)"},
		{"conv residual", func() {
			Conv3x3(make([]float32, 64), make([]float32, 64), 1, 8, 4, 2, 2, make([]float32, 36), nil, make([]float32, 1), false, nil)
		}, "len(residual)"},
		{"dense bias", func() {
			Dense(make([]float32, 4), make([]float32, 4), 2, 2, 2, make([]float32, 4), make([]float32, 1), false)
		}, "len(bias)"},
		{"conv1x1 wt", func() { Conv1x1(make([]float32, 4), make([]float32, 4), 2, 2, 2, make([]float32, 3), nil, false) }, "len(wt)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if msg, _ := r.(string); !strings.Contains(msg, tc.want) {
					t.Errorf("panic %v, want a message naming %q", r, tc.want)
				}
			}()
			tc.f()
		})
	}
}

func TestImpls(t *testing.T) {
	if got := Backend(); got != impls[0].name {
		t.Errorf("Backend() = %q, want %q", got, impls[0].name)
	}
	if last := impls[len(impls)-1]; last != goImpl {
		t.Errorf("last implementation is %q, want the pure-Go one", last.name)
	}
	for _, im := range impls {
		if im.mr < 1 || im.mr > maxMR || im.nr < 1 || im.nr > maxNR || im.kc < 4 || im.kc > maxKC {
			t.Errorf("%s: mr=%d nr=%d kc=%d outside the edge buffers (%d, %d, %d)",
				im.name, im.mr, im.nr, im.kc, maxMR, maxNR, maxKC)
		}
	}
}

// TestNaNPropagates checks that a NaN in the input reaches the output
// through the ReLU in every implementation, so broken weights are visible.
func TestNaNPropagates(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		n := 40
		src := make([]float32, n*n)
		wt := make([]float32, n*n)
		src[3*n+5] = float32(math.NaN())
		dst := make([]float32, n*n)
		Dense(dst, src, n, n, n, wt, nil, true)
		for j := 0; j < n; j++ {
			if v := dst[3*n+j]; !math.IsNaN(float64(v)) {
				t.Fatalf("dst[3][%d] = %v, want NaN", j, v)
			}
			if v := dst[4*n+j]; v != 0 {
				t.Fatalf("dst[4][%d] = %v, want 0", j, v)
			}
		}
	})
}

func ExampleSgemm() {
	a := []float32{1, 2, 3, 4, 5, 6} // 2 x 3
	b := []float32{1, 0, 0, 1, 1, 1} // 3 x 2
	c := make([]float32, 4)          // 2 x 2
	Sgemm(2, 2, 3, a, 3, b, 2, c, 2, false)
	fmt.Println(c)
	// Output: [4 5 10 11]
}

func ExampleConv3x3() {
	// One 3x3 image with one channel; the kernel sums the neighbourhood.
	src := []float32{1, 2, 3, 4, 5, 6, 7, 8, 9}
	wt := []float32{1, 1, 1, 1, 1, 1, 1, 1, 1}
	dst := make([]float32, 9)
	Conv3x3(dst, src, 1, 3, 3, 1, 1, wt, []float32{-20}, nil, true, nil)
	fmt.Println(dst)
	// Output: [0 1 0 7 25 13 4 19 8]
}
