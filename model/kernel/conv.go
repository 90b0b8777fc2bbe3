package kernel

import "fmt"

// The float32 3x3 convolution with its weights prepared once
// (PackConv3x3): Conv3x3's direct product where it is best, and elsewhere
// a Winograd F(4x4, 3x3) convolution, which computes each 4x4 tile of
// outputs from the 6x6 patch d of the padded input around it with 36
// multiply-adds per channel pair instead of 144,
//
//	Y = A^T [ (G g G^T) . (B^T d B) ] A,
//
// with the matrices of Lavin and Gray (2016, "Fast algorithms for
// convolutional neural networks") for the points 0, 1, -1, 2,
// -2 and infinity:
//
//	B^T = [4  0 -5  0 1 0]   G = [ 1/4     0    0]   A^T = [1 1  1 1  1 0]
//	      [0 -4 -4  1 1 0]       [-1/6 -1/6 -1/6]          [0 1 -1 2 -2 0]
//	      [0  4 -4 -1 1 0]       [-1/6  1/6 -1/6]          [0 1  1 4  4 0]
//	      [0 -2 -1  2 1 0]       [1/24 1/12  1/6]          [0 1 -1 8 -8 1]
//	      [0  2 -1 -2 1 0]       [1/24 -1/12 1/6]
//	      [0  4  0 -5 0 1]       [   0     0    1]
//
// The filters' transform U = G g G^T is computed once, in float64, by
// PackConv3x3. Each convolution then transforms the input tiles (V = B^T d
// B, 36 values per channel), multiplies them by U as 36 products of
// (tiles x cin) by (cin x cout) on the SGEMM micro-kernels, and transforms
// the products back (A^T M A), adding bias and residual and applying the
// ReLU on the way out. On 8x4 boards the two tiles of an image cover it
// exactly, so nothing is computed twice or wasted on padding.
//
// The float32 rounding of the transforms moves results by a few units in
// the last place of the sum's magnitude more than the direct product does
// (at most 4.3e-6 of the sum of the terms' magnitudes measured, against
// about 1e-7), inside the tolerance the tests hold every implementation
// to (1e-5, TestConv3x3Packed).
//
// The transforms run in assembly with the AVX-512 and AVX2 kernels
// (kernel_amd64.s, channels a multiple of 16 or 8) and in Go with the
// portable kernel; the NEON kernel (arm64, not yet measured on an arm
// machine) and shapes the tiles do not cover take the direct product.

// Conv3x3Weights holds a 3x3 convolution's weights prepared for
// Conv3x3Packed: the direct product's and, where Conv3x3Packed may use
// it, their Winograd transform. It is read-only once built.
type Conv3x3Weights struct {
	cin, cout int
	w         []float32 // [3][3][cin][cout] in column panels (packPanels)
	// u is G g G^T, [36][cin][cout], each of the 36 matrices in column
	// panels (packPanels), nil when never used.
	u []float32
}

// PackConv3x3 prepares the weights wt ([3][3][cin][cout], as Conv3x3
// takes them) for Conv3x3Packed.
func PackConv3x3(wt []float32, cin, cout int) *Conv3x3Weights {
	if cin < 0 || cout < 0 {
		panic(fmt.Sprintf("kernel: PackConv3x3: negative shape cin=%d cout=%d", cin, cout))
	}
	checkLen("PackConv3x3", "wt", wt, 9*cin*cout)
	m := &Conv3x3Weights{cin: cin, cout: cout, w: packPanels(wt, 9*cin, cout)}
	if winoChannels(cin, cout) {
		m.u = winoF32Weights(wt, cin, cout)
	}
	return m
}

// Direct returns the weights of m without their Winograd transform (they
// share the rest): Conv3x3Packed runs the direct product with them, the
// results of Conv3x3 bit for bit.
func (m *Conv3x3Weights) Direct() *Conv3x3Weights {
	return &Conv3x3Weights{cin: m.cin, cout: m.cout, w: m.w}
}

// winoChannels reports whether the active implementation runs the
// Winograd convolution with cin input and cout output channels (the
// transformed weights, 4 times the size of the others, are not kept for
// nothing: on arm64, whose NEON kernel has none, or for the input layer).
func winoChannels(cin, cout int) bool {
	vw := active.winoVW
	return vw > 0 && cin > 0 && cout > 0 && cin%vw == 0 && cout%vw == 0
}

