package envelope

import (
	"encoding/binary"
	"fmt"
)

// Reader reads the little-endian fields of a payload, checking each
// against the bytes left and remembering the first error: after one,
// every read returns zero values, so a decoder reads a record straight
// through and checks Err once.
type Reader struct {
	Buf []byte // what is read
	Off int    // the offset of the next read in Buf
	Err error  // the first error, nil while every read fits
	// Errorf, when set, makes the error of a failed read from its offset
	// and what is wrong; by default the error is what is wrong.
	Errorf func(off int, msg string) error
}

// Fail records an error at the current offset, unless one is recorded.
func (r *Reader) Fail(format string, args ...any) {
	if r.Err != nil {
		return
	}
	msg := fmt.Sprintf(format, args...)
	if r.Errorf != nil {
		r.Err = r.Errorf(r.Off, msg)
	} else {
		r.Err = fmt.Errorf("%s", msg)
	}
}

// Left is the number of bytes not read yet.
func (r *Reader) Left() int { return len(r.Buf) - r.Off }

// Take returns the next n bytes, what naming them in the error when fewer
// are left (then, or after an error, it returns nil).
func (r *Reader) Take(n int, what string) []byte {
	if r.Err != nil {
		return nil
	}
	if n < 0 || n > r.Left() {
		r.Fail("%s needs %d bytes, %d left", what, n, r.Left())
		return nil
	}
	b := r.Buf[r.Off : r.Off+n]
	r.Off += n
	return b
}

// U8 reads a byte.
func (r *Reader) U8(what string) uint8 {
	if b := r.Take(1, what); b != nil {
		return b[0]
	}
	return 0
}

// U16 reads a little-endian uint16.
func (r *Reader) U16(what string) uint16 {
	if b := r.Take(2, what); b != nil {
		return binary.LittleEndian.Uint16(b)
	}
	return 0
}

// U32 reads a little-endian uint32.
func (r *Reader) U32(what string) uint32 {
	if b := r.Take(4, what); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

// U64 reads a little-endian uint64.
func (r *Reader) U64(what string) uint64 {
	if b := r.Take(8, what); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

// Uvarint reads an unsigned varint of at most limit.
func (r *Reader) Uvarint(what string, limit uint64) uint64 {
	if r.Err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.Buf[r.Off:])
	if n <= 0 {
		r.Fail("%s: bad or cut varint", what)
		return 0
	}
	if v > limit {
		r.Fail("%s: %d exceeds %d", what, v, limit)
		return 0
	}
	r.Off += n
	return v
}
