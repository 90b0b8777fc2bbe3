//go:build amd64 && !purego

package kernel

import (
	"fmt"
	"math"
	"math/rand"
	"slices"
	"testing"
)

// winoLevel returns the level of this CPU with a Winograd convolution,
// skipping the test where there is none (no AVX2, or masked off).
func winoLevel(t *testing.T) *i8Impl {
	for _, im := range i8Impls {
		if im.wino {
			return im
		}
	}
	t.Skip("no int8 level with a Winograd convolution on this CPU (AVX2)")
	return nil
}

// runWino runs the Winograd convolution at level im, failing the test if it
// does not take the shape, and Conv3x3I8 at the portable level, and checks
// that both give the same results bit for bit.
func runWino(t *testing.T, what string, im *i8Impl, src []float32, batch, h, w, cin, cout int, m *I8Matrix, bias, res []float32, relu bool, scratch []uint8) {
	t.Helper()
	want := make([]float32, batch*h*w*cout)
	withI8(i8Go, func() { Conv3x3I8(want, src, batch, h, w, cin, cout, m, bias, res, relu, nil) })
	got := make([]float32, len(want))
	var ok bool
	withI8(im, func() { ok = conv3x3I8Wino(im, got, src, batch, h, w, cin, cout, m, bias, res, relu, scratch) })
	if !ok {
		t.Fatalf("%s: the Winograd convolution did not take batch %d, %dx%d, %d -> %d", what, batch, h, w, cin, cout)
	}
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Fatalf("%s: [%d] = %v, the portable kernel gives %v", what, i, got[i], want[i])
		}
	}
}

// The Winograd convolution gives the portable direct kernel's results bit
// for bit: batches of several blocks of tiles and a partial one, channel
// counts that are not multiples of 16 (padded), with bias, residual and
// ReLU or without; shapes it cannot take run the direct kernel, to the
// same results.
func TestConv3x3I8Wino(t *testing.T) {
	im := winoLevel(t)
	rng := rand.New(rand.NewSource(9))
	for _, sh := range []struct{ batch, h, w, cin, cout int }{
		{1, 8, 4, 64, 64}, {7, 8, 4, 64, 64}, {32, 8, 4, 64, 64}, {3, 8, 4, 17, 24}, {2, 4, 6, 3, 8}, {1, 2, 2, 5, 16}, {5, 6, 2, 32, 40},
	} {
		name := fmt.Sprintf("b%d_%dx%d_%dto%d", sh.batch, sh.h, sh.w, sh.cin, sh.cout)
		src := randI8Slice(rng, sh.batch*sh.h*sh.w*sh.cin, 1, true)
		m := PackConv3x3I8(randI8Slice(rng, 9*sh.cin*sh.cout, 0.1, false), sh.cin, sh.cout, slices.Max(src)/300) // some saturate
		bias := randI8Slice(rng, sh.cout, 0.5, false)
		res := randI8Slice(rng, sh.batch*sh.h*sh.w*sh.cout, 1, false)
		runWino(t, name, im, src, sh.batch, sh.h, sh.w, sh.cin, sh.cout, m, nil, nil, false, nil)
		runWino(t, name+" bias relu", im, src, sh.batch, sh.h, sh.w, sh.cin, sh.cout, m, bias, nil, true, nil)
		runWino(t, name+" residual only", im, src, sh.batch, sh.h, sh.w, sh.cin, sh.cout, m, nil, res, false, nil)
		scratch := make([]uint8, m.Conv3x3Scratch(sh.batch, sh.h, sh.w)+1)
		runWino(t, name+" residual", im, src, sh.batch, sh.h, sh.w, sh.cin, sh.cout, m, bias, res, true, scratch[1:])
	}
	for _, sh := range []struct{ batch, h, w, cin, cout int }{{2, 8, 4, 16, 12}, {2, 5, 3, 8, 16}, {1, 3, 4, 8, 8}} {
		src := randI8Slice(rng, sh.batch*sh.h*sh.w*sh.cin, 1, true)
		m := PackConv3x3I8(randI8Slice(rng, 9*sh.cin*sh.cout, 0.1, false), sh.cin, sh.cout, slices.Max(src)/255)
		dst := make([]float32, sh.batch*sh.h*sh.w*sh.cout)
		if conv3x3I8Wino(im, dst, src, sh.batch, sh.h, sh.w, sh.cin, sh.cout, m, nil, nil, true, nil) {
			t.Errorf("batch %d, %dx%d, %d -> %d: the Winograd convolution took a shape it cannot", sh.batch, sh.h, sh.w, sh.cin, sh.cout)
		}
		goOut, native := runI8(func() []float32 {
			d := make([]float32, len(dst))
			Conv3x3I8(d, src, sh.batch, sh.h, sh.w, sh.cin, sh.cout, m, nil, nil, true, nil)
			return d
		})
		sameI8(t, fmt.Sprintf("%dx%d, %d -> %d", sh.h, sh.w, sh.cin, sh.cout), goOut, native)
	}
}