// winoG is G of F(4x4, 3x3).
var winoG = [6][3]float64{
	{1.0 / 4, 0, 0},
	{-1.0 / 6, -1.0 / 6, -1.0 / 6},
	{-1.0 / 6, 1.0 / 6, -1.0 / 6},
	{1.0 / 24, 1.0 / 12, 1.0 / 6},
	{1.0 / 24, -1.0 / 12, 1.0 / 6},
	{0, 0, 1},
}

// winoF32Weights returns G g G^T of each channel pair of the 3x3 filters wt
// ([3][3][cin][cout]), computed in float64, as 36 matrices [cin][cout],
// each packed by packPanels (winoPanelSize floats apart).
func winoF32Weights(wt []float32, cin, cout int) []float32 {
	u := make([]float32, 36*cin*cout)
	var g [3][3]float64
	var gg [6][3]float64 // G g
	for ci := 0; ci < cin; ci++ {
		for co := 0; co < cout; co++ {
			for t := 0; t < 9; t++ {
				g[t/3][t%3] = float64(wt[(t*cin+ci)*cout+co])
			}
			for i := 0; i < 6; i++ {
				for j := 0; j < 3; j++ {
					gg[i][j] = winoG[i][0]*g[0][j] + winoG[i][1]*g[1][j] + winoG[i][2]*g[2][j]
				}
			}
			for i := 0; i < 6; i++ {
				for j := 0; j < 6; j++ {
					s := gg[i][0]*winoG[j][0] + gg[i][1]*winoG[j][1] + gg[i][2]*winoG[j][2]
					u[((i*6+j)*cin+ci)*cout+co] = float32(s)
				}
			}
		}
	}
	size := winoPanelSize(cin, cout)
	p := make([]float32, 36*size)
	for x := 0; x < 36; x++ {
		copy(p[x*size:], packPanels(u[x*cin*cout:(x+1)*cin*cout], cin, cout))
	}
	return p
}

// winoPanelSize is the length of one of the 36 matrices of U packed by
// packPanels.
func winoPanelSize(cin, cout int) int { return (cout + panelNR - 1) / panelNR * panelNR * cin }

// Conv3x3Scratch is the length of the scratch buffer Conv3x3Packed needs
// with the weights m to run without allocating, at every implementation of
// this CPU.
func (m *Conv3x3Weights) Conv3x3Scratch(batch, h, w int) int {
	n := Conv3x3Scratch(batch, h, w, m.cin)
	if m.u != nil && h%4 == 0 && w%4 == 0 {
		n = max(n, winoF32Scratch(batch, h, w, m.cin, m.cout))
	}
	return n
}

// Conv3x3Packed is Conv3x3 with the weights prepared by PackConv3x3 (cin
// and cout must be theirs): the same convolution, run as a Winograd
// convolution where this CPU has one for the shape (Winograd), else as
// the direct product of Conv3x3, with its results bit for bit. The choice
// depends on the shape and the CPU alone, never on batch, so an image's
// outputs do not depend on the images beside it, bit for bit. dst may be
// the same slice as residual or src. With cap(scratch) >=
// wt.Conv3x3Scratch(batch, h, w) the call does not allocate (scratch must
// not overlap the other slices).
func Conv3x3Packed(dst, src []float32, batch, h, w, cin, cout int, wt *Conv3x3Weights, bias, residual []float32, relu bool, scratch []float32) {
	if cin != wt.cin || cout != wt.cout {
		panic(fmt.Sprintf("kernel: Conv3x3Packed: %d -> %d channels, weights packed for %d -> %d", cin, cout, wt.cin, wt.cout))
	}
	checkConv3x3("Conv3x3Packed", dst, src, batch, h, w, cin, cout, bias, residual)
	if wt.u == nil || !winoRuns(active, h, w, cin, cout) {
		conv3x3Direct(dst, src, batch, h, w, cin, cout, wt.w, true, bias, residual, relu, scratch)
		return
	}
	if batch > 0 {
		conv3x3WinoF32(active, dst, src, batch, h, w, cin, cout, wt.u, bias, residual, relu, scratch)
	}
}

// Winograd reports whether Conv3x3Packed runs a Winograd convolution with
// these weights on h x w images on this CPU.
func (m *Conv3x3Weights) Winograd(h, w int) bool {
	return m.u != nil && winoRuns(active, h, w, m.cin, m.cout)
}

