//go:build ignore

// gen_winof32_amd64.go is the part of gen_amd64.go (run with it: `go run
// gen_amd64.go gen_wino_amd64.go gen_winof32_amd64.go`) that writes the
// transforms of the float32 Winograd F(4x4, 3x3) convolution (conv.go), in
// AVX-512 (ZMM, 16 channels a step) and AVX2 with FMA (YMM, 8 channels),
// the same instructions on vectors of either width: they use registers 0
// to 15 only. Their arithmetic is that of winoB and winoA in conv.go, with
// the multiplications by 2, 4, 5 and 8 fused into the additions.
package main

import "fmt"

// winoF32Spec is one width of the transforms.
type winoF32Spec struct {
	suffix string // of the function names
	reg    string // "Z" or "Y"
	vb     int    // bytes per vector
	xor    string // zeroes a register
}

var winoF32Specs = []winoF32Spec{
	{suffix: "AVX512", reg: "Z", vb: 64, xor: "VPXORD"},
	{suffix: "AVX2", reg: "Y", vb: 32, xor: "VXORPS"},
}

// broadcastConst sets register r of s to the float32 with bits bits in
// every lane, through AX and X15... (X15 is free at that point).
func broadcastConst(s winoF32Spec, r int, bits uint32) {
	p("\tMOVL $0x%08x, AX", bits)
	p("\tVMOVD AX, X%d", r)
	p("\tVBROADCASTSS X%d, %s%d", r, s.reg, r)
}

// Registers of the constants.
const (
	rTwo  = 13
	rFour = 14
	rFive = 15 // the input transform's; the output transform's 8
)

