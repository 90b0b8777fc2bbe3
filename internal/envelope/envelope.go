// Package envelope writes and reads the binary envelope around dama's
// versioned files (checkpoints, self-play game chunks): one layout, one
// checksum and one family of errors for every kind of file.
//
// An envelope is, little-endian:
//
//	magic     8 bytes  one per kind of file, e.g. "DAMANET\x1a"
//	version   uint32   the payload's format version
//	length    uint64   bytes of payload
//	payload   length bytes, decoded by the file's own package
//	checksum  uint32   CRC-32C (Castagnoli) of everything before it
//
// The checksum guards against accidental damage (a cut copy, a flipped bit
// on disk or in transit), not against forgery: an unkeyed hash of any
// strength can be recomputed by whoever changes the file. CRC-32C detects
// every burst of up to 32 bits and all but 2^-32 of other damage, runs at
// gigabytes per second with the CPU's CRC instructions (SSE 4.2, ARMv8),
// and is what checkpoints used before this package, so their files are
// unchanged. A truncated SHA-256 costs an order of magnitude more per byte
// (BenchmarkChecksum) and adds nothing here.
//
// Every error of Open and ReadFile, and every error a payload decoder
// makes with Format.Malformed, is an *Error wrapping one of the sentinels
// below, so callers test errors.Is(err, envelope.ErrChecksum) whatever
// the file, and print one line naming the file and what is wrong.
package envelope

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"strings"
)

// HeaderLen is the size of the magic, version and length fields;
// TrailerLen the size of the checksum.
const (
	HeaderLen  = 8 + 4 + 8
	TrailerLen = 4
)

// The sentinel errors; an *Error wraps exactly one of them.
var (
	ErrMagic     = errors.New("bad magic")
	ErrVersion   = errors.New("unsupported format version")
	ErrTruncated = errors.New("truncated")
	ErrChecksum  = errors.New("checksum mismatch (corrupted file)")
	ErrLength    = errors.New("bad length")
	ErrMalformed = errors.New("malformed content")
)

// Error reports a bad file: which file, what it should be, what is wrong.
type Error struct {
	Path    string // the file, "" when not known (e.g. data from the network)
	Kind    string // what the data should be, e.g. "checkpoint"
	Err     error  // one of the sentinels
	Version uint32 // the version found, for ErrVersion and payload errors
	Detail  string // what exactly, e.g. "file has version 9, this program reads 1 to 2"
}

// Error is one line: "path: kind: problem: detail".
func (e *Error) Error() string {
	var sb strings.Builder
	if e.Path != "" {
		sb.WriteString(e.Path + ": ")
	}
	if e.Err == ErrMagic {
		fmt.Fprintf(&sb, "not %s %s (%v)", article(e.Kind), e.Kind, e.Err)
	} else {
		fmt.Fprintf(&sb, "%s: %v", e.Kind, e.Err)
	}
	if e.Detail != "" {
		sb.WriteString(": " + e.Detail)
	}
	return sb.String()
}

// article is the indefinite article of kind: "an" before a vowel
// ("an endgame table"), else "a".
func article(kind string) string {
	if kind != "" && strings.ContainsRune("aeiouAEIOU", rune(kind[0])) {
		return "an"
	}
	return "a"
}

// Unwrap returns the sentinel.
func (e *Error) Unwrap() error { return e.Err }

// WithPath names the file in err: it sets the Path of an *Error in err's
// chain that has none, or else prefixes err with path. It returns nil for
// a nil err.
func WithPath(err error, path string) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		if e.Path == "" {
			e.Path = path
		}
		return err
	}
	return fmt.Errorf("%s: %w", path, err)
}

