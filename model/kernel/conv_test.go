package kernel

import (
	"fmt"
	"math"
	"math/rand"
	"testing"
)

// TestConv3x3Packed checks Conv3x3Packed against the float64 reference at
// every implementation, to the tolerance of the direct product: shapes the
// Winograd convolution takes (one chunk of tiles, several, a partial one;
// tile counts that are not a multiple of the micro-kernel's rows) and
// shapes it leaves to the direct product (too few tiles, channels that are
// not a multiple of the vectors, images the tiles do not cover), with and
// without bias, residual and ReLU.
func TestConv3x3Packed(t *testing.T) {
	type shape struct{ batch, h, w, cin, cout int }
	shapes := []shape{
		{2, 8, 4, 64, 64}, {3, 8, 4, 64, 64}, {16, 8, 4, 64, 64}, {21, 8, 4, 64, 64}, {40, 8, 4, 32, 48},
		{5, 8, 8, 16, 32}, {7, 4, 4, 8, 24}, {4, 8, 4, 128, 16}, {1, 8, 4, 64, 64}, {2, 8, 4, 9, 64},
		{6, 6, 4, 16, 16}, {3, 8, 4, 24, 8},
	}
	type testCase struct {
		shape
		src, wt, bias, res []float32
		relu, scratch      bool
		m                  *Conv3x3Weights
		want, scale        []float64
	}
	rng := rand.New(rand.NewSource(11))
	var cases []testCase
	for i, s := range shapes {
		pixels := s.batch * s.h * s.w
		tc := testCase{shape: s, relu: i%4 != 3, scratch: i%5 != 4}
		tc.src = randSlice(rng, pixels*s.cin)
		tc.wt = randSlice(rng, 9*s.cin*s.cout)
		if i%3 != 1 {
			tc.bias = randSlice(rng, s.cout)
		}
		if i%2 == 0 {
			tc.res = randSlice(rng, pixels*s.cout)
		}
		tc.want, tc.scale = refConv3x3(tc.src, s.batch, s.h, s.w, s.cin, s.cout, tc.wt, tc.bias, tc.res, tc.relu)
		tc.m = PackConv3x3(tc.wt, s.cin, s.cout)
		cases = append(cases, tc)
	}
	forEachImpl(t, func(t *testing.T) {
		for _, tc := range cases {
			name := fmt.Sprintf("b%d_%dx%d_%dto%d", tc.batch, tc.h, tc.w, tc.cin, tc.cout)
			if tc.m.Winograd(tc.h, tc.w) {
				name += "_winograd"
			}
			t.Run(name, func(t *testing.T) {
				var scratch []float32
				if tc.scratch {
					scratch = make([]float32, tc.m.Conv3x3Scratch(tc.batch, tc.h, tc.w))
				}
				dst := randSlice(rng, len(tc.want))
				Conv3x3Packed(dst, tc.src, tc.batch, tc.h, tc.w, tc.cin, tc.cout, tc.m, tc.bias, tc.res, tc.relu, scratch)
				var worst float64
				for j, got := range dst {
					if !close(got, tc.want[j], tc.scale[j]) {
						t.Fatalf("bias=%v residual=%v relu=%v: dst[%d] = %v, want %v (terms' magnitudes %g)",
							tc.bias != nil, tc.res != nil, tc.relu, j, got, tc.want[j], tc.scale[j])
					}
					worst = max(worst, math.Abs(float64(got)-tc.want[j])/tc.scale[j])
				}
				t.Logf("largest error %.2g of the terms' magnitudes", worst)
			})
		}
	})
}

// TestConv3x3PackedWinograd checks the shapes of the workstation net's
// tower take the Winograd convolution where this CPU has one.
func TestConv3x3PackedWinograd(t *testing.T) {
	for _, im := range impls {
		if im.winoVW == 0 {
			continue
		}
		if !winoRuns(im, 8, 4, 64, 64) {
			t.Errorf("%s: 64 channels on 8x4 boards take the direct product", im.name)
		}
	}
}

