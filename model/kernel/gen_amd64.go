//go:build ignore

// gen_amd64.go writes kernel_amd64.s, the SGEMM micro-kernels in Go
// assembly, with gen_wino_amd64.go and gen_winof32_amd64.go. Run them with
// `go generate` (or `go run gen_amd64.go gen_wino_amd64.go
// gen_winof32_amd64.go`) in this directory; the default
// build needs only the generated file.
//
// Each kernel computes one mr x (nv*vw) tile of C from mr rows of A given
// as a table of pointers (so that convolutions can read their rows straight
// out of a padded image) and a k x nr block of B with stride ldb.
package main

import (
	"bytes"
	"fmt"
	"log"
	"os"
)

// spec describes one micro-kernel.
type spec struct {
	name string
	mr   int    // rows of A and C per tile, at most 8
	nv   int    // vectors per row of C
	vw   int    // floats per vector: 16 for ZMM, 8 for YMM
	reg  string // "Z" or "Y"
	// bf16: A and B hold bfloat16 pairs along k (k counts pairs), each
	// step is VPBROADCASTD of a pair of A and VDPBF16PS (AVX512_BF16)
	// against 16 pairs of B per vector; C stays float32.
	bf16 bool
}

var specs = []spec{
	{name: "kernel8x32AVX512", mr: 8, nv: 2, vw: 16, reg: "Z"},
	{name: "kernel6x16AVX2", mr: 6, nv: 2, vw: 8, reg: "Y"},
	{name: "kernel8x32BF16", mr: 8, nv: 2, vw: 16, reg: "Z", bf16: true},
}

// rowRegs hold the pointers to the rows of A; AX is the byte offset along k.
var rowRegs = []string{"R8", "R9", "R10", "R11", "R12", "R13", "SI", "DI"}

var out bytes.Buffer

func p(format string, args ...any) { fmt.Fprintf(&out, format+"\n", args...) }

// cRow returns the operand addressing row r (r < 8) of C at byte offset
// disp from DI, with R8 = ldc, R9 = 3*ldc, R12 = 5*ldc and R13 = 7*ldc.
func cRow(r, disp int) string {
	d := ""
	if disp != 0 {
		d = fmt.Sprint(disp)
	}
	idx := []string{"", "(R8*1)", "(R8*2)", "(R9*1)", "(R8*4)", "(R12*1)", "(R9*2)", "(R13*1)"}[r]
	return d + "(DI)" + idx
}

// vdpbf16ps returns VDPBF16PS zmm(dst) += pairwise dot(zmm(src1), zmm(src2))
// as raw bytes: the Go assembler does not know the instruction. The
// encoding is EVEX.512.F3.0F38.W0 52 /r (reg = dst, vvvv = src1, rm =
// src2), checked against GNU as (vdpbf16ps %zmm16,%zmm18,%zmm0 is
// 62 b2 6e 40 52 c0).
func vdpbf16ps(src2, src1, dst int) string {
	inv := func(v, bit int) int { return ^(v >> bit) & 1 }
	b := []int{
		0x62,
		inv(dst, 3)<<7 | inv(src2, 4)<<6 | inv(src2, 3)<<5 | inv(dst, 4)<<4 | 0b10, // R X B R' 00 mm=0F38
		(^src1&0xf)<<3 | 1<<2 | 0b10, // W=0 vvvv 1 pp=F3
		0b10<<5 | inv(src1, 4)<<3,    // z=0 L'L=512 b=0 V' aaa=0
		0x52,
		0xc0 | (dst&7)<<3 | src2&7, // ModRM, register operands
	}
	return fmt.Sprintf("%s // VDPBF16PS Z%d, Z%d, Z%d", byteList(b), src2, src1, dst)
}