// Format is one kind of enveloped file.
type Format struct {
	Kind       string  // what the file is, for errors: "checkpoint", "games file"
	Magic      [8]byte // its first 8 bytes
	MinVersion uint32  // the oldest payload version this program reads
	MaxVersion uint32  // the newest
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Checksum returns the CRC-32C of b.
func Checksum(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

// Begin appends the header of an envelope of the given payload version to
// dst, with a length of 0 that Seal fills in. The caller appends the
// payload, then calls Seal with the offset of the header in the buffer.
func (f *Format) Begin(dst []byte, version uint32) []byte {
	dst = append(dst, f.Magic[:]...)
	dst = binary.LittleEndian.AppendUint32(dst, version)
	return binary.LittleEndian.AppendUint64(dst, 0)
}

// Seal completes the envelope that starts at b[start]: a header from Begin
// followed by the payload, up to the end of b. It sets the length and
// appends the checksum. It panics if b[start:] is shorter than a header,
// which no buffer from Begin is.
func Seal(b []byte, start int) []byte {
	if len(b)-start < HeaderLen {
		panic("envelope: Seal of a buffer without a header")
	}
	binary.LittleEndian.PutUint64(b[start+12:], uint64(len(b)-start-HeaderLen))
	return binary.LittleEndian.AppendUint32(b, Checksum(b[start:]))
}

// Append appends an envelope of the given version around payload to dst.
func (f *Format) Append(dst []byte, version uint32, payload []byte) []byte {
	start := len(dst)
	return Seal(append(f.Begin(dst, version), payload...), start)
}

// Open checks an envelope held in data (the whole file: magic, version in
// [MinVersion, MaxVersion], length, checksum, nothing after it) and
// returns its version and payload, which aliases data.
func (f *Format) Open(data []byte) (version uint32, payload []byte, err error) {
	fail := func(sentinel error, format string, args ...any) (uint32, []byte, error) {
		return 0, nil, &Error{Kind: f.Kind, Err: sentinel, Version: version, Detail: fmt.Sprintf(format, args...)}
	}
	if len(data) < len(f.Magic) {
		if strings.HasPrefix(string(f.Magic[:]), string(data)) {
			return fail(ErrTruncated, "%d bytes, the header alone is %d", len(data), HeaderLen)
		}
		return fail(ErrMagic, "file starts with %q", data)
	}
	if string(data[:8]) != string(f.Magic[:]) {
		return fail(ErrMagic, "file starts with %q, want %q", data[:8], f.Magic[:])
	}
	if len(data) < HeaderLen {
		return fail(ErrTruncated, "%d bytes, the header alone is %d", len(data), HeaderLen)
	}
	version = binary.LittleEndian.Uint32(data[8:])
	if version < f.MinVersion || version > f.MaxVersion {
		return fail(ErrVersion, "file has version %d, this program reads %s", version, f.versions())
	}
	n := binary.LittleEndian.Uint64(data[12:])
	if rest := uint64(len(data) - HeaderLen); n > rest || rest-n < TrailerLen {
		return fail(ErrTruncated, "header promises %d payload bytes and a checksum, file has %d bytes in all", n, len(data))
	}
	end := HeaderLen + int(n)
	if extra := len(data) - end - TrailerLen; extra > 0 {
		return fail(ErrLength, "%d unexpected bytes after the checksum", extra)
	}
	if got, want := Checksum(data[:end]), binary.LittleEndian.Uint32(data[end:]); got != want {
		return fail(ErrChecksum, "stored %08x, computed %08x", want, got)
	}
	return version, data[HeaderLen:end], nil
}

func (f *Format) versions() string {
	if f.MinVersion == f.MaxVersion {
		return fmt.Sprintf("version %d", f.MinVersion)
	}
	return fmt.Sprintf("versions %d to %d", f.MinVersion, f.MaxVersion)
}

// Malformed returns the error of a payload of the given version whose
// content is wrong, for the decoders of payloads.
func (f *Format) Malformed(version uint32, format string, args ...any) *Error {
	return &Error{Kind: f.Kind, Err: ErrMalformed, Version: version, Detail: fmt.Sprintf(format, args...)}
}

// Fail returns an error of the format with the given sentinel, for
// readers of older layouts that make the same checks in another way.
func (f *Format) Fail(sentinel error, version uint32, format string, args ...any) *Error {
	return &Error{Kind: f.Kind, Err: sentinel, Version: version, Detail: fmt.Sprintf(format, args...)}
}

// ReadFile reads the file at path, of at most limit bytes: a larger file is
// an ErrLength *Error naming it, without reading it. Other errors are the
// os package's, which name the file too. It returns the whole file, for
// Open or for the reader of an older layout.
func (f *Format) ReadFile(path string, limit int64) ([]byte, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	st, err := file.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() > limit {
		return nil, &Error{Path: path, Kind: f.Kind, Err: ErrLength, Detail: fmt.Sprintf("%d bytes, more than the %d this program reads", st.Size(), limit)}
	}
	data, err := io.ReadAll(io.LimitReader(file, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, &Error{Path: path, Kind: f.Kind, Err: ErrLength, Detail: fmt.Sprintf("grew past the %d bytes this program reads while being read", limit)}
	}
	return data, nil
}
