package tb

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"dama/internal/envelope"
)

func testStamp() stamp {
	return stamp{
		{Kings: 1, OppKings: 1}:                    sha256.Sum256([]byte("0101")),
		{Kings: 2, OppKings: 1}:                    sha256.Sum256([]byte("0201")),
		{Men: 1, Kings: 1, OppMen: 1}:              sha256.Sum256([]byte("1110")),
		{Men: 2, Kings: 2, OppMen: 2, OppKings: 2}: sha256.Sum256([]byte("2222")),
	}
}

// TestStampRoundTrip: a stamp reads back as written, through a file
// written under a temporary name and renamed; a missing stamp is empty.
func TestStampRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), StampName)
	if s, err := readStamp(path); err != nil || len(s) != 0 {
		t.Fatalf("missing stamp: %v, %v; want an empty one", s, err)
	}
	want := testStamp()
	if err := writeStamp(path, want); err != nil {
		t.Fatal(err)
	}
	got, err := readStamp(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read back %v, want %v", got, want)
	}
	if ents, _ := os.ReadDir(filepath.Dir(path)); len(ents) != 1 {
		t.Errorf("%d files after the write, want the stamp alone", len(ents))
	}
}

// TestStampRefused: each kind of bad stamp is an *envelope.Error naming
// the file and what is wrong.
func TestStampRefused(t *testing.T) {
	good := encodeStamp(testStamp())
	payload := func(data []byte) []byte { return data[envelope.HeaderLen : len(data)-envelope.TrailerLen] }
	reseal := func(p []byte) []byte { return stampFormat.Append(nil, StampVersion, p) }
	record := func(m [4]byte) []byte { return append(m[:], make([]byte, sha256.Size)...) }
	count := func(n uint32, recs ...[]byte) []byte {
		p := binary.LittleEndian.AppendUint32(nil, n)
		for _, r := range recs {
			p = append(p, r...)
		}
		return reseal(p)
	}
	for _, c := range []struct {
		name string
		data []byte
		want error
		text string
	}{
		{"flipped bit", func() []byte { d := append([]byte(nil), good...); d[30] ^= 2; return d }(), envelope.ErrChecksum, ""},
		{"cut", good[:len(good)-10], envelope.ErrTruncated, ""},
		{"a table file", func() []byte { d := append([]byte(nil), good...); copy(d, "DAMATB\x00\x1a"); return d }(), envelope.ErrMagic, ""},
		{"other version", stampFormat.Append(nil, StampVersion+1, payload(good)), envelope.ErrVersion, ""},
		{"no count", reseal(nil), envelope.ErrTruncated, "table count"},
		{"count too big", count(5, record([4]byte{0, 1, 0, 1})), envelope.ErrMalformed, "5 tables take 180 bytes, the stamp has 36"},
		{"not a signature", count(1, record([4]byte{0, 0, 0, 1})), envelope.ErrMalformed, "0001 is not a signature"},
		{"nine pieces", count(1, record([4]byte{3, 3, 3, 0})), envelope.ErrMalformed, "3330 is not a signature of at most 8 pieces"},
		{"twice", count(2, record([4]byte{0, 1, 0, 1}), record([4]byte{0, 1, 0, 1})), envelope.ErrMalformed, "signature 0101 after 0101"},
		{"out of order", count(2, record([4]byte{0, 2, 0, 1}), record([4]byte{0, 1, 0, 1})), envelope.ErrMalformed, "signature 0101 after 0201"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), StampName)
			if err := os.WriteFile(path, c.data, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := readStamp(path)
			var e *envelope.Error
			if !errors.Is(err, c.want) || !errors.As(err, &e) || !strings.HasPrefix(err.Error(), path+": ") || !strings.Contains(err.Error(), "endgame table verification stamp") || !strings.Contains(err.Error(), c.text) {
				t.Errorf("got %v, want %v naming %s with %q", err, c.want, path, c.text)
			}
		})
	}
}

// FuzzDecodeStamp: no input makes the stamp reader panic or fail with
// another error than an *envelope.Error, and what it accepts encodes to
// the same bytes.
func FuzzDecodeStamp(f *testing.F) {
	good := encodeStamp(testStamp())
	f.Add(good)
	f.Add(good[:len(good)-5])
	f.Add(encodeStamp(stamp{}))
	f.Add([]byte("DAMATBV\x1a"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := decodeStamp(data)
		if err != nil {
			var e *envelope.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is not an *envelope.Error", err)
			}
			return
		}
		if back := encodeStamp(s); string(back) != string(data) {
			t.Fatalf("accepted %x, which encodes back as %x", data, back)
		}
	})
}