// TestConv3x3PackedInPlace checks dst may be the residual or the source,
// as in the tower, where the chunks of images are written while later
// ones are still to be read.
func TestConv3x3PackedInPlace(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewSource(12))
		batch, h, w, c := 37, 8, 4, 32
		for _, into := range []string{"residual", "src"} {
			src := randSlice(rng, batch*h*w*c)
			wt := randSlice(rng, 9*c*c)
			bias := randSlice(rng, c)
			res := randSlice(rng, batch*h*w*c)
			want, scale := refConv3x3(src, batch, h, w, c, c, wt, bias, res, true)
			dst := res
			if into == "src" {
				dst = src
			}
			Conv3x3Packed(dst, src, batch, h, w, c, c, PackConv3x3(wt, c, c), bias, res, true, nil)
			for j, got := range dst {
				if !close(got, want[j], scale[j]) {
					t.Fatalf("into %s: dst[%d] = %v, want %v", into, j, got, want[j])
				}
			}
		}
	})
}

// TestConv3x3PackedNoAllocs checks Conv3x3Packed does not allocate with
// the scratch its weights ask for.
func TestConv3x3PackedNoAllocs(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewSource(13))
		batch, h, w, c := 33, 8, 4, 64
		src := randSlice(rng, batch*h*w*c)
		dst := make([]float32, len(src))
		m := PackConv3x3(randSlice(rng, 9*c*c), c, c)
		bias := randSlice(rng, c)
		for _, b := range []int{1, 2, 7, batch} {
			scratch := make([]float32, m.Conv3x3Scratch(b, h, w))
			if allocs := testing.AllocsPerRun(5, func() {
				Conv3x3Packed(dst, src, b, h, w, c, c, m, bias, src, true, scratch)
			}); allocs != 0 {
				t.Errorf("batch %d: %v allocations per run, want 0", b, allocs)
			}
		}
	})
}

// TestConv3x3PackedNaN checks a NaN in the input reaches the outputs of
// its tile through the ReLU, as in the direct product, so broken weights
// are visible.
func TestConv3x3PackedNaN(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		batch, h, w, c := 8, 8, 4, 32
		src := make([]float32, batch*h*w*c)
		src[((3*h+1)*w+2)*c+5] = float32(math.NaN()) // image 3, pixel (1, 2)
		wt := make([]float32, 9*c*c)
		dst := make([]float32, len(src))
		Conv3x3Packed(dst, src, batch, h, w, c, c, PackConv3x3(wt, c, c), nil, nil, true, nil)
		if v := dst[((3*h+1)*w+2)*c]; !math.IsNaN(float64(v)) {
			t.Errorf("output beside the NaN = %v, want NaN", v)
		}
		if v := dst[((2*h+1)*w+2)*c]; v != 0 {
			t.Errorf("output of another image = %v, want 0", v)
		}
	})
}

// BenchmarkConv3x3Packed is BenchmarkConv3x3 with packed weights: the
// Winograd convolution where it runs (GFLOP/s counts the direct product's
// operations, so the two compare directly).
func BenchmarkConv3x3Packed(b *testing.B) {
	const h, w = 8, 4
	for _, filters := range []int{32, 64, 128} {
		for _, batch := range []int{1, 2, 8, 32, 128} {
			withImpls(b, fmt.Sprintf("f%d/b%d", filters, batch), func(b *testing.B) {
				if active == goImpl && batch > 32 {
					b.Skip("slow")
				}
				rng := rand.New(rand.NewSource(1))
				src := randSlice(rng, batch*h*w*filters)
				dst := make([]float32, batch*h*w*filters)
				m := PackConv3x3(randSlice(rng, 9*filters*filters), filters, filters)
				bias := randSlice(rng, filters)
				scratch := make([]float32, m.Conv3x3Scratch(batch, h, w))
				measure(b, 2*float64(batch*h*w*9*filters*filters), func() {
					Conv3x3Packed(dst, src, batch, h, w, filters, filters, m, bias, nil, true, scratch)
				})
			})
		}
	}
}