// WinogradMinBatch is the smallest batch of h x w images from which the
// Winograd convolutions of Conv3x3Packed are faster than the direct
// product on this CPU (at least 1), measured on whole networks: their
// transformed weights are 4 times larger, and for one or two images
// reading them costs more than the products save. (A caller that picks
// the direct product for small batches, Direct, should pick per largest
// batch rather than per call, so that an image's outputs do not depend on
// the batch it is in.)
func WinogradMinBatch(h, w int) int {
	tiles := max(1, (h/4)*(w/4))
	return max(1, (active.winoMinTiles+tiles-1)/tiles)
}

// winoRuns reports whether im runs the Winograd convolution of h x w
// images with cin and cout channels: it has the transforms for channels in
// multiples of its vectors, and the tiles cover the images.
func winoRuns(im *impl, h, w, cin, cout int) bool {
	return im.winoVW > 0 && cin > 0 && cout > 0 && cin%im.winoVW == 0 && cout%im.winoVW == 0 &&
		h > 0 && w > 0 && h%4 == 0 && w%4 == 0
}

// winoChunkTiles is about how many tiles the Winograd convolution
// transforms and multiplies at a time (whole images, at least one): their
// transformed inputs and products (36*(cin+cout) floats each, 36 KB for 64
// channels) stay in the level-2 cache beside U.
const winoChunkTiles = 32

// winoF32Chunk returns the images per chunk and the tiles of the chunk,
// rounded up to a multiple of the micro-kernel's rows mr.
func winoF32Chunk(batch, h, w, mr int) (images, tiles int) {
	per := (h / 4) * (w / 4)
	images = min(batch, max(1, winoChunkTiles/per))
	tiles = (images*per + mr - 1) / mr * mr
	return images, tiles
}

// winoF32Scratch is the scratch of the Winograd convolution at every
// implementation: one chunk's transformed tiles and products.
func winoF32Scratch(batch, h, w, cin, cout int) int {
	n := 0
	for _, im := range impls {
		if im.winoVW > 0 {
			_, tiles := winoF32Chunk(batch, h, w, im.mr)
			n = max(n, 36*tiles*(cin+cout))
		}
	}
	return n
}

// The flags of the input transform: the rows and columns of a tile's 6x6
// patch that lie outside the image, in its zero padding.
const (
	winoTop    = 1 // row 0
	winoBottom = 2 // row 5
	winoLeft   = 4 // column 0
	winoRight  = 8 // column 5
)

// conv3x3WinoF32 computes Conv3x3 as a Winograd convolution with im, the
// filters transformed in u (winoF32Weights); the shape is one winoRuns
// accepts and the operands have been checked. The tiles are read from src
// itself, the padding of their patches left out of the arithmetic by the
// flags above.
func conv3x3WinoF32(im *impl, dst, src []float32, batch, h, w, cin, cout int, u, bias, residual []float32, relu bool, scratch []float32) {
	images, tiles := winoF32Chunk(batch, h, w, im.mr)
	scratch = scratchOf(scratch, 36*tiles*(cin+cout))
	v := scratch[:36*tiles*cin] // [tile][36][cin]
	m := scratch[36*tiles*cin:] // [tile][36][cout]
	tw := w / 4
	per := (h / 4) * tw
	flags := 0
	if relu {
		flags |= flagRelu
	}
	for b0 := 0; b0 < batch; b0 += images {
		nb := min(images, batch-b0)
		nt := nb * per
		for t := 0; t < nt; t++ {
			b, r := b0+t/per, t%per
			y, x := 4*(r/tw), 4*(r%tw)
			edges := 0
			if y == 0 {
				edges |= winoTop
			}
			if y+4 == h {
				edges |= winoBottom
			}
			if x == 0 {
				edges |= winoLeft
			}
			if x+4 == w {
				edges |= winoRight
			}
			winoF32In(im.id, v[36*t*cin:36*(t+1)*cin], src, ((b*h+y)*w+x)*cin, cin, w*cin, edges)
		}
		ntp := (nt + im.mr - 1) / im.mr * im.mr
		clear(v[36*nt*cin : 36*ntp*cin]) // the rows past the last tile
		size := winoPanelSize(cin, cout)
		for x := 0; x < 36; x++ {
			gemmPanels(im, ntp, cout, cin, &operandA{data: v[x*cin:], lda: 36 * cin}, u[x*size:], m[x*cout:], 36*cout, false, false)
		}
		for t := 0; t < nt; t++ {
			b, r := b0+t/per, t%per
			o := ((b*h+4*(r/tw))*w + 4*(r%tw)) * cout
			var res []float32
			if residual != nil {
				res = residual[o:]
			}
			winoF32Out(im.id, dst[o:], m[36*t*cout:36*(t+1)*cout], cout, w*cout, bias, res, flags)
		}
	}
}

