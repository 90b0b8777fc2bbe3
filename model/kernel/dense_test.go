package kernel

import (
	"fmt"
	"math"
	"math/rand"
	"testing"
)

// TestDensePacked checks DensePacked gives Dense's results bit for bit at
// every implementation: widths below, at and past a panel, with and
// without bias and ReLU, one row and many.
func TestDensePacked(t *testing.T) {
	rng := rand.New(rand.NewSource(14))
	type shape struct{ rows, in, out int }
	shapes := []shape{{1, 512, 1024}, {32, 64, 16}, {33, 64, 8}, {5, 256, 128}, {7, 128, 3}, {300, 17, 45}, {1, 1, 1}, {9, 400, 70}, {0, 3, 4}}
	for range 20 {
		shapes = append(shapes, shape{1 + rng.Intn(70), 1 + rng.Intn(450), 1 + rng.Intn(100)})
	}
	forEachImpl(t, func(t *testing.T) {
		for i, s := range shapes {
			src := randSlice(rng, s.rows*s.in)
			wt := randSlice(rng, s.in*s.out)
			var bias []float32
			if i%3 != 0 {
				bias = randSlice(rng, s.out)
			}
			relu := i%2 == 0
			want := make([]float32, s.rows*s.out)
			Dense(want, src, s.rows, s.in, s.out, wt, bias, relu)
			got := randSlice(rng, s.rows*s.out)
			DensePacked(got, src, s.rows, s.in, s.out, PackDense(wt, s.in, s.out), bias, relu)
			for j := range want {
				if math.Float32bits(got[j]) != math.Float32bits(want[j]) {
					t.Fatalf("%dx%d->%d: dst[%d] = %v, Dense gives %v", s.rows, s.in, s.out, j, got[j], want[j])
				}
			}
		}
	})
}

// TestConv3x3PackedDirect checks Conv3x3Packed with weights without their
// Winograd transform gives Conv3x3's results bit for bit.
func TestConv3x3PackedDirect(t *testing.T) {
	rng := rand.New(rand.NewSource(15))
	forEachImpl(t, func(t *testing.T) {
		for _, s := range []struct{ batch, h, w, cin, cout int }{{3, 8, 4, 64, 64}, {1, 8, 4, 9, 64}, {2, 5, 3, 16, 40}} {
			src := randSlice(rng, s.batch*s.h*s.w*s.cin)
			wt := randSlice(rng, 9*s.cin*s.cout)
			bias := randSlice(rng, s.cout)
			res := randSlice(rng, s.batch*s.h*s.w*s.cout)
			want := make([]float32, len(res))
			Conv3x3(want, src, s.batch, s.h, s.w, s.cin, s.cout, wt, bias, res, true, nil)
			m := PackConv3x3(wt, s.cin, s.cout).Direct()
			if m.Winograd(s.h, s.w) {
				t.Fatal("Direct() weights take the Winograd convolution")
			}
			got := make([]float32, len(res))
			Conv3x3Packed(got, src, s.batch, s.h, s.w, s.cin, s.cout, m, bias, res, true, nil)
			for j := range want {
				if math.Float32bits(got[j]) != math.Float32bits(want[j]) {
					t.Fatalf("%+v: dst[%d] = %v, Conv3x3 gives %v", s, j, got[j], want[j])
				}
			}
		}
	})
}

// TestDensePackedNoAllocs checks DensePacked does not allocate, at full
// and partial tiles.
func TestDensePackedNoAllocs(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewSource(16))
		for _, s := range []struct{ rows, in, out int }{{32, 512, 1024}, {1, 256, 128}, {33, 64, 8}} {
			src := randSlice(rng, s.rows*s.in)
			dst := make([]float32, s.rows*s.out)
			m := PackDense(randSlice(rng, s.in*s.out), s.in, s.out)
			if allocs := testing.AllocsPerRun(5, func() { DensePacked(dst, src, s.rows, s.in, s.out, m, nil, true) }); allocs != 0 {
				t.Errorf("%dx%d->%d: %v allocations per run, want 0", s.rows, s.in, s.out, allocs)
			}
		}
	})
}

// BenchmarkDensePacked measures the heads' products of the workstation
// net at batch 1 and 32 (policy: 1x1 convolution over the pixels, then
// dense; value: 1x1, dense, dense), Dense against DensePacked.
func BenchmarkDensePacked(b *testing.B) {
	for _, batch := range []int{1, 32} {
		for _, s := range []struct{ rows, in, out int }{{32, 64, 16}, {1, 512, 1024}, {32, 64, 8}, {1, 256, 128}, {1, 128, 3}} {
			rows := s.rows * batch
			for _, packed := range []bool{false, true} {
				name := "dense"
				if packed {
					name = "packed"
				}
				withImpls(b, fmt.Sprintf("%dx%d-%d/%s", rows, s.in, s.out, name), func(b *testing.B) {
					rng := rand.New(rand.NewSource(1))
					src := randSlice(rng, rows*s.in)
					wt := randSlice(rng, s.in*s.out)
					m := PackDense(wt, s.in, s.out)
					bias := randSlice(rng, s.out)
					dst := make([]float32, rows*s.out)
					measure(b, 2*float64(rows*s.in*s.out), func() {
						if packed {
							DensePacked(dst, src, rows, s.in, s.out, m, bias, true)
						} else {
							Dense(dst, src, rows, s.in, s.out, wt, bias, true)
						}
					})
				})
			}
		}
	}
}
