package kernel

import (
	"fmt"
	"math/rand"
	"runtime"
	"testing"

	"dama/internal/cputime"
)

// measure runs op in a b.Loop and reports GFLOP/s for flops per call, both
// by wall-clock time and, where the OS tells, by the CPU time of the
// benchmarking thread ("GFLOP/s-cpu", steadier on a shared machine).
func measure(b *testing.B, flops float64, op func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b.ReportAllocs()
	t0, ok := cputime.Thread()
	for b.Loop() {
		op()
	}
	total := flops * float64(b.N)
	b.ReportMetric(total/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	if t1, ok1 := cputime.Thread(); ok && ok1 && t1 > t0 {
		b.ReportMetric(total/(t1-t0).Seconds()/1e9, "GFLOP/s-cpu")
	}
}

// withImpls runs f as a sub-benchmark for the active implementation and,
// for comparison, for the pure-Go one.
func withImpls(b *testing.B, name string, f func(b *testing.B)) {
	for _, im := range impls {
		b.Run(fmt.Sprintf("%s/%s", im.name, name), func(b *testing.B) {
			saved := active
			active = im
			defer func() { active = saved }()
			f(b)
		})
	}
}

// BenchmarkConv3x3 measures the 3x3 convolution of a residual tower on
// 8x4 boards (filters in, filters out, bias, ReLU).
func BenchmarkConv3x3(b *testing.B) {
	const h, w = 8, 4
	for _, filters := range []int{32, 64, 128} {
		for _, batch := range []int{1, 8, 32, 128} {
			withImpls(b, fmt.Sprintf("f%d/b%d", filters, batch), func(b *testing.B) {
				if active == goImpl && batch > 32 {
					b.Skip("slow")
				}
				rng := rand.New(rand.NewSource(1))
				src := randSlice(rng, batch*h*w*filters)
				dst := make([]float32, batch*h*w*filters)
				wt := randSlice(rng, 9*filters*filters)
				bias := randSlice(rng, filters)
				scratch := make([]float32, Conv3x3Scratch(batch, h, w, filters))
				measure(b, 2*float64(batch*h*w*9*filters*filters), func() {
					Conv3x3(dst, src, batch, h, w, filters, filters, wt, bias, nil, true, scratch)
				})
			})
		}
	}
}

// BenchmarkConv3x3I8 is BenchmarkConv3x3 in int8 (Conv3x3I8, the
// quantization of the input included), at every int8 level this CPU runs:
// GFLOP/s counts each multiply-add as two operations, as for float32, so
// the two benchmarks compare directly. On a shared machine compare them
// within one run, e.g. fp32 and int8 at the AVX2 level on one core:
//
//	GODEBUG=cpu.avx512f=off,cpu.avx512vnni=off,cpu.avxvnni=off GOMAXPROCS=1 \
//	  go test ./model/kernel/ -run XXX -bench 'Conv3x3(I8)?/[^/]*/f64/b32$'
func BenchmarkConv3x3I8(b *testing.B) {
	const h, w = 8, 4
	for _, filters := range []int{32, 64, 128} {
		for _, batch := range []int{1, 8, 32, 128} {
			for _, im := range i8Impls {
				b.Run(fmt.Sprintf("%s/f%d/b%d", im.name, filters, batch), func(b *testing.B) {
					if im == i8Go && batch > 8 {
						b.Skip("slow")
					}
					rng := rand.New(rand.NewSource(1))
					src := randI8Slice(rng, batch*h*w*filters, 1, true)
					dst := make([]float32, batch*h*w*filters)
					wt := PackConv3x3I8(randSlice(rng, 9*filters*filters), filters, filters, 4.0/255)
					bias := randSlice(rng, filters)
					scratch := make([]uint8, wt.Conv3x3Scratch(batch, h, w))
					withI8(im, func() {
						measure(b, 2*float64(batch*h*w*9*filters*filters), func() {
							Conv3x3I8(dst, src, batch, h, w, filters, filters, wt, bias, nil, true, scratch)
						})
					})
				})
			}
		}
	}
}

// BenchmarkSgemm measures plain products of a few shapes (m x k times k x n).
func BenchmarkSgemm(b *testing.B) {
	for _, s := range []struct{ m, n, k int }{
		{1024, 64, 576}, {1024, 128, 1152}, {4096, 32, 288}, {128, 3, 512}, {96, 96, 96},
	} {
		withImpls(b, fmt.Sprintf("%dx%dx%d", s.m, s.n, s.k), func(b *testing.B) {
			rng := rand.New(rand.NewSource(1))
			a := randSlice(rng, s.m*s.k)
			bm := randSlice(rng, s.k*s.n)
			c := make([]float32, s.m*s.n)
			measure(b, 2*float64(s.m*s.n*s.k), func() {
				Sgemm(s.m, s.n, s.k, a, s.k, bm, s.n, c, s.n, false)
			})
		})
	}
}

// BenchmarkKernelI8 measures each int8 micro-kernel alone, on one tile
// over 576 quads of k (the depth of a 3x3 convolution of 64 channels) with
// its operands in the level-1 cache: the ceiling of the int8 products.
func BenchmarkKernelI8(b *testing.B) {
	const seg = 144
	for _, im := range i8Kernels() {
		b.Run(im.name, func(b *testing.B) {
			rng := rand.New(rand.NewSource(1))
			var rows [i8MR]*uint8
			a := make([]uint8, i8MR*4*seg)
			for i := range a {
				a[i] = uint8(rng.Intn(256))
			}
			for r := range rows {
				rows[r] = &a[r*4*seg]
			}
			bm := make([]int8, seg*4*i8NR)
			for i := range bm {
				bm[i] = int8(rng.Intn(255) - 127)
			}
			if im.wide {
				rows, bm = widenI8(rows, 4*seg, bm, seg, i8NR), widenedB(bm, seg, i8NR)
			}
			corr := make([]int32, i8NR)
			scale := make([]float32, i8NR)
			c := make([]float32, i8MR*i8NR)
			measure(b, 2*float64(im.mr*im.nr*4*seg), func() {
				callKernelI8(im.id, seg, 1, 0, &rows[0], &bm[0], i8NR, &c[0], i8NR, &scale[0], &corr[0], 0)
			})
		})
	}
}
