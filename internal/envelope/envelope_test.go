package envelope

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var testFormat = Format{Kind: "test file", Magic: [8]byte([]byte("DAMATEST")), MinVersion: 2, MaxVersion: 4}

func TestRoundTrip(t *testing.T) {
	for _, payload := range [][]byte{nil, {}, []byte("x"), bytes.Repeat([]byte("payload "), 1000)} {
		for v := testFormat.MinVersion; v <= testFormat.MaxVersion; v++ {
			data := testFormat.Append(nil, v, payload)
			if len(data) != HeaderLen+len(payload)+TrailerLen {
				t.Fatalf("%d-byte payload: %d-byte envelope", len(payload), len(data))
			}
			got, p, err := testFormat.Open(data)
			if err != nil || got != v || !bytes.Equal(p, payload) {
				t.Fatalf("version %d, %d-byte payload: read version %d, %d bytes, err %v", v, len(payload), got, len(p), err)
			}
		}
	}
	// Begin and Seal after other data in the buffer give the same bytes.
	b := testFormat.Begin([]byte("prefix"), 3)
	b = append(b, "abc"...)
	b = Seal(b, len("prefix"))
	if want := testFormat.Append(nil, 3, []byte("abc")); !bytes.Equal(b[len("prefix"):], want) {
		t.Errorf("Begin+Seal after a prefix: % x, want % x", b[6:], want)
	}
}

// TestLayout pins the bytes of an envelope: the layout is a file format.
func TestLayout(t *testing.T) {
	got := testFormat.Append(nil, 3, []byte{0xAA, 0xBB})
	want := []byte("DAMATEST")
	want = append(want, 3, 0, 0, 0)
	want = append(want, 2, 0, 0, 0, 0, 0, 0, 0)
	want = append(want, 0xAA, 0xBB)
	// CRC-32C of the bytes above, computed independently (the hash/crc32
	// Castagnoli table, bit by bit).
	want = binary.LittleEndian.AppendUint32(want, crc32cBitwise(want))
	if !bytes.Equal(got, want) {
		t.Errorf("envelope\n% x\nwant\n% x", got, want)
	}
}

// crc32cBitwise is CRC-32C computed bit by bit (reflected polynomial
// 0x82F63B78), a reference for the table-driven Checksum.
func crc32cBitwise(b []byte) uint32 {
	crc := ^uint32(0)
	for _, c := range b {
		crc ^= uint32(c)
		for i := 0; i < 8; i++ {
			if crc&1 != 0 {
				crc = crc>>1 ^ 0x82F63B78
			} else {
				crc >>= 1
			}
		}
	}
	return ^crc
}

func TestChecksum(t *testing.T) {
	// The check value of CRC-32C.
	if got := Checksum([]byte("123456789")); got != 0xE3069283 {
		t.Errorf("CRC-32C of 123456789 = %08x, want e3069283", got)
	}
}

func TestOpenErrors(t *testing.T) {
	good := testFormat.Append(nil, 3, []byte("some payload"))
	mod := func(f func(b []byte) []byte) []byte { return f(slices.Clone(good)) }
	reseal := func(b []byte) []byte {
		n := len(b) - TrailerLen
		binary.LittleEndian.PutUint32(b[n:], Checksum(b[:n]))
		return b
	}
	for _, tc := range []struct {
		name string
		data []byte
		want error
		msg  string
	}{
		{"empty", nil, ErrTruncated, "the header alone is 20"},
		{"magic prefix", []byte("DAMA"), ErrTruncated, ""},
		{"other file", []byte("PK\x03\x04 a zip file"), ErrMagic, `not a test file (bad magic): file starts with "PK\x03\x04 a z"`},
		{"short other file", []byte("PK"), ErrMagic, "not a test file"},
		{"header cut", good[:15], ErrTruncated, "15 bytes"},
		{"old version", mod(func(b []byte) []byte { b[8] = 1; return reseal(b) }), ErrVersion, "file has version 1, this program reads versions 2 to 4"},
		{"new version", mod(func(b []byte) []byte { b[8] = 5; return b }), ErrVersion, "version 5"},
		{"payload cut", good[:HeaderLen+3], ErrTruncated, "header promises 12 payload bytes"},
		{"checksum cut", good[:len(good)-1], ErrTruncated, ""},
		{"huge length", mod(func(b []byte) []byte { binary.LittleEndian.PutUint64(b[12:], 1<<63+5); return b }), ErrTruncated, ""},
		{"length short by 1", mod(func(b []byte) []byte { b[12]--; return b }), ErrLength, "1 unexpected bytes"},
		{"extra byte", append(slices.Clone(good), 0), ErrLength, "after the checksum"},
		{"flipped payload bit", mod(func(b []byte) []byte { b[HeaderLen+2] ^= 4; return b }), ErrChecksum, "stored"},
		{"flipped checksum bit", mod(func(b []byte) []byte { b[len(b)-1] ^= 0x80; return b }), ErrChecksum, ""},
	} {
		_, _, err := testFormat.Open(tc.data)
		var e *Error
		if !errors.Is(err, tc.want) || !errors.As(err, &e) || e.Kind != "test file" || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: err %v, want a test file *Error of %v mentioning %q", tc.name, err, tc.want, tc.msg)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: message of more than one line: %q", tc.name, err)
		}
	}
	// The version error carries the version found.
	_, _, err := testFormat.Open(mod(func(b []byte) []byte { b[8] = 7; return b }))
	if e := (*Error)(nil); !errors.As(err, &e) || e.Version != 7 {
		t.Errorf("version 7: err %#v", err)
	}
}