// winoF32InGo writes the 36 values V = B^T d B of each of the c channels
// of the 6x6 patch d whose pixel (1, 1) is src[at] (pixels c values
// apart, rows ldp) to v, value xi = 6i+j at v[xi*c:]; the rows and
// columns of the patch that edges names are zero (never read). First d B
// row by row into v, then B^T of that column by column, in place.
func winoF32InGo(v, src []float32, at, c, ldp, edges int) {
	var d [6]float32
	for i := 0; i < 6; i++ {
		o := 6 * i * c
		if i == 0 && edges&winoTop != 0 || i == 5 && edges&winoBottom != 0 {
			clear(v[o : o+6*c])
			continue
		}
		row := at + (i-1)*ldp - c
		for ch := 0; ch < c; ch++ {
			for j := range d {
				if j == 0 && edges&winoLeft != 0 || j == 5 && edges&winoRight != 0 {
					d[j] = 0
				} else {
					d[j] = src[row+j*c+ch]
				}
			}
			t0, t1, t2, t3, t4, t5 := winoB(d[0], d[1], d[2], d[3], d[4], d[5])
			v[o+ch], v[o+c+ch], v[o+2*c+ch], v[o+3*c+ch], v[o+4*c+ch], v[o+5*c+ch] = t0, t1, t2, t3, t4, t5
		}
	}
	for j := 0; j < 6; j++ {
		col := v[j*c:]
		for ch := 0; ch < c; ch++ {
			s := 6 * c
			t0, t1, t2, t3, t4, t5 := winoB(col[ch], col[s+ch], col[2*s+ch], col[3*s+ch], col[4*s+ch], col[5*s+ch])
			col[ch], col[s+ch], col[2*s+ch], col[3*s+ch], col[4*s+ch], col[5*s+ch] = t0, t1, t2, t3, t4, t5
		}
	}
}

// winoB is B^T of six values, the arithmetic of the assembly (which fuses
// the multiplications into the additions).
func winoB(d0, d1, d2, d3, d4, d5 float32) (t0, t1, t2, t3, t4, t5 float32) {
	t0 = d4 + 4*d0 - 5*d2
	t1 = (d3 + d4) - 4*(d1+d2)
	t2 = (d4 - d3) + 4*(d1-d2)
	t3 = (d4 - d2) + 2*(d3-d1)
	t4 = (d4 - d2) - 2*(d3-d1)
	t5 = d5 + 4*d1 - 5*d3
	return
}

// winoA is A^T of six values.
func winoA(m0, m1, m2, m3, m4, m5 float32) (o0, o1, o2, o3 float32) {
	a, b := m1+m2, m1-m2
	c, d := m3+m4, m3-m4
	o0 = m0 + a + c
	o1 = b + 2*d
	o2 = a + 4*c
	o3 = b + 8*d + m5
	return
}

// winoF32OutGo turns the 36 products of one tile (m: [36][c], c channels)
// into its 4x4 outputs A^T M A, then adds bias and res (either may be
// nil) and applies max(0, x) with flagRelu, into dst, the tile's top left
// pixel (pixels c values apart, rows ldd; res the same): first M A row by
// row into m, in place, then A^T of that column by column.
func winoF32OutGo(dst, m []float32, c, ldd int, bias, res []float32, flags int) {
	for i := 0; i < 6; i++ {
		row := m[6*i*c:]
		for ch := 0; ch < c; ch++ {
			o0, o1, o2, o3 := winoA(row[ch], row[c+ch], row[2*c+ch], row[3*c+ch], row[4*c+ch], row[5*c+ch])
			row[ch], row[c+ch], row[2*c+ch], row[3*c+ch] = o0, o1, o2, o3
		}
	}
	s := 6 * c
	for j := 0; j < 4; j++ {
		col := m[j*c:]
		for ch := 0; ch < c; ch++ {
			var o [4]float32
			o[0], o[1], o[2], o[3] = winoA(col[ch], col[s+ch], col[2*s+ch], col[3*s+ch], col[4*s+ch], col[5*s+ch])
			for i, x := range o {
				at := i*ldd + j*c + ch
				if bias != nil {
					x += bias[ch]
				}
				if res != nil {
					x += res[at]
				}
				if flags&flagRelu != 0 {
					x = max(x, 0)
				}
				dst[at] = x
			}
		}
	}
}