// genWinoF32In writes winoF32In<suffix>(v, d *float32, c, ldp, edges
// int): for the 6x6 patch of an image whose pixel (1, 1) is at d (pixels
// c floats apart, rows ldp floats), the 36 values V = B^T d B of each of
// its c channels (a multiple of the vector), value xi = 6i+j at v[xi*c:].
// The patch's rows 0 and 5 and columns 0 and 5 lie outside the image
// where edges has winoTop, winoBottom, winoLeft and winoRight: they are
// the image's zero padding, never read. Pass 1 writes d B row by row into
// v, pass 2 B^T of that column by column, in place, one vector of
// channels at a time.
func genWinoF32In(s winoF32Spec) {
	name := "winoF32In" + s.suffix
	L := func(l string) string { return name + "_" + l }
	r := func(i int) string { return fmt.Sprintf("%s%d", s.reg, i) }
	p("// func %s(v, d *float32, c, ldp, edges int)", name)
	p("TEXT ·%s(SB), NOSPLIT, $0-40", name)
	broadcastConst(s, rTwo, 0x40000000)
	broadcastConst(s, rFour, 0x40800000)
	broadcastConst(s, rFive, 0x40a00000)
	p("\tMOVQ v+0(FP), DI")
	p("\tMOVQ d+8(FP), AX")
	p("\tMOVQ c+16(FP), CX")
	p("\tMOVQ CX, R13")
	p("\tSHRQ $%d, R13", map[int]int{64: 4, 32: 3}[s.vb]) // vectors of channels
	p("\tSHLQ $2, CX")                                    // cb: bytes between pixels, and between values xi
	p("\tMOVQ ldp+24(FP), R9")
	p("\tSHLQ $2, R9")
	p("\tMOVQ edges+32(FP), R14")
	// AX: the patch's pixel (0, 0), outside the image where edges say so
	// (then never read).
	p("\tSUBQ R9, AX")
	p("\tSUBQ CX, AX")
	p("\tLEAQ (CX)(CX*2), DX")   // 3cb
	p("\tLEAQ (CX)(CX*4), BX")   // 5cb
	p("\tLEAQ (DX)(DX*1), SI")   // 6cb: a row of v
	p("\tLEAQ (SI)(SI*2), R11")  // 18cb
	p("\tLEAQ (R11)(SI*2), R12") // 30cb
	col := []string{"", "(CX*1)", "(CX*2)", "(DX*1)", "(CX*4)", "(BX*1)"}
	row := []string{"", "(SI*1)", "(SI*2)", "(R11*1)", "(SI*4)", "(R12*1)"}
	p("%s:", L("loop"))
	// transform computes B^T of registers 0-5 into t0..t5 =
	// registers 6, 7, 8, 3, 4, 5 (9 and 10 are temporaries) and returns
	// the registers of t.
	transform := func() [6]int {
		p("\tVADDPS %s, %s, %s", r(4), r(3), r(7))           // t1 = d3 + d4
		p("\tVADDPS %s, %s, %s", r(2), r(1), r(9))           // d1 + d2
		p("\tVFNMADD231PS %s, %s, %s", r(9), r(rFour), r(7)) // t1 -= 4 (d1 + d2)
		p("\tVSUBPS %s, %s, %s", r(3), r(4), r(8))           // t2 = d4 - d3
		p("\tVSUBPS %s, %s, %s", r(2), r(1), r(10))          // d1 - d2
		p("\tVFMADD231PS %s, %s, %s", r(10), r(rFour), r(8)) // t2 += 4 (d1 - d2)
		p("\tVMOVAPS %s, %s", r(4), r(6))
		p("\tVFMADD231PS %s, %s, %s", r(0), r(rFour), r(6))  // t0 = d4 + 4 d0
		p("\tVFNMADD231PS %s, %s, %s", r(2), r(rFive), r(6)) // t0 -= 5 d2
		p("\tVFMADD231PS %s, %s, %s", r(1), r(rFour), r(5))  // t5 = d5 + 4 d1
		p("\tVFNMADD231PS %s, %s, %s", r(3), r(rFive), r(5)) // t5 -= 5 d3
		p("\tVSUBPS %s, %s, %s", r(2), r(4), r(9))           // e = d4 - d2
		p("\tVSUBPS %s, %s, %s", r(1), r(3), r(10))          // f = d3 - d1
		p("\tVMOVAPS %s, %s", r(9), r(3))
		p("\tVFMADD231PS %s, %s, %s", r(10), r(rTwo), r(3)) // t3 = e + 2f
		p("\tVMOVAPS %s, %s", r(9), r(4))
		p("\tVFNMADD231PS %s, %s, %s", r(10), r(rTwo), r(4)) // t4 = e - 2f
		return [6]int{6, 7, 8, 3, 4, 5}
	}
	// load reads column j of the row at R8 into register j, or zero where
	// edges&bit says the column is padding.
	load := func(l string, j, bit int) {
		if bit == 0 {
			p("\tVMOVUPS (R8)%s, %s", col[j], r(j))
			return
		}
		p("\tTESTQ $%d, R14", bit)
		p("\tJNZ %s", L(l+"pad"))
		p("\tVMOVUPS (R8)%s, %s", col[j], r(j))
		p("\tJMP %s", L(l+"done"))
		p("%s:", L(l+"pad"))
		p("\t%s %s, %s, %s", s.xor, r(j), r(j), r(j))
		p("%s:", L(l+"done"))
	}
	// Pass 1: row i of the patch from R8 = AX + i ldp into R10 = v + 6i cb.
	p("\tMOVQ AX, R8")
	p("\tMOVQ DI, R10")
	for i := 0; i < 6; i++ {
		rowBit := map[int]int{0: 1, 5: 2}[i] // winoTop, winoBottom
		if rowBit != 0 {
			p("\tTESTQ $%d, R14", rowBit)
			p("\tJNZ %s", L(fmt.Sprintf("row%dpad", i)))
		}
		for j := 0; j < 6; j++ {
			load(fmt.Sprintf("r%dc%d", i, j), j, map[int]int{0: 4, 5: 8}[j]) // winoLeft, winoRight
		}
		t := transform()
		for j := 0; j < 6; j++ {
			p("\tVMOVUPS %s, (R10)%s", r(t[j]), col[j])
		}
		if rowBit != 0 {
			// A row of padding: d B is zero.
			p("\tJMP %s", L(fmt.Sprintf("row%ddone", i)))
			p("%s:", L(fmt.Sprintf("row%dpad", i)))
			p("\t%s %s, %s, %s", s.xor, r(0), r(0), r(0))
			for j := 0; j < 6; j++ {
				p("\tVMOVUPS %s, (R10)%s", r(0), col[j])
			}
			p("%s:", L(fmt.Sprintf("row%ddone", i)))
		}
		if i < 5 {
			p("\tADDQ R9, R8")
			p("\tADDQ SI, R10")
		}
	}
	// Pass 2: column j of v at R8 = v + j cb, rows 6cb apart.
	p("\tMOVQ DI, R8")
	for j := 0; j < 6; j++ {
		for i := 0; i < 6; i++ {
			p("\tVMOVUPS (R8)%s, %s", row[i], r(i))
		}
		t := transform()
		for i := 0; i < 6; i++ {
			p("\tVMOVUPS %s, (R8)%s", r(t[i]), row[i])
		}
		if j < 5 {
			p("\tADDQ CX, R8")
		}
	}
	p("\tADDQ $%d, AX", s.vb)
	p("\tADDQ $%d, DI", s.vb)
	p("\tDECQ R13")
	p("\tJNZ %s", L("loop"))
	p("\tVZEROUPPER")
	p("\tRET")
	p("")
}

