//go:build ignore

// gen_arm64.go writes kernel_arm64.s, the NEON micro-kernels in Go
// assembly. Run it with `go generate` on arm64 (or `go run gen_arm64.go`
// in this directory on any machine); the default build needs only the
// generated file.
//
// kernel8x8NEON computes one 8 x 8 float32 tile of C from 8 rows of A
// given as a table of pointers (so that convolutions read their rows
// straight out of a padded image) and a k x 8 block of B with stride ldb,
// as the amd64 kernels do. Its main loop takes k four at a time: one
// 128-bit load per row of A holds four consecutive values of that row, and
// each of the four steps multiplies two vectors of B (one row of the block)
// by one lane of it (FMLA by element). The sixteen accumulators V0-V15 are
// enough independent chains to keep four FMA pipes of latency four busy; A
// lives in V16-V23 and the four rows of B of a step group in V24-V31.
//
// kernel8x32BF16NEON is the same loop over pairs of bfloat16 (the layout of
// bf16.go: a row of A is pairs along k, B is rows of pairs interleaved
// column by column), with BFDOT by element in place of FMLA: one 128-bit
// load of A holds four pairs, one vector of B four columns' pairs. Its
// 8 x 32 tile is done as four 8 x 8 strips.
//
// kernel8x32I8NEON is the int8 kernel of int8.go with SDOT by element
// (FEAT_DotProd), its segments and float32 epilogue as genI8 describes.
//
// The Go assembler knows neither FMLA nor BFDOT nor SDOT by element nor
// FMAX, FMUL, FADD or SCVTF on vectors, so those are emitted as WORDs with
// the mnemonic in a comment.
// Every distinct WORD of kernel_arm64.s was checked against llvm-mc
// (-mattr=+bf16; e.g. fmla v0.4s, v1.4s, v2.s[0] is 4f821020, fmla v31.4s,
// v30.4s, v17.s[3] is 4fb11bdf, bfdot v0.4s, v1.8h, v2.2h[1] is 4f62f020,
// fmax v0.4s, v1.4s, v2.4s is 4e22f420), and `go tool objdump` decodes
// the FMLAs back to the same instructions; the 128 distinct WORDs of the
// int8 kernel were disassembled with llvm-mc -mattr=+dotprod and match
// their comments (e.g. sdot v31.4s, v30.16b, v17.4b[3] is 4fb1ebdf).
package main

import (
	"bytes"
	"fmt"
	"log"
	"os"
)

const (
	mr = 8 // rows of A and C per tile
	nv = 2 // vectors of four floats per row of C
)

// rowRegs hold the pointers to the rows of A, advanced along k.
var rowRegs = []string{"R8", "R9", "R10", "R11", "R12", "R13", "R14", "R15"}

var out bytes.Buffer

func p(format string, args ...any) { fmt.Fprintf(&out, format+"\n", args...) }

func acc(r, v int) int { return r*nv + v }

// fmlaElem returns FMLA Vd.4S, Vn.4S, Vm.S[lane] as a WORD:
// 0 1 0 01111 1 0 L M Rm 0001 H 0 Rn Rd with lane = H:L, Vm = M:Rm.
func fmlaElem(d, n, m, lane int) string {
	w := uint32(0x4f801000) | uint32(lane&1)<<21 | uint32(m>>4&1)<<20 | uint32(m&15)<<16 |
		uint32(lane>>1&1)<<11 | uint32(n)<<5 | uint32(d)
	return fmt.Sprintf("WORD $0x%08x // FMLA V%d.4S, V%d.4S, V%d.S[%d]", w, d, n, m, lane)
}

// fmax returns FMAX Vd.4S, Vn.4S, Vm.4S as a WORD (NaN in either source
// gives NaN, so max(x, 0) keeps a NaN x).
func fmax(d, n, m int) string {
	w := uint32(0x4e20f400) | uint32(m)<<16 | uint32(n)<<5 | uint32(d)
	return fmt.Sprintf("WORD $0x%08x // FMAX V%d.4S, V%d.4S, V%d.4S", w, d, n, m)
}

