package main

/*
struct coor { int x, y; };
struct CBmove {
	int jumps, newpiece, oldpiece;
	struct coor from, to;
	struct coor path[12];
	struct coor del[12];
	int delpiece[12];
};
*/
import "C"

import (
	"fmt"
	"sync/atomic"
	"unsafe"

	"dama/cbengine"
	"dama/checkerboard"
	"dama/internal/buildinfo"
)

// The Go types have the memory layout of the C ones: these arrays have a
// negative length, which does not compile, where a size differs.
var (
	_ [unsafe.Sizeof(checkerboard.Move{}) - uintptr(C.sizeof_struct_CBmove)]byte
	_ [uintptr(C.sizeof_struct_CBmove) - unsafe.Sizeof(checkerboard.Move{})]byte
	_ [unsafe.Sizeof(C.int(0)) - unsafe.Sizeof(int32(0))]byte
	_ [unsafe.Sizeof(int32(0)) - unsafe.Sizeof(C.int(0))]byte
)

// eng is the engine every call goes to.
var eng = func() *cbengine.Engine {
	e := cbengine.New()
	e.Version = buildinfo.Version()
	e.Preload()
	return e
}()

// putString writes s into the C buffer buf of size bytes, cut to fit, with
// its terminating NUL; a nil buf is left alone.
func putString(buf *C.char, size int, s string) {
	if buf == nil || size <= 0 {
		return
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(buf)), size)
	n := copy(b[:size-1], s)
	b[n] = 0
}

// recovered turns a panic of the engine into a line in buf (a crash would
// take CheckerBoard down with it).
func recovered(buf *C.char, size int) bool {
	r := recover()
	if r == nil {
		return false
	}
	putString(buf, size, fmt.Sprintf("dama: internal error: %v", r))
	return true
}

//export getmove
func getmove(board *C.int, color C.int, maxtime C.double, str *C.char, playnow *C.int, info C.int, moreinfo C.int, move *C.struct_CBmove) (result C.int) {
	defer func() {
		if recovered(str, checkerboard.MaxReply) {
			result = checkerboard.ResultUnknown
		}
	}()
	var now func() bool
	if playnow != nil {
		p := (*int32)(unsafe.Pointer(playnow))
		now = func() bool { return atomic.LoadInt32(p) != 0 }
	}
	status := func(s string) { putString(str, checkerboard.MaxReply, s) }
	var mv checkerboard.Move
	r := eng.GetMove((*checkerboard.Board)(unsafe.Pointer(board)), int(color), float64(maxtime), int(info), int(moreinfo), now, status, &mv)
	if move != nil {
		*(*checkerboard.Move)(unsafe.Pointer(move)) = mv
	}
	return C.int(r)
}

//export enginecommand
func enginecommand(command *C.char, reply *C.char) (understood C.int) {
	defer func() {
		if recovered(reply, checkerboard.MaxReply) {
			understood = 0
		}
	}()
	if command == nil {
		putString(reply, checkerboard.MaxReply, "?")
		return 0
	}
	r, ok := eng.Command(C.GoString(command))
	putString(reply, checkerboard.MaxReply, r)
	if ok {
		return 1
	}
	return 0
}

//export islegal
func islegal(board *C.int, color C.int, from C.int, to C.int, move *C.struct_CBmove) (legal C.int) {
	defer func() {
		if recover() != nil {
			legal = 0
		}
	}()
	var mv checkerboard.Move
	ok := eng.IsLegal((*checkerboard.Board)(unsafe.Pointer(board)), int(color), int(from), int(to), &mv)
	if move != nil {
		*(*checkerboard.Move)(unsafe.Pointer(move)) = mv
	}
	if ok {
		return 1
	}
	return 0
}
