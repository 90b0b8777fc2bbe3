//go:build ignore

// gen_wino_amd64.go is the part of gen_amd64.go (run with it: `go run
// gen_amd64.go gen_wino_amd64.go`) that writes the transforms of the AVX2
// int8 level's Winograd convolution (wino_amd64.go).
package main

import "fmt"

// genWinoInAVX2 writes winoInAVX2, the input transform of the Winograd
// F(2x2, 3x3) convolution (wino_amd64.go): for one 4x4 patch d of a padded
// image of 16-bit values in [0, 255] (pixels cw*2 bytes apart, rows ldp
// bytes), the 16 values B^T d B of each channel, 16 channels a step, each
// a sum of four values of d with signs (B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1
// 0; 0 1 0 -1]): in [-1020, 1020], exact in int16. Value xi = 4i+j is
// written cw*2*xi bytes past v.
func genWinoInAVX2() {
	p("// func winoInAVX2(v *int16, pad *uint16, cw, ldp int)")
	p("TEXT ·winoInAVX2(SB), NOSPLIT, $0-32")
	p("\tMOVQ v+0(FP), DI")
	p("\tMOVQ pad+8(FP), AX")
	p("\tMOVQ cw+16(FP), R8")
	p("\tMOVQ ldp+24(FP), R9")
	p("\tLEAQ (AX)(R9*1), BX")
	p("\tLEAQ (AX)(R9*2), CX")
	p("\tLEAQ (BX)(R9*2), DX")
	p("\tLEAQ (R8)(R8*1), R10") // a pixel, and the distance between values xi
	p("\tLEAQ (R10)(R10*2), R11")
	p("\tLEAQ (R10)(R10*4), R12")
	p("\tLEAQ (R11)(R10*4), R13")
	p("\tLEAQ (DI)(R10*8), SI")
	p("\tSHRQ $4, R8")
	rows := []string{"AX", "BX", "CX", "DX"}
	col := func(j int) string { return [...]string{"(%s)", "(%s)(R10*1)", "(%s)(R10*2)", "(%s)(R11*1)"}[j] }
	at := func(base string, x int) string { // value x (0..7) past base
		return fmt.Sprintf([...]string{"(%s)", "(%s)(R10*1)", "(%s)(R10*2)", "(%s)(R11*1)", "(%s)(R10*4)", "(%s)(R12*1)", "(%s)(R11*2)", "(%s)(R13*1)"}[x], base)
	}
	// Column j of d B from columns a and b of a row: a - b, or a + b.
	ca, cb, op := [4]int{0, 1, 2, 1}, [4]int{2, 2, 1, 3}, [4]string{"VPSUBW", "VPADDW", "VPSUBW", "VPSUBW"}
	p("winoInAVX2_loop:")
	for j := range 4 {
		for i, r := range rows {
			p("\tVMOVDQU %s, Y%d", fmt.Sprintf(col(ca[j]), r), i)
			p("\t%s %s, Y%d, Y%d", op[j], fmt.Sprintf(col(cb[j]), r), i, i)
		}
		// The rows of B^T (d B): t0 - t2, t1 + t2, t2 - t1, t1 - t3.
		p("\tVPSUBW Y2, Y0, Y4")
		p("\tVPADDW Y2, Y1, Y5")
		p("\tVPSUBW Y1, Y2, Y6")
		p("\tVPSUBW Y3, Y1, Y7")
		for i := 0; i < 4; i++ {
			x := 4*i + j
			base := "DI"
			if x >= 8 {
				base = "SI"
			}
			p("\tVMOVDQU Y%d, %s", 4+i, at(base, x%8))
		}
	}
	for _, r := range []string{"AX", "BX", "CX", "DX", "DI", "SI"} {
		p("\tADDQ $32, %s", r)
	}
	p("\tDECQ R8")
	p("\tJNZ winoInAVX2_loop")
	p("\tVZEROUPPER")
	p("\tRET")
	p("")
}