func gen(s spec) {
	if s.mr > len(rowRegs) {
		log.Fatalf("%s: at most %d rows", s.name, len(rowRegs))
	}
	nacc := s.mr * s.nv
	if s.reg == "Z" && nacc+s.nv+1 > 32 || s.reg == "Y" && nacc+s.nv+1 > 16 {
		log.Fatalf("%s: too many registers", s.name)
	}
	acc := func(r, v int) string { return fmt.Sprintf("%s%d", s.reg, r*s.nv+v) }
	breg := func(v int) string { return fmt.Sprintf("%s%d", s.reg, nacc+v) }
	tmp := fmt.Sprintf("%s%d", s.reg, nacc+s.nv)
	vb := s.vw * 4 // bytes per vector
	L := func(l string) string { return s.name + "_" + l }

	if s.bf16 {
		p("// func %s(k int, rows **uint16, b *uint16, ldb int, c *float32, ldc int, flags int)", s.name)
	} else {
		p("// func %s(k int, rows **float32, b *float32, ldb int, c *float32, ldc int, flags int)", s.name)
	}
	p("TEXT ·%s(SB), NOSPLIT, $0-56", s.name)
	p("\tMOVQ rows+8(FP), AX")
	for r := 0; r < s.mr; r++ {
		p("\tMOVQ %d(AX), %s", 8*r, rowRegs[r])
	}
	p("\tMOVQ b+16(FP), BX")
	p("\tMOVQ ldb+24(FP), DX")
	p("\tSHLQ $2, DX")
	// VXORPS on ZMM needs AVX512DQ; VPXORD needs only AVX512F.
	xor := "VXORPS"
	if s.reg == "Z" {
		xor = "VPXORD"
	}
	for i := 0; i < nacc; i++ {
		p("\t%s %s%d, %s%d, %s%d", xor, s.reg, i, s.reg, i, s.reg, i)
	}
	p("\tXORQ AX, AX")
	step := func(disp int) {
		for v := 0; v < s.nv; v++ {
			p("\tVMOVUPS %d(BX), %s", v*vb, breg(v))
		}
		for r := 0; r < s.mr; r++ {
			d := ""
			if disp != 0 {
				d = fmt.Sprint(disp)
			}
			if s.bf16 {
				p("\tVPBROADCASTD %s(%s)(AX*1), %s", d, rowRegs[r], tmp)
				for v := 0; v < s.nv; v++ {
					p("\t%s", vdpbf16ps(nacc+v, nacc+s.nv, r*s.nv+v))
				}
				continue
			}
			p("\tVBROADCASTSS %s(%s)(AX*1), %s", d, rowRegs[r], tmp)
			for v := 0; v < s.nv; v++ {
				p("\tVFMADD231PS %s, %s, %s", breg(v), tmp, acc(r, v))
			}
		}
		p("\tADDQ DX, BX")
	}
	kLoop(L, "k+0(FP)", "store", step)
	p("\tMOVQ c+32(FP), DI")
	p("\tMOVQ ldc+40(FP), R8")
	p("\tSHLQ $2, R8")
	p("\tLEAQ (R8)(R8*2), R9")
	p("\tLEAQ (R8)(R8*4), R12")
	p("\tLEAQ (R9)(R8*4), R13")
	p("\tMOVQ flags+48(FP), CX")
	p("\tTESTQ $1, CX")
	p("\tJZ %s", L("noacc"))
	for r := 0; r < s.mr; r++ {
		for v := 0; v < s.nv; v++ {
			p("\tVADDPS %s, %s, %s", cRow(r, v*vb), acc(r, v), acc(r, v))
		}
	}
	p("%s:", L("noacc"))
	p("\tTESTQ $2, CX")
	p("\tJZ %s", L("norelu"))
	p("\t%s %s, %s, %s", xor, tmp, tmp, tmp)
	for r := 0; r < s.mr; r++ {
		for v := 0; v < s.nv; v++ {
			// max(0, x) that keeps NaN: MAXPS returns its second
			// source (here x) when either is NaN.
			p("\tVMAXPS %s, %s, %s", acc(r, v), tmp, acc(r, v))
		}
	}
	p("%s:", L("norelu"))
	for r := 0; r < s.mr; r++ {
		for v := 0; v < s.nv; v++ {
			p("\tVMOVUPS %s, %s", acc(r, v), cRow(r, v*vb))
		}
	}
	p("\tVZEROUPPER")
	p("\tRET")
	p("")
}