// bfdotElem returns BFDOT Vd.4S, Vn.8H, Vm.2H[lane] as a WORD (FEAT_BF16):
// 0 1 0 01111 0 1 L M Rm 1111 H 0 Rn Rd with lane = H:L, Vm = M:Rm. Lane i
// of Vd gains Vn[2i]*Vm[2 lane] + Vn[2i+1]*Vm[2 lane+1].
func bfdotElem(d, n, m, lane int) string {
	w := uint32(0x4f40f000) | uint32(lane&1)<<21 | uint32(m>>4&1)<<20 | uint32(m&15)<<16 |
		uint32(lane>>1&1)<<11 | uint32(n)<<5 | uint32(d)
	return fmt.Sprintf("WORD $0x%08x // BFDOT V%d.4S, V%d.8H, V%d.2H[%d]", w, d, n, m, lane)
}

// kernelSpec describes one micro-kernel: an 8 x (8*strips) tile computed
// one 8 x 8 strip after another, each strip the loop described at the top
// with mac as the multiply-add by element. A 128-bit load of a row of A
// holds four steps of k: four floats, or four pairs of bfloat16 (k then
// counts pairs, and a row of B is 8*strips columns of pairs); either way a
// step of a row of A and a column of a row of B take four bytes.
type kernelSpec struct {
	name   string
	args   string // the Go signature, for the comment
	strips int
	mac    func(d, n, m, lane int) string
}

var specs = []kernelSpec{
	{"kernel8x8NEON", "k int, rows **float32, b *float32, ldb int, c *float32, ldc int, flags int", 1, fmlaElem},
	{"kernel8x32BF16NEON", "k int, rows **uint16, b *uint16, ldb int, c *float32, ldc int, flags int", 4, bfdotElem},
}

func gen(s kernelSpec) {
	L := func(l string) string { return s.name + "_" + l }
	p("// func %s(%s)", s.name, s.args)
	p("TEXT ·%s(SB), NOSPLIT, $0-56", s.name)
	loadStrides("ldb+24(FP)", "ldc+40(FP)", "flags+48(FP)")
	if s.strips > 1 {
		p("\tMOVD $0, R19") // byte offset of the strip in B and C
		p("%s:", L("strip"))
	}
	loadRows("rows+8(FP)")
	p("\tMOVD b+16(FP), R1")
	p("\tMOVD c+32(FP), R3")
	if s.strips > 1 {
		p("\tADD R19, R1")
		p("\tADD R19, R3")
	}
	// With flagAcc the accumulators start from C; otherwise from zero.
	p("\tTBZ $0, R5, %s", L("zero"))
	p("\tMOVD R3, R6")
	for r := 0; r < mr; r++ {
		p("\tVLD1.P (R6)(R4), [V%d.S4, V%d.S4]", acc(r, 0), acc(r, 1))
	}
	p("\tB %s", L("start"))
	p("%s:", L("zero"))
	for i := 0; i < mr*nv; i++ {
		p("\tVEOR V%d.B16, V%d.B16, V%d.B16", i, i, i)
	}
	p("%s:", L("start"))
	kLoop(L, "k+0(FP)", "store", "S4", false, 4, s.mac)
	reluStore(L)
	if s.strips > 1 {
		stripEnd(L, s.strips)
	}
	p("\tRET")
	p("")
}

// loadStrides emits the loads of the arguments ldb and ldc, scaled from
// elements to bytes (R2, R4), and flags (R5) from their slots.
func loadStrides(ldb, ldc, flags string) {
	p("\tMOVD %s, R2", ldb)
	p("\tLSL $2, R2")
	p("\tMOVD %s, R4", ldc)
	p("\tLSL $2, R4")
	p("\tMOVD %s, R5", flags)
}

// loadRows emits the loads of the mr row pointers of A (rowRegs) from the
// table the argument slot rows points to.
func loadRows(rows string) {
	p("\tMOVD %s, R0", rows)
	for r := 0; r < mr; r += 2 {
		p("\tLDP %d(R0), (%s, %s)", 8*r, rowRegs[r], rowRegs[r+1])
	}
}

