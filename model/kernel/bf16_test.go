package kernel

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"dama/internal/floatcmp"
)

// forEachBF16 runs f with the portable bf16 micro-kernel and, where the CPU
// has AVX512_BF16, with the assembly one.
func forEachBF16(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	modes := []bool{true}
	if bf16Native {
		modes = append(modes, false)
	}
	for _, goKernel := range modes {
		name := "native"
		if goKernel {
			name = "go"
		}
		t.Run(name, func(t *testing.T) {
			saved := bf16ForceGo
			bf16ForceGo = goKernel
			defer func() { bf16ForceGo = saved }()
			f(t)
		})
	}
}

func TestToBF16(t *testing.T) {
	tests := []struct {
		in   float32
		want uint16
	}{
		{1, 0x3f80}, {-2, 0xc000}, {0, 0}, {float32(math.Inf(1)), 0x7f80},
		{math.Float32frombits(0x3f808000), 0x3f80}, // halfway, even below: down
		{math.Float32frombits(0x3f818000), 0x3f82}, // halfway, odd below: up
		{math.Float32frombits(0x3f808001), 0x3f81}, // above halfway: up
		{math.Float32frombits(0x7f7fffff), 0x7f80}, // largest float rounds to +Inf
	}
	for _, tc := range tests {
		if got := ToBF16(tc.in); got != tc.want {
			t.Errorf("ToBF16(%v = %#08x) = %#04x, want %#04x", tc.in, math.Float32bits(tc.in), got, tc.want)
		}
	}
	if got := FromBF16(ToBF16(float32(math.NaN()))); !math.IsNaN(float64(got)) {
		t.Errorf("NaN became %v", got)
	}
	rng := rand.New(rand.NewSource(1))
	for range 1000 {
		x := float32(rng.NormFloat64() * 100)
		if r := FromBF16(ToBF16(x)); math.Abs(float64(r-x)) > math.Abs(float64(x))/256 {
			t.Fatalf("%v rounds to %v: more than half an ulp of bfloat16", x, r)
		}
	}
}

// roundedBF16 returns s with every value rounded to bfloat16.
func roundedBF16(s []float32) []float32 {
	out := make([]float32, len(s))
	for i, v := range s {
		out[i] = FromBF16(ToBF16(v))
	}
	return out
}

// The bf16 functions compute exactly what the float32 ones compute on
// inputs and weights rounded to bfloat16 (the products are exact), up to
// the order of the float32 sums.
func TestConv3x3BF16(t *testing.T) {
	forEachBF16(t, func(t *testing.T) {
		rng := rand.New(rand.NewSource(2))
		for _, tc := range []struct{ batch, h, w, cin, cout int }{
			{1, 8, 4, 9, 16}, {3, 8, 4, 16, 16}, {2, 8, 4, 64, 64}, {1, 3, 5, 7, 20}, {5, 8, 4, 32, 40}, {1, 1, 1, 1, 1},
		} {
			for _, extra := range []bool{false, true} {
				name := fmt.Sprintf("%v/extra=%t", tc, extra)
				px := tc.batch * tc.h * tc.w
				src := randSlice(rng, px*tc.cin)
				wt := randSlice(rng, 9*tc.cin*tc.cout)
				var bias, res []float32
				if extra {
					bias, res = randSlice(rng, tc.cout), randSlice(rng, px*tc.cout)
				}
				want := make([]float32, px*tc.cout)
				Conv3x3(want, roundedBF16(src), tc.batch, tc.h, tc.w, tc.cin, tc.cout, roundedBF16(wt), bias, res, extra, nil)
				got := make([]float32, px*tc.cout)
				for i := range got {
					got[i] = sentinel
				}
				Conv3x3BF16(got, src, tc.batch, tc.h, tc.w, tc.cin, tc.cout, PackConv3x3BF16(wt, tc.cin, tc.cout), bias, res, extra, nil)
				if e := floatcmp.RelErr(got, want); e > 1e-5 {
					t.Errorf("%s: relative error %.3g against float32 on rounded operands", name, e)
				}
			}
		}
	})
}

func TestDenseBF16(t *testing.T) {
	forEachBF16(t, func(t *testing.T) {
		rng := rand.New(rand.NewSource(3))
		for _, tc := range []struct{ rows, in, out int }{
			{1, 128, 1024}, {5, 33, 3}, {32, 64, 64}, {13, 600, 40}, {9, 1, 1}, {300, 64, 8},
		} {
			for _, relu := range []bool{false, true} {
				src := randSlice(rng, tc.rows*tc.in)
				wt := randSlice(rng, tc.in*tc.out)
				bias := randSlice(rng, tc.out)
				want := make([]float32, tc.rows*tc.out)
				Dense(want, roundedBF16(src), tc.rows, tc.in, tc.out, roundedBF16(wt), bias, relu)
				got := make([]float32, tc.rows*tc.out)
				DenseBF16(got, src, tc.rows, tc.in, tc.out, PackBF16(wt, tc.in, tc.out), bias, relu, nil)
				if e := floatcmp.RelErr(got, want); e > 1e-5 {
					t.Errorf("%v relu=%t: relative error %.3g against float32 on rounded operands", tc, relu, e)
				}
			}
		}
	})
}

// The bulk rounding (VCVTNEPS2BF16 where the CPU has it, for whole
// vectors) gives exactly ToBF16's results on normal numbers, ties included.
func TestRoundBF16Bulk(t *testing.T) {
	forEachBF16(t, func(t *testing.T) {
		rng := rand.New(rand.NewSource(4))
		for n := 0; n < 100; n++ {
			src := randSlice(rng, n)
			for i := range src {
				if rng.Intn(4) == 0 { // an exact tie between two bfloat16 values
					src[i] = math.Float32frombits(math.Float32bits(src[i])&^0xffff | 0x8000)
				}
			}
			dst := make([]uint16, n+1)
			dst[n] = 0xdead
			roundBF16(dst, src)
			for i, v := range src {
				if dst[i] != ToBF16(v) {
					t.Fatalf("n=%d: value %d (%#08x) rounds to %#04x, want %#04x", n, i, math.Float32bits(v), dst[i], ToBF16(v))
				}
			}
			if dst[n] != 0xdead {
				t.Fatalf("n=%d: wrote past the end", n)
			}
		}
	})
}