// genCvtBF16 writes cvtBF16AVX512, which rounds n float32 (n a positive
// multiple of 16) to bfloat16 with VCVTNEPS2BF16 (nearest even; emitted as
// bytes, checked against GNU as: vcvtneps2bf16 %zmm0,%ymm1 is
// 62 f2 7e 48 72 c8).
// kLoop emits a loop of count (an argument slot) steps of 4 bytes of A,
// AX their offset: count/4 passes of four steps, then count%4 single
// steps, falling through to the label done. step emits one step, disp
// bytes past AX.
func kLoop(L func(string) string, count, done string, step func(disp int)) {
	p("\tMOVQ %s, CX", count)
	p("\tSHRQ $2, CX")
	p("\tJZ %s", L("tail"))
	p("%s:", L("loop4"))
	for u := 0; u < 4; u++ {
		step(4 * u)
	}
	p("\tADDQ $16, AX")
	p("\tDECQ CX")
	p("\tJNZ %s", L("loop4"))
	p("%s:", L("tail"))
	p("\tMOVQ %s, CX", count)
	p("\tANDQ $3, CX")
	p("\tJZ %s", L(done))
	p("%s:", L("loop1"))
	step(0)
	p("\tADDQ $4, AX")
	p("\tDECQ CX")
	p("\tJNZ %s", L("loop1"))
	p("%s:", L(done))
}

func genCvtBF16() {
	p("// func cvtBF16AVX512(dst *uint16, src *float32, n int)")
	p("TEXT ·cvtBF16AVX512(SB), NOSPLIT, $0-24")
	p("\tMOVQ dst+0(FP), DI")
	p("\tMOVQ src+8(FP), SI")
	p("\tMOVQ n+16(FP), CX")
	p("\tSHRQ $4, CX")
	p("cvtBF16AVX512_loop:")
	p("\tVMOVUPS (SI), Z0")
	p("\tBYTE $0x62; BYTE $0xf2; BYTE $0x7e; BYTE $0x48; BYTE $0x72; BYTE $0xc8 // VCVTNEPS2BF16 Z0, Y1")
	p("\tVMOVDQU Y1, (DI)")
	p("\tADDQ $64, SI")
	p("\tADDQ $32, DI")
	p("\tDECQ CX")
	p("\tJNZ cvtBF16AVX512_loop")
	p("\tVZEROUPPER")
	p("\tRET")
	p("")
}