func TestReadFileAndWithPath(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.test")
	good := testFormat.Append(nil, 2, []byte("abc"))
	if err := os.WriteFile(path, good, 0o644); err != nil {
		t.Fatal(err)
	}
	data, err := testFormat.ReadFile(path, int64(len(good)))
	if err != nil || !bytes.Equal(data, good) {
		t.Fatalf("ReadFile: %d bytes, err %v", len(data), err)
	}
	_, err = testFormat.ReadFile(path, int64(len(good))-1)
	if !errors.Is(err, ErrLength) || !strings.HasPrefix(err.Error(), path+": test file: bad length") {
		t.Errorf("file over the limit: %v", err)
	}
	if _, err := testFormat.ReadFile(filepath.Join(dir, "missing"), 100); !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "missing") {
		t.Errorf("missing file: %v", err)
	}

	_, _, err = testFormat.Open(good[:10])
	err = WithPath(err, "games/a.test")
	if want := "games/a.test: test file: truncated: 10 bytes, the header alone is 20"; err == nil || err.Error() != want {
		t.Errorf("WithPath: %v, want %s", err, want)
	}
	if WithPath(nil, "p") != nil {
		t.Errorf("WithPath(nil) is not nil")
	}
	if err := WithPath(errors.New("other"), "p"); err.Error() != "p: other" {
		t.Errorf("WithPath of another error: %v", err)
	}
	// A payload decoder's error.
	err = WithPath(testFormat.Malformed(3, "tensor %d has rank %d", 2, 9), "c.test")
	if !errors.Is(err, ErrMalformed) || err.Error() != "c.test: test file: malformed content: tensor 2 has rank 9" {
		t.Errorf("Malformed: %v", err)
	}
}

// FuzzOpen feeds arbitrary bytes to Open: it never panics, every error is
// a typed *Error of the format, an accepted input is exactly the envelope
// of its payload, and any single flipped bit of an accepted input is
// caught. Seeds include the committed checkpoint and games samples (their
// envelope magic differs: Open sees them through the format of each):
//
//	go test ./internal/envelope/ -run XXX -fuzz FuzzOpen -fuzztime 30s
func FuzzOpen(f *testing.F) {
	f.Add(testFormat.Append(nil, 3, []byte("seed")))
	f.Add(testFormat.Append(nil, 2, nil))
	f.Add([]byte("DAMATEST\x03\x00\x00\x00"))
	for _, p := range []string{"../../model/testdata/sample-v2-aux.ckpt", "../../selfplay/testdata/games-v3.dgames"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		// The header and the start of the payload, under the test magic,
		// resealed so the fuzzer starts from valid envelopes.
		b = slices.Clone(b[:min(len(b), 600)])
		copy(b, "DAMATEST")
		binary.LittleEndian.PutUint32(b[8:], 3)
		f.Add(testFormat.Append(nil, 3, b[HeaderLen:]))
	}
	formats := []Format{testFormat, {Kind: "checkpoint", Magic: [8]byte([]byte("DAMANET\x1a")), MinVersion: 1, MaxVersion: 2}, {Kind: "games file", Magic: [8]byte([]byte("DAMAGAME")), MinVersion: 1, MaxVersion: 3}}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, ft := range formats {
			v, payload, err := ft.Open(data)
			if err != nil {
				var e *Error
				if !errors.As(err, &e) || e.Kind != ft.Kind || !slices.Contains([]error{ErrMagic, ErrVersion, ErrTruncated, ErrLength, ErrChecksum}, e.Err) {
					t.Fatalf("error %#v is not a typed %s error", err, ft.Kind)
				}
				continue
			}
			if !bytes.Equal(ft.Append(nil, v, payload), data) {
				t.Fatalf("accepted input is not the envelope of its payload")
			}
			for i := 0; i < len(data); i += 1 + len(data)/64 {
				bad := slices.Clone(data)
				bad[i] ^= 1 << (i % 8)
				if _, _, err := ft.Open(bad); err == nil {
					t.Fatalf("flipping a bit of byte %d went unnoticed", i)
				}
			}
		}
	})
}

// TestMagicArticle: the bad-magic message reads "not a" or "not an" as
// English wants it.
func TestMagicArticle(t *testing.T) {
	for _, tc := range []struct{ kind, want string }{
		{"checkpoint", "not a checkpoint (bad magic)"},
		{"games file", "not a games file (bad magic)"},
		{"endgame table", "not an endgame table (bad magic)"},
		{"index", "not an index (bad magic)"},
	} {
		got := (&Error{Kind: tc.kind, Err: ErrMagic}).Error()
		if got != tc.want {
			t.Errorf("kind %q: %q, want %q", tc.kind, got, tc.want)
		}
	}
}