// At the bounds of winoMaxCin: every input saturated at 255 and weights at
// +-127, so that the transformed values reach |B^T d B| = 1020 and |(2G) g
// (2G)^T| = 1143 in the same products and the sums M = 1,165,860 * cin and
// the outputs 4S (all nine taps on the image, the 4x4 images' inner
// pixels) come within 0.1% of 2^31; and random mixes of saturated, zero
// and extreme values. One more input channel and the Winograd convolution
// is not used.
func TestConv3x3I8WinoBounds(t *testing.T) {
	im := winoLevel(t)
	const cin, cout = winoMaxCin - 1, 16 // 1840, a multiple of 4: no padding
	if 4*9*255*127*int64(winoMaxCin) >= 1<<31 || 4*9*255*127*int64(winoMaxCin+1) < 1<<31 {
		t.Fatalf("winoMaxCin %d is not the bound", winoMaxCin)
	}
	rng := rand.New(rand.NewSource(10))
	wt := make([]float32, 9*cin*cout)
	for k := range wt {
		switch j := k % cout; {
		case j == 0:
			wt[k] = 1 // every weight 127
		case j == 1:
			wt[k] = -1 // -127
		case j == 2:
			wt[k] = float32(1 - 2*((k/cout/cin)%2)) // taps alternating
		default:
			wt[k] = float32(rng.Intn(3) - 1) // -127, 0 or 127
		}
	}
	for _, hw := range [][2]int{{2, 2}, {4, 4}} {
		h, w := hw[0], hw[1]
		full := make([]float32, h*w*cin)
		for i := range full {
			full[i] = 1000 // saturates at 255 with step 1
		}
		mixed := make([]float32, h*w*cin)
		for i := range mixed {
			mixed[i] = []float32{0, 255, 1000, float32(math.NaN())}[rng.Intn(4)] // NaN reads as 255
		}
		m := PackConv3x3I8(wt, cin, cout, 1)
		for _, in := range []struct {
			name string
			src  []float32
		}{{"saturated", full}, {"mixed", mixed}} {
			runWino(t, fmt.Sprintf("%dx%d %s", h, w, in.name), im, in.src, 1, h, w, cin, cout, m, nil, nil, false, nil)
		}
		// The portable kernel's sums at the bound, so that the test
		// cannot pass on sums that are both wrong: the top left output of
		// column 0, four taps of 255*127 each channel, and at 4x4 an
		// inner pixel's, nine.
		out := make([]float32, h*w*cout)
		withI8(i8Go, func() { Conv3x3I8(out, full, 1, h, w, cin, cout, m, nil, nil, false, nil) })
		taps, px := 4, 0
		if h == 4 {
			taps, px = 9, 5
		}
		if s := float32(taps*255*127*cin) * m.scale[0]; out[px*cout] != s || out[px*cout+1] != -s {
			t.Errorf("%dx%d: outputs %v, %v; want %v, %v", h, w, out[px*cout], out[px*cout+1], s, -s)
		}
	}
	wide := PackConv3x3I8(randI8Slice(rng, 9*(winoMaxCin+1)*8, 0.1, false), winoMaxCin+1, 8, 1)
	if wide.wino != nil || conv3x3I8Wino(im, make([]float32, 4*8), make([]float32, 4*(winoMaxCin+1)), 1, 2, 2, winoMaxCin+1, 8, wide, nil, nil, false, nil) {
		t.Errorf("%d input channels: Winograd weights packed or used past winoMaxCin", winoMaxCin+1)
	}
}