func main() {
	p("// Code generated by gen_amd64.go; DO NOT EDIT.")
	p("")
	p("//go:build amd64 && !purego")
	p("")
	p("#include \"textflag.h\"")
	p("")
	for _, s := range specs {
		gen(s)
	}
	genCvtBF16()
	for _, s := range i8specs {
		genI8(s)
	}
	genQuantU8()
	genQuantU8AVX2()
	genQuantU16AVX2()
	genWinoInAVX2()
	genWinoOutAVX2()
	genWinoF32()
	genFMAPeak()
	if err := os.WriteFile("kernel_amd64.s", out.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
}

// The int8 kernels. Each computes an mr x (nv*vw) tile of C over k in
// quads: VPBROADCASTD of four unsigned bytes of a row of A, multiplied
// against nv vectors of vw quads of signed bytes of B with int32
// accumulation (the AVX2 convolution kernel reads both operands widened
// to 16 bits, in pairs: see mulAVX2). The rows of A are read in nseg segments of seg quads each,
// skip bytes apart (the three rows of taps of a 3x3 convolution, or one
// segment for a plain matrix); B is packed [k/4][ldb][4] and read
// linearly. The epilogue converts the sums to float32, multiplies them by
// scale (the product of the input and weight scales of each column), adds
// C with flagAcc (bias and residual put there before), applies max(0, x)
// with flagRelu and stores C as float32.
type i8spec struct {
	name string
	mr   int    // rows of the tile
	nv   int    // vectors per row
	reg  string // "Z" (16 int32 per vector) or "Y" (8)
	// mul is how a quad step is multiplied:
	//   "vnni512": VPDPBUSD on ZMM (AVX512_VNNI);
	//   "vnni256": VEX-encoded VPDPBUSD on YMM (AVX-VNNI), emitted as bytes;
	//   "avx2":    VPMADDWD + VPADDD on 16-bit operands (AVX2), see mulAVX2;
	//   "avx2b":   VPMADDUBSW + VPMADDWD + VPADDD on the bytes (AVX2), see
	//              mulAVX2Bytes.
	mul string
}

var i8specs = []i8spec{
	{name: "kernel8x32I8", mr: 8, nv: 2, reg: "Z", mul: "vnni512"},
	{name: "kernel6x16I8AVXVNNI", mr: 6, nv: 2, reg: "Y", mul: "vnni256"},
	{name: "kernel6x16I8AVX2", mr: 6, nv: 2, reg: "Y", mul: "avx2"},
	{name: "kernel4x16I8AVX2", mr: 4, nv: 2, reg: "Y", mul: "avx2b"},
}

// vpdpbusdVEX returns the AVX-VNNI VPDPBUSD ymm(dst) += sum of the
// products of the unsigned bytes of ymm(src1) and the signed bytes of
// ymm(src2) in each group of four, as raw bytes: the Go assembler knows
// only the EVEX (AVX512_VNNI) form. The encoding is VEX.256.66.0F38.W0
// 50 /r (reg = dst, vvvv = src1, rm = src2) with the three-byte VEX
// prefix, registers 0 to 15; checked against GNU as 2.40 ({vex} vpdpbusd
// %ymm13,%ymm14,%ymm11 is c4 42 0d 50 dd) and objdump -d of the
// generated object.
func vpdpbusdVEX(src2, src1, dst int) string {
	inv := func(v, bit int) int { return ^(v >> bit) & 1 }
	b := []int{
		0xc4,
		inv(dst, 3)<<7 | 1<<6 | inv(src2, 3)<<5 | 0b00010, // R X B m-mmmm=0F38
		(^src1&0xf)<<3 | 1<<2 | 0b01,                      // W=0 vvvv L=256 pp=66
		0x50,
		0xc0 | (dst&7)<<3 | src2&7, // ModRM, register operands
	}
	return fmt.Sprintf("%s // VPDPBUSD Y%d, Y%d, Y%d (AVX-VNNI)", byteList(b), src2, src1, dst)
}

// byteList writes b as Go assembler BYTE directives on one line.
func byteList(b []int) string {
	s := ""
	for i, x := range b {
		if i > 0 {
			s += "; "
		}
		s += fmt.Sprintf("BYTE $0x%02x", x)
	}
	return s
}

func genI8(s i8spec) {
	mr, nv, name := s.mr, s.nv, s.name
	vb, load := 64, "VMOVDQU32" // bytes per vector, the load of B
	if s.reg == "Y" {
		vb, load = 32, "VMOVDQU"
	}
	nacc := mr * nv
	R := func(i int) string { return fmt.Sprintf("%s%d", s.reg, i) }
	acc := func(r, v int) string { return R(r*nv + v) }
	breg := func(v int) string { return R(nacc + v) }
	tmp := R(nacc + nv)      // the broadcast quad of A (a pair for avx2)
	prod := R(nacc + nv + 1) // avx2: the products
	// avx2b: |a - 128|, the products, int16 ones and bytes 0x80.
	abs, prodB, ones, x80 := R(nacc+nv+1), R(nacc+nv+2), R(nacc+nv+3), R(nacc+nv+4)
	last := nacc + nv
	switch s.mul {
	case "avx2":
		last = nacc + nv + 1
	case "avx2b":
		last = nacc + nv + 4
	}
	if s.reg == "Y" && last > 15 || last > 31 {
		log.Fatalf("%s: too many registers", name)
	}
	L := func(l string) string { return name + "_" + l }
	// The 256-bit kernels take corr (the avx2b one starts from it), so
	// their flags are one slot further.
	flagsOff := 72
	if s.reg == "Y" {
		flagsOff = 80
		p("// func %s(seg, nseg, skip int, rows **uint8, b *int8, ldb int, c *float32, ldc int, scale *float32, corr *int32, flags int)", name)
		p("TEXT ·%s(SB), NOSPLIT, $0-88", name)
	} else {
		p("// func %s(seg, nseg, skip int, rows **uint8, b *int8, ldb int, c *float32, ldc int, scale *float32, flags int)", name)
		p("TEXT ·%s(SB), NOSPLIT, $0-80", name)
	}
	p("\tMOVQ rows+24(FP), AX")
	for r := 0; r < mr; r++ {
		p("\tMOVQ %d(AX), %s", 8*r, rowRegs[r])
	}
	p("\tMOVQ b+32(FP), BX")
	p("\tMOVQ ldb+40(FP), DX")
	p("\tSHLQ $2, DX")
	switch s.mul {
	case "vnni512":
		for i := 0; i < nacc; i++ {
			p("\tVPXORD Z%d, Z%d, Z%d", i, i, i)
		}
	case "vnni256", "avx2":
		for i := 0; i < nacc; i++ {
			p("\tVPXOR Y%d, Y%d, Y%d", i, i, i)
		}
	case "avx2b":
		// The sums start from corr = 128 * the column sums of B: see
		// mulAVX2Bytes.
		p("\tMOVQ corr+72(FP), AX")
		for v := 0; v < nv; v++ {
			p("\tVMOVDQU %d(AX), %s", v*vb, acc(0, v))
		}
		for r := 1; r < mr; r++ {
			for v := 0; v < nv; v++ {
				p("\tVMOVDQA %s, %s", acc(0, v), acc(r, v))
			}
		}
		p("\tVPCMPEQW %s, %s, %s", ones, ones, ones)
		p("\tVPSRLW $15, %s, %s", ones, ones)
		p("\tMOVL $0x80808080, AX")
		p("\tVMOVD AX, X%d", nacc+nv+4)
		p("\tVPBROADCASTD X%d, %s", nacc+nv+4, x80)
	}
	if s.mul == "avx2" {
		// A step is a pair of k (4 bytes of A), two a quad.
		p("\tSHLQ $1, seg+0(FP)") // the argument slot is this frame's to change
	}
	p("\tXORQ AX, AX")
	step := func(disp int) {
		for v := 0; v < nv; v++ {
			p("\t%s %d(BX), %s", load, v*vb, breg(v))
		}
		d := ""
		if disp != 0 {
			d = fmt.Sprint(disp)
		}
		for r := 0; r < mr; r++ {
			p("\tVPBROADCASTD %s(%s)(AX*1), %s", d, rowRegs[r], tmp)
			switch s.mul {
			case "vnni512":
				for v := 0; v < nv; v++ {
					// Go operand order: B (signed), A (unsigned), accumulator.
					p("\tVPDPBUSD %s, %s, %s", breg(v), tmp, acc(r, v))
				}
			case "vnni256":
				for v := 0; v < nv; v++ {
					p("\t%s", vpdpbusdVEX(nacc+v, nacc+nv, r*nv+v))
				}
			case "avx2":
				mulAVX2(tmp, prod, breg, func(v int) string { return acc(r, v) }, nv)
			case "avx2b":
				mulAVX2Bytes(tmp, abs, prodB, ones, x80, breg, func(v int) string { return acc(r, v) }, nv)
			}
		}
		p("\tADDQ DX, BX")
	}
	p("%s:", L("seg"))
	kLoop(L, "seg+0(FP)", "next", step)
	p("\tADDQ skip+16(FP), AX")
	p("\tDECQ nseg+8(FP)") // the argument slot is this frame's to change
	p("\tJNZ %s", L("seg"))
	p("\tMOVQ c+48(FP), DI")
	p("\tMOVQ ldc+56(FP), R8")
	p("\tSHLQ $2, R8")
	p("\tLEAQ (R8)(R8*2), R9")
	p("\tLEAQ (R8)(R8*4), R12")
	p("\tLEAQ (R9)(R8*4), R13")
	if s.mul == "avx2" {
		// flagI32 (4): C gets the int32 sums themselves, unscaled, each
		// vector of 8 columns 512 bytes past the one before (the
		// products of the Winograd convolution, laid out [8 columns][16
		// values][8], wino_amd64.go).
		p("\tMOVQ flags+%d(FP), CX", flagsOff)
		p("\tTESTQ $4, CX")
		p("\tJZ %s", L("float"))
		for r := 0; r < mr; r++ {
			for v := 0; v < nv; v++ {
				p("\tVMOVDQU %s, %s", acc(r, v), cRow(r, v*512))
			}
		}
		p("\tVZEROUPPER")
		p("\tRET")
		p("%s:", L("float"))
	}
	p("\tMOVQ scale+64(FP), AX")
	for v := 0; v < nv; v++ {
		p("\tVMOVUPS %d(AX), %s", v*vb, breg(v))
	}
	for r := 0; r < mr; r++ {
		for v := 0; v < nv; v++ {
			p("\tVCVTDQ2PS %s, %s", acc(r, v), acc(r, v))
			p("\tVMULPS %s, %s, %s", breg(v), acc(r, v), acc(r, v))
		}
	}
	p("\tMOVQ flags+%d(FP), CX", flagsOff)
	p("\tTESTQ $1, CX")
	p("\tJZ %s", L("noacc"))
	for r := 0; r < mr; r++ {
		for v := 0; v < nv; v++ {
			p("\tVADDPS %s, %s, %s", cRow(r, v*vb), acc(r, v), acc(r, v))
		}
	}
	p("%s:", L("noacc"))
	p("\tTESTQ $2, CX")
	p("\tJZ %s", L("norelu"))
	if s.reg == "Z" {
		p("\tVPXORD %s, %s, %s", tmp, tmp, tmp)
	} else {
		p("\tVPXOR %s, %s, %s", tmp, tmp, tmp)
	}
	for r := 0; r < mr; r++ {
		for v := 0; v < nv; v++ {
			p("\tVMAXPS %s, %s, %s", acc(r, v), tmp, acc(r, v))
		}
	}
	p("%s:", L("norelu"))
	for r := 0; r < mr; r++ {
		for v := 0; v < nv; v++ {
			p("\tVMOVUPS %s, %s", acc(r, v), cRow(r, v*vb))
		}
	}
	p("\tVZEROUPPER")
	p("\tRET")
	p("")
}

// mulAVX2 writes one step of one row without VNNI, over a pair of k:
// A and B are read as 16-bit values (A's bytes zero-extended, in [0, 255],
// by quantU16AVX2; B's sign-extended, in [-127, 127], by PackI8's data16),
// and VPMADDWD multiplies the pair of A against each column's pair of B
// and adds the two products into int32. A product is at most 255*127 in
// magnitude and a pair 64770, so nothing saturates or rounds: the int32
// sums (modulo 2^32) are VPDPBUSD's and the portable kernel's, for every
// input, with no correction term. Two instructions a vector of products
// against mulAVX2Bytes's four (and two a row), but twice the bytes of B:
// the kernel of the 3x3 convolutions, which are compute-bound.
func mulAVX2(a, prod string, breg, acc func(int) string, nv int) {
	for v := 0; v < nv; v++ {
		// Go operand order: the sources, the destination.
		p("\tVPMADDWD %s, %s, %s", breg(v), a, prod)
		p("\tVPADDD %s, %s, %s", prod, acc(v), acc(v))
	}
}

// mulAVX2Bytes writes one quad step of one row on the bytes themselves
// (the AVX2 kernel of the dense layers, whose few rows make them
// memory-bound: their weights stay one byte each). VPMADDUBSW multiplies
// unsigned by signed bytes and adds adjacent pairs into int16 with signed
// saturation: with A's bytes a in [0, 255] and B's b in [-127, 127] a pair
// reaches 2*255*127 = 64770 and would saturate. So the kernel multiplies
// a' = a - 128 (A xor 0x80, in [-128, 127]) instead: VPSIGNB moves the
// sign of a' onto b (b is never -128, so -b fits) and VPMADDUBSW
// multiplies |a'| (VPABSB: at most 128, read unsigned) by it, a pair being
// at most 2*128*127 = 32512 < 32767: never saturated. VPMADDWD by ones
// adds the pairs into int32, exactly. The sum of a'*b plus 128 times the
// sum of b (corr, where the accumulators start) is the sum of a*b, the
// same int32 (modulo 2^32) as VPDPBUSD's and the portable kernel's.
func mulAVX2Bytes(a, abs, prod, ones, x80 string, breg, acc func(int) string, nv int) {
	p("\tVPXOR %s, %s, %s", x80, a, a)
	p("\tVPABSB %s, %s", a, abs)
	for v := 0; v < nv; v++ {
		// Go operand order: the sign source, the value, the destination.
		p("\tVPSIGNB %s, %s, %s", a, breg(v), prod)
		// Go operand order: signed, unsigned, destination.
		p("\tVPMADDUBSW %s, %s, %s", prod, abs, prod)
		p("\tVPMADDWD %s, %s, %s", ones, prod, prod)
		p("\tVPADDD %s, %s, %s", prod, acc(v), acc(v))
	}
}

// genQuantU8 writes quantU8AVX512, which quantizes n float32 (n a positive
// multiple of 16) to unsigned bytes: round to nearest even of x*inv
// clamped to [0, 255] (NaN gives 255), the arithmetic of quantU8Go.
func genQuantU8() {
	p("// func quantU8AVX512(dst *uint8, src *float32, n int, inv float32)")
	p("TEXT ·quantU8AVX512(SB), NOSPLIT, $0-28")
	p("\tMOVQ dst+0(FP), DI")
	p("\tMOVQ src+8(FP), SI")
	p("\tMOVQ n+16(FP), CX")
	p("\tSHRQ $4, CX")
	p("\tVBROADCASTSS inv+24(FP), Z1")
	p("\tMOVL $0x437f0000, AX") // 255.0
	p("\tVPBROADCASTD AX, Z2")
	p("\tVPXORD Z3, Z3, Z3")
	p("quantU8AVX512_loop:")
	p("\tVMULPS (SI), Z1, Z0")
	// MINPS returns its second source (255) when either is NaN.
	p("\tVMINPS Z2, Z0, Z0")
	p("\tVMAXPS Z3, Z0, Z0")
	p("\tVCVTPS2DQ Z0, Z0") // rounds to nearest even (MXCSR default)
	p("\tVPMOVUSDB Z0, X4")
	p("\tVMOVDQU X4, (DI)")
	p("\tADDQ $64, SI")
	p("\tADDQ $16, DI")
	p("\tDECQ CX")
	p("\tJNZ quantU8AVX512_loop")
	p("\tVZEROUPPER")
	p("\tRET")
	p("")
}

// genQuantU8AVX2 writes quantU8AVX2, quantU8AVX512 for AVX2: 16 values a
// step, packed to bytes by VPACKUSDW and VPACKUSWB (the values are in [0,
// 255] by then, so neither saturates) with VPERMQ undoing the lane split.
func genQuantU8AVX2() {
	p("// func quantU8AVX2(dst *uint8, src *float32, n int, inv float32)")
	p("TEXT ·quantU8AVX2(SB), NOSPLIT, $0-28")
	p("\tMOVQ dst+0(FP), DI")
	p("\tMOVQ src+8(FP), SI")
	p("\tMOVQ n+16(FP), CX")
	p("\tSHRQ $4, CX")
	p("\tVBROADCASTSS inv+24(FP), Y1")
	p("\tMOVL $0x437f0000, AX") // 255.0
	p("\tVMOVD AX, X2")
	p("\tVPBROADCASTD X2, Y2")
	p("\tVXORPS Y3, Y3, Y3")
	p("quantU8AVX2_loop:")
	p("\tVMULPS (SI), Y1, Y0")
	p("\tVMULPS 32(SI), Y1, Y4")
	// MINPS returns its second source (255) when either is NaN.
	p("\tVMINPS Y2, Y0, Y0")
	p("\tVMINPS Y2, Y4, Y4")
	p("\tVMAXPS Y3, Y0, Y0")
	p("\tVMAXPS Y3, Y4, Y4")
	p("\tVCVTPS2DQ Y0, Y0") // rounds to nearest even (MXCSR default)
	p("\tVCVTPS2DQ Y4, Y4")
	// Words 0-3 8-11 | 4-7 12-15, then in order.
	p("\tVPACKUSDW Y4, Y0, Y0")
	p("\tVPERMQ $0xd8, Y0, Y0")
	p("\tVEXTRACTI128 $1, Y0, X4")
	p("\tVPACKUSWB X4, X0, X0")
	p("\tVMOVDQU X0, (DI)")
	p("\tADDQ $64, SI")
	p("\tADDQ $16, DI")
	p("\tDECQ CX")
	p("\tJNZ quantU8AVX2_loop")
	p("\tVZEROUPPER")
	p("\tRET")
	p("")
}

// genFMAPeak writes fmaPeakAVX2, the ceiling the float32 AVX2 kernel is
// measured against (BenchmarkFMAPeak): n passes of 12 independent
// VFMADD231PS on YMM, enough chains to cover the latency of two FMA
// pipes (4 cycles each), with nothing else in the loop but its counter.
func genFMAPeak() {
	p("// func fmaPeakAVX2(n int)")
	p("TEXT ·fmaPeakAVX2(SB), NOSPLIT, $0-8")
	p("\tMOVQ n+0(FP), CX")
	for i := 0; i < 14; i++ {
		p("\tVXORPS Y%d, Y%d, Y%d", i, i, i)
	}
	p("fmaPeakAVX2_loop:")
	for i := 0; i < 12; i++ {
		p("\tVFMADD231PS Y12, Y13, Y%d", i)
	}
	p("\tDECQ CX")
	p("\tJNZ fmaPeakAVX2_loop")
	p("\tVZEROUPPER")
	p("\tRET")
	p("")
}

// genQuantU16AVX2 writes quantU16AVX2, quantU8AVX2 into 16-bit values
// (the operands of the AVX2 int8 kernel): the same rounding and clamping,
// packed by VPACKUSDW (the values are in [0, 255], so it cannot
// saturate) with VPERMQ undoing the lane split.
func genQuantU16AVX2() {
	p("// func quantU16AVX2(dst *uint16, src *float32, n int, inv float32)")
	p("TEXT ·quantU16AVX2(SB), NOSPLIT, $0-28")
	p("\tMOVQ dst+0(FP), DI")
	p("\tMOVQ src+8(FP), SI")
	p("\tMOVQ n+16(FP), CX")
	p("\tSHRQ $4, CX")
	p("\tVBROADCASTSS inv+24(FP), Y1")
	p("\tMOVL $0x437f0000, AX") // 255.0
	p("\tVMOVD AX, X2")
	p("\tVPBROADCASTD X2, Y2")
	p("\tVXORPS Y3, Y3, Y3")
	p("quantU16AVX2_loop:")
	p("\tVMULPS (SI), Y1, Y0")
	p("\tVMULPS 32(SI), Y1, Y4")
	// MINPS returns its second source (255) when either is NaN.
	p("\tVMINPS Y2, Y0, Y0")
	p("\tVMINPS Y2, Y4, Y4")
	p("\tVMAXPS Y3, Y0, Y0")
	p("\tVMAXPS Y3, Y4, Y4")
	p("\tVCVTPS2DQ Y0, Y0") // rounds to nearest even (MXCSR default)
	p("\tVCVTPS2DQ Y4, Y4")
	// Words 0-3 8-11 | 4-7 12-15, then in order.
	p("\tVPACKUSDW Y4, Y0, Y0")
	p("\tVPERMQ $0xd8, Y0, Y0")
	p("\tVMOVDQU Y0, (DI)")
	p("\tADDQ $64, SI")
	p("\tADDQ $32, DI")
	p("\tDECQ CX")
	p("\tJNZ quantU16AVX2_loop")
	p("\tVZEROUPPER")
	p("\tRET")
	p("")
}
