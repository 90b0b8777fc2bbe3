//go:build amd64 && !purego

package kernel

import "unsafe"

// The Winograd convolution of the AVX2 int8 level. Without VNNI an exact
// product of 16-bit operands costs VPMADDWD + VPADDD per 16 multiply-adds,
// so the 3x3 convolutions gain by doing fewer: F(2x2, 3x3) computes each
// 2x2 tile of outputs from a 4x4 patch d of the padded input with 16
// products per channel pair instead of 36,
//
//	4 S = A^T [ ((2G) g (2G)^T) . (B^T d B) ] A,
//
// with the integer matrices B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1],
// 2G = [2 0 0; 1 1 1; 1 -1 1; 0 0 2] and A^T = [1 1 1 0; 0 1 -1 -1]: since
// G has halves, the filter is transformed with 2G, which makes it integer
// and the result 4 times the direct convolution's sum S. Every step is
// integer arithmetic on the same quantized inputs (bytes in [0, 255]) and
// weights (in [-127, 127]) as the direct kernels, so S is the same int32,
// bit for bit, and so is the float32 epilogue. The bounds:
//   - B^T d B sums four values of d with signs: |V| <= 4*255 = 1020, int16
//     (winoInAVX2);
//   - (2G) g (2G)^T sums nine weights with coefficients whose absolute
//     rows sum to 2, 3, 3, 2: |U| <= 3*3*127 = 1143, int16 (packWino);
//   - VPMADDWD adds two products into int32, at most 2*1020*1143 =
//     2,331,720 (it wraps only for two products of -32768 each, which
//     cannot occur), and the sum M over cin channels is at most
//     1020*1143*cin = 1,165,860*cin;
//   - the output transform adds nine values of M with signs, in int32
//     wrapping modulo 2^32 like every step before it, so it gives 4S
//     exactly whenever |4S| < 2^31; |4S| <= 4*9*255*127*cin = 1,165,860*cin.
// Both bounds hold for cin <= winoMaxCin = 1841 (cin padded to a multiple
// of 4, so up to 1840 channels); wider layers, odd image
// sizes and output channels that are not a multiple of 8 take the direct
// kernel. TestConv3x3I8Wino checks all of it against the portable kernel,
// including inputs and weights at these bounds.

// winoMaxCin is the most input channels (padded to 4) for which |4S| and
// |M| stay below 2^31: 1,165,860 * cin < 2^31.
const winoMaxCin = (1<<31 - 1) / (4 * 9 * 255 * 127)

// flagI32 makes kernel6x16I8AVX2 store its int32 sums themselves in C.
const flagI32 = 4

// winoInAVX2 writes the 16 values B^T d B of each of cw channels (a
// multiple of 16) of the 4x4 patch at pad (pixels cw values apart, rows
// ldp bytes) to v, value xi at v[xi*cw:]. It needs AVX2.
//
//go:noescape
func winoInAVX2(v *int16, pad *uint16, cw, ldp int)

// winoOutAVX2 turns the 16 sums of one tile (m: [n/8][16][8], n channels,
// a multiple of 8) into its 2x2 outputs: S = (A^T M A) / 4, then
// float32(S) * scale + (res + bias) (bias with flags winoBias, res with
// winoRes; max(0, x) with flagRelu) into dst, the tile's top left pixel
// (pixels n floats apart, rows ldd bytes; res the same). It needs AVX2.
//
//go:noescape
func winoOutAVX2(dst *float32, m *int32, n, ldd int, scale, bias, res *float32, flags int)

// The flags of winoOutAVX2 beside flagRelu.
const (
	winoBias = 1
	winoRes  = 8
)

// packWino sets m.wino, the Winograd weights of the 3x3 convolution m
// (packed by packI8 from [3][3][cp][cout]), when its shape allows the
// Winograd convolution.
func packWino(m *I8Matrix) {
	cp, n := m.K/9, m.N
	if cp > winoMaxCin || n%8 != 0 {
		return
	}
	ww := &winoWeights{cw: (cp + 15) &^ 15, npw: (n + 15) &^ 15}
	ww.u = make([]int16, 16*ww.cw*ww.npw)
	g2 := [4][3]int32{{2, 0, 0}, {1, 1, 1}, {1, -1, 1}, {0, 0, 2}}
	var g [3][3]int32
	for c := 0; c < cp; c++ {
		for j := 0; j < n; j++ {
			for t := 0; t < 9; t++ {
				r := t*cp + c
				g[t/3][t%3] = int32(m.data[((r/4)*m.np+j)*4+r%4])
			}
			for x := 0; x < 16; x++ {
				ga, gb := &g2[x/4], &g2[x%4]
				var s int32
				for ky := 0; ky < 3; ky++ {
					for kx := 0; kx < 3; kx++ {
						s += ga[ky] * g[ky][kx] * gb[kx]
					}
				}
				ww.u[((x*(ww.cw/2)+c/2)*ww.npw+j)*2+c%2] = int16(s)
			}
		}
	}
	m.wino = ww
}