// kLoop emits the loop over count (an argument slot) steps of k, R6 the
// count: count/4 passes that load four steps of each row of A (a 128-bit
// load, arranged as arr, into V16+r) and, lane by lane, a row of B (into
// bRegs/2 pairs of registers from V24, in turn); then count%4 passes of
// one step. flip XORs each loaded step of A with V28. mac multiplies
// element lane of A's register by B into an accumulator. It falls through
// to the label done.
func kLoop(L func(string) string, count, done, arr string, flip bool, bPairs int, mac func(d, n, m, lane int) string) {
	loaded := func(r int) {
		if flip {
			p("\tVEOR V28.B16, V%d.B16, V%d.B16", 16+r, 16+r)
		}
	}
	p("\tMOVD %s, R6", count)
	p("\tLSR $2, R6, R7")
	p("\tCBZ R7, %s", L("tail"))
	p("%s:", L("loop4"))
	for r := 0; r < mr; r++ {
		p("\tVLD1.P 16(%s), [V%d.%s]", rowRegs[r], 16+r, arr)
		loaded(r)
	}
	for lane := 0; lane < 4; lane++ {
		b0 := 24 + 2*(lane%bPairs)
		p("\tVLD1.P (R1)(R2), [V%d.S4, V%d.S4]", b0, b0+1)
		for r := 0; r < mr; r++ {
			for v := 0; v < nv; v++ {
				p("\t%s", mac(acc(r, v), b0+v, 16+r, lane))
			}
		}
	}
	p("\tSUBS $1, R7, R7")
	p("\tBNE %s", L("loop4"))
	p("%s:", L("tail"))
	p("\tANDS $3, R6, R6")
	p("\tBEQ %s", L(done))
	p("%s:", L("loop1"))
	for r := 0; r < mr; r++ {
		p("\tFMOVS.P 4(%s), F%d", rowRegs[r], 16+r)
		loaded(r)
	}
	p("\tVLD1.P (R1)(R2), [V24.S4, V25.S4]")
	for r := 0; r < mr; r++ {
		for v := 0; v < nv; v++ {
			p("\t%s", mac(acc(r, v), 24+v, 16+r, 0))
		}
	}
	p("\tSUBS $1, R6, R6")
	p("\tBNE %s", L("loop1"))
	p("%s:", L(done))
}

// reluStore emits the end of a strip: max(0, x) of the accumulators when
// flags (R5) has flagRelu, then their store to C (R3, stride R4).
func reluStore(L func(string) string) {
	p("\tTBZ $1, R5, %s", L("norelu"))
	p("\tVEOR V16.B16, V16.B16, V16.B16")
	for i := 0; i < mr*nv; i++ {
		p("\t%s", fmax(i, i, 16))
	}
	p("%s:", L("norelu"))
	for r := 0; r < mr; r++ {
		p("\tVST1.P [V%d.S4, V%d.S4], (R3)(R4)", acc(r, 0), acc(r, 1))
	}
}

// stripEnd emits the step to the next of strips 8-column strips (R19 the
// byte offset of the strip) and the jump back to the label strip.
func stripEnd(L func(string) string, strips int) {
	p("\tADD $%d, R19", 32)
	p("\tCMP $%d, R19", 32*strips)
	p("\tBNE %s", L("strip"))
}

// sdotElem returns SDOT Vd.4S, Vn.16B, Vm.4B[lane] as a WORD (FEAT_DotProd):
// 0 1 0 01111 1 0 L M Rm 1110 H 0 Rn Rd with lane = H:L, Vm = M:Rm. Lane i
// of Vd gains the sum of the products of the signed bytes 4i..4i+3 of Vn
// and 4 lane..4 lane+3 of Vm.
func sdotElem(d, n, m, lane int) string {
	w := uint32(0x4f80e000) | uint32(lane&1)<<21 | uint32(m>>4&1)<<20 | uint32(m&15)<<16 |
		uint32(lane>>1&1)<<11 | uint32(n)<<5 | uint32(d)
	return fmt.Sprintf("WORD $0x%08x // SDOT V%d.4S, V%d.16B, V%d.4B[%d]", w, d, n, m, lane)
}

// scvtf returns SCVTF Vd.4S, Vn.4S (int32 to float32, rounding to nearest
// even as Go's conversion does) as a WORD.
func scvtf(d, n int) string {
	w := uint32(0x4e21d800) | uint32(n)<<5 | uint32(d)
	return fmt.Sprintf("WORD $0x%08x // SCVTF V%d.4S, V%d.4S", w, d, n)
}

// fmul returns FMUL Vd.4S, Vn.4S, Vm.4S as a WORD.
func fmul(d, n, m int) string {
	w := uint32(0x6e20dc00) | uint32(m)<<16 | uint32(n)<<5 | uint32(d)
	return fmt.Sprintf("WORD $0x%08x // FMUL V%d.4S, V%d.4S, V%d.4S", w, d, n, m)
}

