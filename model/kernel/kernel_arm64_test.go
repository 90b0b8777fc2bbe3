//go:build arm64 && !purego

package kernel

import (
	"fmt"
	"math"
	"math/rand"
	"os"
	"testing"
	"unsafe"
)

func TestNEONIsDefault(t *testing.T) {
	if got := Backend(); got != "neon" {
		t.Errorf("Backend() = %q on arm64, want neon", got)
	}
}

// TestKernel8x8NEON calls the micro-kernel directly on one tile for every
// combination of flags and for depths around its unrolling by four, with
// row pointers scattered through A and strides wider than the tile, and
// checks each value against a float64 product and every value around the
// tile in C against a sentinel.
func TestKernel8x8NEON(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	ks := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 31, 64, 255, 256}
	for _, k := range ks {
		for flags := 0; flags < 4; flags++ {
			t.Run(fmt.Sprintf("k%d_flags%d", k, flags), func(t *testing.T) {
				ldb, ldc := 8+rng.Intn(9), 8+rng.Intn(9)
				// Rows of A at random, non-overlapping offsets of one buffer.
				a := randSlice(rng, 8*(k+7))
				var rows [8]*float32
				var offs [8]int
				for r, o := range rng.Perm(8) {
					offs[r] = o*(k+7) + rng.Intn(8)
					rows[r] = &a[offs[r]]
				}
				b := randSlice(rng, k*ldb)
				// C has a guard row above and below and ldc-8 guard columns.
				c := randSlice(rng, 10*ldc)
				for i := range c {
					if i < ldc || i >= 9*ldc || i%ldc >= 8 {
						c[i] = sentinel
					}
				}
				c0 := append([]float32(nil), c...)
				if flags&flagRelu != 0 {
					c[ldc+3] = float32(math.NaN()) // must not leak: overwritten or accumulated
					c0[ldc+3] = c[ldc+3]
				}
				kernel8x8NEON(k, &rows[0], &b[0], ldb, &c[ldc], ldc, flags)
				for i, got := range c {
					r, j := i/ldc-1, i%ldc
					if r < 0 || r >= 8 || j >= 8 {
						if got != sentinel {
							t.Fatalf("c[%d] = %v outside the tile was written", i, got)
						}
						continue
					}
					want, scale := 0.0, 0.0
					if flags&flagAcc != 0 {
						want, scale = float64(c0[i]), math.Abs(float64(c0[i]))
					}
					for p := 0; p < k; p++ {
						v := float64(a[offs[r]+p]) * float64(b[p*ldb+j])
						want += v
						scale += math.Abs(v)
					}
					if flags&flagRelu != 0 {
						want = max(want, 0)
					}
					if math.IsNaN(want) != math.IsNaN(float64(got)) || !math.IsNaN(want) && !close(got, want, scale) {
						t.Fatalf("C[%d][%d] = %v, want %v", r, j, got, want)
					}
				}
			})
		}
	}
}

// TestKernel8x8NEONReadsOnlyItsOperands checks that the kernel reads no
// further than k values of each row of A and k rows of B: every operand is
// followed by NaNs, which would poison the result if read.
func TestKernel8x8NEONReadsOnlyItsOperands(t *testing.T) {
	nan := float32(math.NaN())
	for k := 1; k <= 9; k++ {
		a := make([]float32, 8*(k+4))
		b := make([]float32, k*8+8)
		for i := range a {
			a[i] = nan
			if i%(k+4) < k {
				a[i] = 1
			}
		}
		for i := range b {
			b[i] = nan
			if i < k*8 {
				b[i] = 2
			}
		}
		var rows [8]*float32
		for r := range rows {
			rows[r] = &a[r*(k+4)]
		}
		c := make([]float32, 64)
		kernel8x8NEON(k, &rows[0], &b[0], 8, &c[0], 8, 0)
		for i, v := range c {
			if v != float32(2*k) {
				t.Fatalf("k=%d: c[%d] = %v, want %v", k, i, v, 2*k)
			}
		}
	}
}

