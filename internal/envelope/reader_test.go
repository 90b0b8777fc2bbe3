package envelope

import (
	"errors"
	"fmt"
	"testing"
)

func TestReader(t *testing.T) {
	r := &Reader{Buf: []byte{1, 2, 0, 3, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0x96, 0x01, 9}}
	if got := r.U8("a"); got != 1 {
		t.Errorf("U8 = %d, want 1", got)
	}
	if got := r.U16("b"); got != 2 {
		t.Errorf("U16 = %d, want 2", got)
	}
	if got := r.U32("c"); got != 3 {
		t.Errorf("U32 = %d, want 3", got)
	}
	if got := r.U64("d"); got != 4 {
		t.Errorf("U64 = %d, want 4", got)
	}
	if got := r.Uvarint("e", 150); got != 150 {
		t.Errorf("Uvarint = %d, want 150", got)
	}
	if r.Err != nil || r.Left() != 1 {
		t.Fatalf("after the fields: err %v, %d left, want nil and 1", r.Err, r.Left())
	}
	if got := r.U32("f"); got != 0 || r.Err == nil || r.Err.Error() != "f needs 4 bytes, 1 left" {
		t.Errorf("U32 past the end = %d, %v; want 0 and \"f needs 4 bytes, 1 left\"", got, r.Err)
	}
	first := r.Err
	if got := r.U8("g"); got != 0 || r.Err != first {
		t.Errorf("U8 after an error = %d, %v; want 0 and the first error", got, r.Err)
	}
}

func TestReaderErrorf(t *testing.T) {
	sentinel := errors.New("bad")
	r := &Reader{Buf: []byte{0xff, 0xff}, Errorf: func(off int, msg string) error {
		return fmt.Errorf("at %d: %s: %w", off, msg, sentinel)
	}}
	r.U8("x")
	if r.Uvarint("v", 10); r.Err == nil || !errors.Is(r.Err, sentinel) || r.Err.Error() != "at 1: v: bad or cut varint: bad" {
		t.Errorf("Uvarint on a cut varint: %v", r.Err)
	}
	r = &Reader{Buf: []byte{11}}
	if got := r.Uvarint("v", 10); got != 0 || r.Err == nil || r.Err.Error() != "v: 11 exceeds 10" {
		t.Errorf("Uvarint over the limit = %d, %v", got, r.Err)
	}
}