// fadd returns FADD Vd.4S, Vn.4S, Vm.4S as a WORD.
func fadd(d, n, m int) string {
	w := uint32(0x4e20d400) | uint32(m)<<16 | uint32(n)<<5 | uint32(d)
	return fmt.Sprintf("WORD $0x%08x // FADD V%d.4S, V%d.4S, V%d.4S", w, d, n, m)
}

// genI8 writes kernel8x32I8NEON, the int8 micro-kernel of int8.go for
// FEAT_DotProd: over nseg segments of seg quads of k (skip bytes between a
// segment's end and the next one's start in every row of A), an 8 x 32
// tile of int32 sums of unsigned bytes of A times signed bytes of B, then
// C = float32(sum) * scale (+ C with flagAcc), max(0, x) with flagRelu.
// SDOT multiplies signed bytes only, so each byte u of A is read as u-128
// (its top bit flipped, EOR with V28) and the accumulators start from
// corr[j] = 128 * (the sum of column j of B), which puts the 128*w back:
// the int32 sums are those of the portable kernel exactly. As the other
// kernels, the tile is four 8 x 8 strips; a 128-bit load of a row of A
// holds four quads, one of B four columns' quads (B's rows of quads are
// ldb quads apart). B takes V24-V27 (two rows of B at a time), V28 holds
// the bytes 0x80.
func genI8() {
	name := "kernel8x32I8NEON"
	L := func(l string) string { return name + "_" + l }
	p("// func %s(seg, nseg, skip int, rows **uint8, b *int8, ldb int, c *float32, ldc int, scale *float32, corr *int32, flags int)", name)
	p("TEXT ·%s(SB), NOSPLIT, $0-88", name)
	loadStrides("ldb+40(FP)", "ldc+56(FP)", "flags+80(FP)")
	p("\tMOVD skip+16(FP), R21")
	p("\tVMOVI $0x80, V28.B16")
	p("\tMOVD $0, R19") // byte offset of the strip in B, C, scale and corr
	p("%s:", L("strip"))
	loadRows("rows+24(FP)")
	p("\tMOVD b+32(FP), R1")
	p("\tADD R19, R1")
	p("\tMOVD corr+72(FP), R23")
	p("\tADD R19, R23")
	for r := 0; r < mr; r++ {
		p("\tVLD1 (R23), [V%d.S4, V%d.S4]", acc(r, 0), acc(r, 1))
	}
	p("\tMOVD nseg+8(FP), R20")
	p("%s:", L("seg"))
	kLoop(L, "seg+0(FP)", "segend", "B16", true, 2, sdotElem)
	for r := 0; r < mr; r++ {
		p("\tADD R21, %s", rowRegs[r])
	}
	p("\tSUBS $1, R20, R20")
	p("\tBNE %s", L("seg"))
	// Epilogue: float32(sum) * scale, rounded, then + C, then max(0, x).
	p("\tMOVD scale+64(FP), R22")
	p("\tADD R19, R22")
	p("\tVLD1 (R22), [V24.S4, V25.S4]")
	for r := 0; r < mr; r++ {
		for v := 0; v < nv; v++ {
			p("\t%s", scvtf(acc(r, v), acc(r, v)))
			p("\t%s", fmul(acc(r, v), acc(r, v), 24+v))
		}
	}
	p("\tMOVD c+48(FP), R3")
	p("\tADD R19, R3")
	p("\tTBZ $0, R5, %s", L("noacc"))
	p("\tMOVD R3, R24")
	for r := 0; r < mr; r++ {
		p("\tVLD1.P (R24)(R4), [V26.S4, V27.S4]")
		for v := 0; v < nv; v++ {
			p("\t%s", fadd(acc(r, v), acc(r, v), 26+v))
		}
	}
	p("%s:", L("noacc"))
	reluStore(L)
	stripEnd(L, 4)
	p("\tRET")
	p("")
}

func main() {
	p("// Code generated by gen_arm64.go; DO NOT EDIT.")
	p("")
	p("//go:build arm64 && !purego")
	p("")
	p("#include \"textflag.h\"")
	p("")
	for _, s := range specs {
		gen(s)
	}
	genI8()
	if err := os.WriteFile("kernel_arm64.s", out.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
}