// genWinoOutAVX2 writes winoOutAVX2, the output transform of the Winograd
// convolution: from the 16 int32 sums M of one tile, 8 channels a step
// (m is [n/8][16][8]), the 2x2 outputs A^T M A (A^T = [1 1 1 0; 0 1 -1
// -1]), which are 4 times the direct convolution's sums S (the weights
// were transformed with 2G): shifted right by 2, exactly, then the int8
// kernels' epilogue, float32(S) * scale + (residual + bias), max(0, x) with
// flagRelu, with bias added where flags has 1 and residual where it has 8
// (the same additions in the same order as fillBias and the kernels make,
// so the same bits), into dst's 2x2 pixels (n floats apart in a row, rows
// ldd bytes apart; the residual's the same). The additions wrap modulo
// 2^32 like VPADDD's, so they give 4S exactly whenever |4S| < 2^31 (see
// winoMaxCin).
func genWinoOutAVX2() {
	p("// func winoOutAVX2(dst *float32, m *int32, n, ldd int, scale, bias, res *float32, flags int)")
	p("TEXT ·winoOutAVX2(SB), NOSPLIT, $0-64")
	p("\tMOVQ dst+0(FP), DI")
	p("\tMOVQ m+8(FP), SI")
	p("\tMOVQ n+16(FP), CX")
	p("\tMOVQ CX, BX")
	p("\tSHLQ $2, BX")
	p("\tSHRQ $3, CX")
	p("\tMOVQ ldd+24(FP), R13")
	p("\tMOVQ scale+32(FP), AX")
	p("\tMOVQ bias+40(FP), R8")
	p("\tMOVQ res+48(FP), R9")
	p("\tLEAQ (R9)(R13*1), R10")
	p("\tADDQ DI, R13")
	p("\tMOVQ flags+56(FP), DX")
	p("\tVPXOR Y15, Y15, Y15")
	p("winoOutAVX2_loop:")
	for i := 0; i < 4; i++ {
		// Row i of M A: m0 + m1 + m2 and m1 - m2 - m3.
		at := func(j int) int { return 32 * (4*i + j) }
		p("\tVMOVDQU %d(SI), Y%d", at(0), 2*i)
		p("\tVPADDD %d(SI), Y%d, Y%d", at(1), 2*i, 2*i)
		p("\tVPADDD %d(SI), Y%d, Y%d", at(2), 2*i, 2*i)
		p("\tVMOVDQU %d(SI), Y%d", at(1), 2*i+1)
		p("\tVPSUBD %d(SI), Y%d, Y%d", at(2), 2*i+1, 2*i+1)
		p("\tVPSUBD %d(SI), Y%d, Y%d", at(3), 2*i+1, 2*i+1)
	}
	// The rows of A^T (M A): Y8, Y9 the top two pixels, Y10, Y11 the bottom.
	for x := 0; x < 2; x++ {
		p("\tVPADDD Y%d, Y%d, Y%d", 2+x, x, 8+x)
		p("\tVPADDD Y%d, Y%d, Y%d", 4+x, 8+x, 8+x)
		p("\tVPSUBD Y%d, Y%d, Y%d", 4+x, 2+x, 10+x)
		p("\tVPSUBD Y%d, Y%d, Y%d", 6+x, 10+x, 10+x)
	}
	p("\tVMOVUPS (AX), Y14")
	for y := 8; y < 12; y++ {
		p("\tVPSRAD $2, Y%d, Y%d", y, y)
		p("\tVCVTDQ2PS Y%d, Y%d", y, y)
		p("\tVMULPS Y14, Y%d, Y%d", y, y)
	}
	res := []string{"(R9)", "(R9)(BX*1)", "(R10)", "(R10)(BX*1)"}
	p("\tTESTQ $8, DX")
	p("\tJZ winoOutAVX2_nores")
	for k, o := range res {
		p("\tVMOVUPS %s, Y%d", o, k)
	}
	p("\tTESTQ $1, DX")
	p("\tJZ winoOutAVX2_add")
	p("\tVMOVUPS (R8), Y4")
	for k := range res {
		p("\tVADDPS Y4, Y%d, Y%d", k, k) // residual + bias, as fillBias
	}
	p("\tJMP winoOutAVX2_add")
	p("winoOutAVX2_nores:")
	p("\tTESTQ $1, DX")
	p("\tJZ winoOutAVX2_added")
	p("\tVMOVUPS (R8), Y0")
	for k := 1; k < 4; k++ {
		p("\tVMOVAPS Y0, Y%d", k)
	}
	p("winoOutAVX2_add:")
	for k := range res {
		p("\tVADDPS Y%d, Y%d, Y%d", k, 8+k, 8+k) // the product first, as the kernels
	}
	p("winoOutAVX2_added:")
	p("\tTESTQ $2, DX")
	p("\tJZ winoOutAVX2_norelu")
	for y := 8; y < 12; y++ {
		p("\tVMAXPS Y%d, Y15, Y%d", y, y) // as the int8 kernels: NaN stays NaN
	}
	p("winoOutAVX2_norelu:")
	for k, o := range []string{"(DI)", "(DI)(BX*1)", "(R13)", "(R13)(BX*1)"} {
		p("\tVMOVUPS Y%d, %s", 8+k, o)
	}
	p("\tADDQ $512, SI")
	for _, r := range []string{"DI", "R13", "AX", "R8", "R9", "R10"} {
		p("\tADDQ $32, %s", r)
	}
	p("\tDECQ CX")
	p("\tJNZ winoOutAVX2_loop")
	p("\tVZEROUPPER")
	p("\tRET")
	p("")
}
