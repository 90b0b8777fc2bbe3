package kernel

import "fmt"

// panelNR is the width of the column panels of packed weights: every
// micro-kernel's nr divides it.
const panelNR = maxNR

// packPanels returns the k x n matrix w (row-major, stride n) as panels of
// panelNR columns, [ceil(n/panelNR)][k][panelNR], the last one padded with
// zero columns: a micro-kernel then reads its block of B as one
// contiguous stream, whatever n is.
func packPanels(w []float32, k, n int) []float32 {
	np := (n + panelNR - 1) / panelNR
	p := make([]float32, np*k*panelNR)
	for jp := 0; jp < np; jp++ {
		j0 := jp * panelNR
		w0 := min(panelNR, n-j0)
		for r := 0; r < k; r++ {
			copy(p[(jp*k+r)*panelNR:(jp*k+r)*panelNR+w0], w[r*n+j0:r*n+j0+w0])
		}
	}
	return p
}

// gemmPanels is gemm with B packed by packPanels, one panel at a time, so
// that each panel is read from memory once, whatever the number of rows.
// The results are gemm's on the unpacked B, bit for bit: each element of
// C sums the same products in the same order.
func gemmPanels(im *impl, m, n, k int, a *operandA, bp []float32, c []float32, ldc int, acc, relu bool) {
	for j0 := 0; j0 < n; j0 += panelNR {
		gemm(im, m, min(panelNR, n-j0), k, a, bp[j0*k:], panelNR, c[j0:], ldc, acc, relu, true)
	}
}

// DenseWeights holds a dense layer's weights (or a 1x1 convolution's)
// packed for DensePacked. It is read-only once built.
type DenseWeights struct {
	in, out int
	p       []float32 // packPanels of [in][out]
}

// PackDense packs the weights wt ([in][out], as Dense takes them) for
// DensePacked.
func PackDense(wt []float32, in, out int) *DenseWeights {
	if in < 0 || out < 0 {
		panic(fmt.Sprintf("kernel: PackDense: negative shape %d -> %d", in, out))
	}
	checkLen("PackDense", "wt", wt, in*out)
	return &DenseWeights{in: in, out: out, p: packPanels(wt, in, out)}
}

// DensePacked is Dense (or Conv1x1, with rows the pixels) with the weights
// packed by PackDense (in and out must be theirs), with the same results
// bit for bit.
func DensePacked(dst, src []float32, rows, in, out int, wt *DenseWeights, bias []float32, relu bool) {
	if in != wt.in || out != wt.out {
		panic(fmt.Sprintf("kernel: DensePacked: %d -> %d, weights packed for %d -> %d", in, out, wt.in, wt.out))
	}
	if rows < 0 {
		panic(fmt.Sprintf("kernel: DensePacked: negative rows %d", rows))
	}
	checkLen("DensePacked", "src", src, rows*in)
	checkLen("DensePacked", "dst", dst, rows*out)
	checkOptional("DensePacked", "bias", bias, out)
	acc := fillBias(dst, rows, out, bias, nil)
	gemmPanels(active, rows, out, in, &operandA{data: src, lda: in}, wt.p, dst, out, acc, relu)
}
