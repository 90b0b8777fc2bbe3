package learn

import (
	"runtime"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
	G "gorgonia.org/gorgonia"

	"dama/model/kernel"
)

// fastBLAS is gonum's BLAS with the float32 matrix product replaced by
// package kernel's SGEMM (split by rows over the available cores). Gorgonia's
// convolutions and dense layers spend most of their time there; kernel's
// micro-kernels are several times faster than gonum's pure-Go loops.
// Transposed operands are copied into row-major form first. Products with
// alpha != 1, beta other than 0 or 1, or tiny sizes go to gonum.
type fastBLAS struct{ gonum.Implementation }

var useFastBLAS sync.Once

// installBLAS makes Gorgonia (process-wide) use fastBLAS. It only changes
// how float32 products are computed, not their results beyond rounding.
func installBLAS() {
	useFastBLAS.Do(func() { G.Use(fastBLAS{}) })
}

var transposePool = sync.Pool{New: func() any { return new([]float32) }}

func transposed(src []float32, rows, cols, ld int) *[]float32 {
	// src is rows x cols with stride ld; the result is cols x rows.
	p := transposePool.Get().(*[]float32)
	if cap(*p) < rows*cols {
		*p = make([]float32, rows*cols)
	}
	t := (*p)[:rows*cols]
	for i := 0; i < rows; i++ {
		row := src[i*ld : i*ld+cols]
		for j, v := range row {
			t[j*rows+i] = v
		}
	}
	*p = t
	return p
}

// Sgemm computes C = alpha*op(A)*op(B) + beta*C.
func (fastBLAS) Sgemm(tA, tB blas.Transpose, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if alpha != 1 || (beta != 0 && beta != 1) || m*n*k < 1<<14 || m == 0 || n == 0 || k == 0 {
		gonum.Implementation{}.Sgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	if tA != blas.NoTrans { // A is stored k x m
		p := transposed(a, k, m, lda)
		defer transposePool.Put(p)
		a, lda = *p, k
	}
	if tB != blas.NoTrans { // B is stored n x k
		p := transposed(b, n, k, ldb)
		defer transposePool.Put(p)
		b, ldb = *p, n
	}
	acc := beta == 1
	workers := min(runtime.GOMAXPROCS(0), m/32, max(1, m*n*k/(1<<18)))
	if workers <= 1 {
		kernel.Sgemm(m, n, k, a, lda, b, ldb, c, ldc, acc)
		return
	}
	var wg sync.WaitGroup
	per := (m + workers - 1) / workers
	for r0 := 0; r0 < m; r0 += per {
		rows := min(per, m-r0)
		wg.Add(1)
		go func(r0, rows int) {
			defer wg.Done()
			kernel.Sgemm(rows, n, k, a[r0*lda:], lda, b, ldb, c[r0*ldc:], ldc, acc)
		}(r0, rows)
	}
	wg.Wait()
}