// TestKernel8x32BF16NEON checks the BFDOT micro-kernel against the
// portable one on one tile, for every combination of flags and for depths
// (in pairs) around its unrolling by four, and that nothing around the
// tile in C is written.
func TestKernel8x32BF16NEON(t *testing.T) {
	if !bf16Native {
		t.Skip("the CPU has no FEAT_BF16")
	}
	rng := rand.New(rand.NewSource(12))
	for _, k := range []int{1, 2, 3, 4, 5, 7, 8, 9, 17, 64, 255, 256} {
		for flags := 0; flags < 4; flags++ {
			ldb, ldc := bf16NR+4*rng.Intn(3), bf16NR+rng.Intn(9)
			a := make([]uint16, 8*2*(k+3))
			for i := range a {
				a[i] = ToBF16(float32(rng.NormFloat64()))
			}
			var rows [8]*uint16
			for r, o := range rng.Perm(8) {
				rows[r] = &a[2*(o*(k+3)+rng.Intn(4))]
			}
			b := make([]uint16, 2*k*ldb)
			for i := range b {
				b[i] = ToBF16(float32(rng.NormFloat64()))
			}
			c := randSlice(rng, 10*ldc)
			for i := range c {
				if i < ldc || i >= 9*ldc || i%ldc >= bf16NR {
					c[i] = sentinel
				}
			}
			want := append([]float32(nil), c...)
			kernel8x32BF16NEON(k, &rows[0], &b[0], ldb, &c[ldc], ldc, flags)
			kernelBF16Go(k, &rows[0], &b[0], ldb, &want[ldc], ldc, flags)
			// Scale of the error: the sum of the magnitudes of the terms.
			for i, got := range c {
				r, j := i/ldc-1, i%ldc
				if r < 0 || r >= 8 || j >= bf16NR {
					if got != sentinel {
						t.Fatalf("k=%d flags=%d: c[%d] = %v outside the tile was written", k, flags, i, got)
					}
					continue
				}
				scale := 0.0
				if flags&flagAcc != 0 {
					scale = math.Abs(float64(want[i]))
				}
				ar := unsafe.Slice(rows[r], 2*k)
				for p := 0; p < 2*k; p++ {
					scale += math.Abs(float64(FromBF16(ar[p]) * FromBF16(b[(p/2*ldb+j)*2+p%2])))
				}
				if !close(got, float64(want[i]), scale) {
					t.Fatalf("k=%d flags=%d: C[%d][%d] = %v, want %v", k, flags, r, j, got, want[i])
				}
			}
		}
	}
}

// TestBF16Detection checks the reading of FEAT_BF16 against what the
// environment variable DAMA_EXPECT_BF16 ("1" or "0") says the CPU has; CI
// sets it for the emulated CPUs it runs, so that a broken detection cannot
// quietly skip the BFDOT tests or run BFDOT where it would fault.
func TestBF16Detection(t *testing.T) {
	checkDetection(t, "DAMA_EXPECT_BF16", "bf16Native", bf16Native)
}

// checkDetection compares a CPU feature's detection, got (named what), with
// the environment variable env ("1" or "0"), skipping when env is unset.
func checkDetection(t *testing.T, env, what string, got bool) {
	t.Helper()
	want, ok := os.LookupEnv(env)
	if !ok {
		t.Skip(env + " is not set")
	}
	if want != "0" && want != "1" {
		t.Fatalf("%s = %q, want 0 or 1", env, want)
	}
	if got != (want == "1") {
		t.Errorf("%s = %v, want %v (%s=%s)", what, got, want == "1", env, want)
	}
}

// TestI8Detection checks the reading of FEAT_DotProd (x/sys/cpu's
// HasASIMDDP) against the environment variable DAMA_EXPECT_I8 ("1" or
// "0"), as TestBF16Detection does for FEAT_BF16: CI sets it for the
// emulated CPUs it runs, so that the SDOT tests cannot be skipped quietly.
func TestI8Detection(t *testing.T) {
	checkDetection(t, "DAMA_EXPECT_I8", "I8Native()", I8Native())
}