// genWinoF32Out writes winoF32Out<suffix>(dst, m *float32, c, ldd int,
// bias, res *float32, flags int): from the 36 products M of one tile (value
// xi = 6i+j at m[xi*c:], c channels, a multiple of the vector), the 4x4
// outputs A^T M A, plus bias (flags&1) and the residual res (flags&8), in
// that order, then max(0, x) that keeps NaN (flagRelu, 2), into dst, the
// tile's top left pixel (pixels c floats apart, rows ldd floats; res the
// same). Pass 1 writes A^T M column by column into rows 0-3 of m, in
// place; pass 2 turns each of those rows into a row of outputs.
func genWinoF32Out(s winoF32Spec) {
	name := "winoF32Out" + s.suffix
	L := func(l string) string { return name + "_" + l }
	r := func(i int) string { return fmt.Sprintf("%s%d", s.reg, i) }
	const rEight, rZero, rBias = 15, 12, 11
	p("// func %s(dst, m *float32, c, ldd int, bias, res *float32, flags int)", name)
	p("TEXT ·%s(SB), NOSPLIT, $0-56", name)
	broadcastConst(s, rTwo, 0x40000000)
	broadcastConst(s, rFour, 0x40800000)
	broadcastConst(s, rEight, 0x41000000)
	p("\t%s %s, %s, %s", s.xor, r(rZero), r(rZero), r(rZero))
	p("\tMOVQ dst+0(FP), DI")
	p("\tMOVQ m+8(FP), AX")
	p("\tMOVQ c+16(FP), CX")
	p("\tMOVQ CX, R15")
	p("\tSHRQ $%d, R15", map[int]int{64: 4, 32: 3}[s.vb])
	p("\tSHLQ $2, CX")
	p("\tMOVQ ldd+24(FP), R10")
	p("\tSHLQ $2, R10")
	p("\tMOVQ bias+32(FP), R9")
	p("\tMOVQ res+40(FP), R8")
	p("\tLEAQ (CX)(CX*2), DX")  // 3cb
	p("\tLEAQ (CX)(CX*4), BX")  // 5cb
	p("\tLEAQ (DX)(DX*1), SI")  // 6cb
	p("\tLEAQ (SI)(SI*2), R11") // 18cb
	col := []string{"", "(CX*1)", "(CX*2)", "(DX*1)", "(CX*4)", "(BX*1)"}
	// transform computes A^T of registers 0-5 into o0..o3 = registers 0,
	// 8, 6, 1 (6-8 temporaries) and returns them.
	transform := func() [4]int {
		p("\tVADDPS %s, %s, %s", r(2), r(1), r(6)) // a = m1 + m2
		p("\tVSUBPS %s, %s, %s", r(2), r(1), r(1)) // b = m1 - m2
		p("\tVADDPS %s, %s, %s", r(4), r(3), r(7)) // c = m3 + m4
		p("\tVSUBPS %s, %s, %s", r(4), r(3), r(3)) // d = m3 - m4
		p("\tVADDPS %s, %s, %s", r(6), r(0), r(0)) // o0 = m0 + a
		p("\tVADDPS %s, %s, %s", r(7), r(0), r(0)) // o0 += c
		p("\tVMOVAPS %s, %s", r(1), r(8))
		p("\tVFMADD231PS %s, %s, %s", r(3), r(rTwo), r(8))   // o1 = b + 2d
		p("\tVFMADD231PS %s, %s, %s", r(7), r(rFour), r(6))  // o2 = a + 4c
		p("\tVFMADD231PS %s, %s, %s", r(3), r(rEight), r(1)) // o3 = b + 8d
		p("\tVADDPS %s, %s, %s", r(5), r(1), r(1))           // o3 += m5
		return [4]int{0, 8, 6, 1}
	}
	p("%s:", L("loop"))
	// Pass 1: column j of M at R12 = m + j cb, rows 6cb apart; row 5 is
	// 30cb = 18cb + 12cb past it.
	p("\tMOVQ AX, R12")
	for j := 0; j < 6; j++ {
		for i, a := range []string{"(R12)", "(R12)(SI*1)", "(R12)(SI*2)", "(R12)(R11*1)", "(R12)(SI*4)"} {
			p("\tVMOVUPS %s, %s", a, r(i))
		}
		p("\tLEAQ (R12)(R11*1), R13")
		p("\tVMOVUPS (R13)(SI*2), %s", r(5))
		o := transform()
		for i, a := range []string{"(R12)", "(R12)(SI*1)", "(R12)(SI*2)", "(R12)(R11*1)"} {
			p("\tVMOVUPS %s, %s", r(o[i]), a)
		}
		if j < 5 {
			p("\tADDQ CX, R12")
		}
	}
	// Pass 2: row i of A^T M at R12 = m + 6i cb gives row i of the
	// outputs at R13 = dst + i ldd (the residual's at R14 = res + i ldd).
	p("\tTESTQ $1, flags+48(FP)")
	p("\tJZ %s", L("nobias"))
	p("\tVMOVUPS (R9), %s", r(rBias))
	p("%s:", L("nobias"))
	p("\tMOVQ AX, R12")
	p("\tMOVQ DI, R13")
	p("\tMOVQ R8, R14")
	for i := 0; i < 4; i++ {
		for j := 0; j < 6; j++ {
			p("\tVMOVUPS (R12)%s, %s", col[j], r(j))
		}
		o := transform()
		l := fmt.Sprintf("row%d", i)
		p("\tTESTQ $1, flags+48(FP)")
		p("\tJZ %s", L(l+"nobias"))
		for _, x := range o {
			p("\tVADDPS %s, %s, %s", r(rBias), r(x), r(x))
		}
		p("%s:", L(l+"nobias"))
		p("\tTESTQ $8, flags+48(FP)")
		p("\tJZ %s", L(l+"nores"))
		for j, x := range o {
			p("\tVADDPS (R14)%s, %s, %s", col[j], r(x), r(x))
		}
		p("%s:", L(l+"nores"))
		p("\tTESTQ $2, flags+48(FP)")
		p("\tJZ %s", L(l+"norelu"))
		for _, x := range o {
			// max(0, x) that keeps NaN: MAXPS returns its second
			// source (here x) when either is NaN.
			p("\tVMAXPS %s, %s, %s", r(x), r(rZero), r(x))
		}
		p("%s:", L(l+"norelu"))
		for j, x := range o {
			p("\tVMOVUPS %s, (R13)%s", r(x), col[j])
		}
		if i < 3 {
			p("\tADDQ SI, R12")
			p("\tADDQ R10, R13")
			p("\tADDQ R10, R14")
		}
	}
	p("\tADDQ $%d, AX", s.vb)
	p("\tADDQ $%d, DI", s.vb)
	p("\tADDQ $%d, R8", s.vb)
	p("\tADDQ $%d, R9", s.vb)
	p("\tDECQ R15")
	p("\tJNZ %s", L("loop"))
	p("\tVZEROUPPER")
	p("\tRET")
	p("")
}

func genWinoF32() {
	for _, s := range winoF32Specs {
		genWinoF32In(s)
		genWinoF32Out(s)
	}
}