// conv3x3I8Wino computes Conv3x3I8 as a Winograd convolution where level
// im has one and the weights and shape allow it, and reports whether it
// did.
func conv3x3I8Wino(im *i8Impl, dst, src []float32, batch, h, w, cin, cout int, wt *I8Matrix, bias, residual []float32, relu bool, scratch []uint8) bool {
	ww := wt.wino
	if !im.wino || ww == nil || h%2 != 0 || w%2 != 0 {
		return false
	}
	cw, npw := ww.cw, ww.npw
	tw := w / 2
	perImage := (h / 2) * tw
	tiles := batch * perImage
	bt := winoBlockTiles(tiles)
	need := winoScratch(ww, batch, h, w)
	if len(scratch) < need {
		scratch = make([]uint8, need)
	}
	// Aligned to 32 bytes: pad, the transformed tiles v ([tile][16][cw]),
	// their products m ([tile][npw/8][16][8]).
	off := int(-uintptr(unsafe.Pointer(unsafe.SliceData(scratch)))) & 31
	npad := batch * (h + 2) * (w + 2) * cw
	pad := unsafe.Slice((*uint16)(unsafe.Pointer(&scratch[off])), npad)
	off += 2 * npad
	v := unsafe.Slice((*int16)(unsafe.Pointer(&scratch[off])), bt*16*cw)
	off += 2 * len(v)
	m := unsafe.Slice((*int32)(unsafe.Pointer(&scratch[off])), bt*16*npw)

	inv := 1 / wt.inScale
	padImagesAs(pad, src, batch, h, w, cin, cw, func(d []uint16, s []float32) { quantU16(d, s, inv) })
	flags := 0
	var bp *float32
	if bias != nil {
		flags, bp = flags|winoBias, &bias[0]
	}
	if residual != nil {
		flags |= winoRes
	}
	if relu {
		flags |= flagRelu
	}
	ub := unsafe.Slice((*int8)(unsafe.Pointer(unsafe.SliceData(ww.u))), 2*len(ww.u))
	var rows [i8MR]*uint8
	for t0 := 0; t0 < tiles; t0 += bt {
		nt := min(bt, tiles-t0)
		ntp := (nt + 5) / 6 * 6
		for t := 0; t < nt; t++ {
			b, r := (t0+t)/perImage, (t0+t)%perImage
			p := ((b*(h+2)+2*(r/tw))*(w+2) + 2*(r%tw)) * cw
			winoInAVX2(&v[t*16*cw], &pad[p], cw, 2*(w+2)*cw)
		}
		clear(v[nt*16*cw : ntp*16*cw]) // the rows past the last tile
		for x := 0; x < 16; x++ {
			bx := x * (cw / 2) * npw * 4 // bytes into ub
			for i := 0; i < ntp; i += 6 {
				for r := 0; r < 6; r++ {
					rows[r] = (*uint8)(unsafe.Pointer(&v[((i+r)*16+x)*cw]))
				}
				for j := 0; j < npw; j += 16 {
					c := (*float32)(unsafe.Pointer(&m[i*16*npw+j*16+x*8]))
					kernel6x16I8AVX2(cw/4, 1, 0, &rows[0], &ub[bx+4*j], npw, c, 16*npw, nil, nil, flagI32)
				}
			}
		}
		for t := 0; t < nt; t++ {
			b, r := (t0+t)/perImage, (t0+t)%perImage
			o := ((b*h+2*(r/tw))*w + 2*(r%tw)) * cout
			var rp *float32
			if residual != nil {
				rp = &residual[o]
			}
			winoOutAVX2(&dst[o], &m[t*16*npw], cout, 4*w*cout, &wt.scale[0], bp, rp, flags)
		}
	}
	return true
}
