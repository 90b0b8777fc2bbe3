package model_test

import (
	"encoding/binary"
	"errors"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"dama/internal/envelope"
	"dama/model"
	"dama/model/learn"
	"dama/model/modeltest"
)

// trainedCheckpoint is a tiny checkpoint after two Adam steps, so every
// section (running statistics, optimizer moments) holds real data.
func trainedCheckpoint(t testing.TB) *model.Checkpoint {
	t.Helper()
	rng := rand.New(rand.NewSource(41))
	tr, err := learn.NewTrainer(&model.Checkpoint{Net: modeltest.TinyNet(t, 41), Meta: model.Meta{Parent: "fresh.ckpt", Note: "test"}}, learn.TrainOptions{Batch: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	var data []learn.Sample
	for _, q := range modeltest.RandomPositions(rng, 4) {
		p, wdl := modeltest.RandomTargets(rng, q)
		data = append(data, learn.Sample{Pos: q.Pos, Repetitions: q.Repetitions, QuietPlies: q.QuietPlies, Legal: q.Legal, Policy: p, WDL: wdl})
	}
	for i := 0; i < 2; i++ {
		if _, err := tr.Step(data); err != nil {
			t.Fatal(err)
		}
	}
	return tr.Checkpoint()
}

// marshalledCheckpoint returns trainedCheckpoint with its config digest
// set (as Save sets it) and its encoding.
func marshalledCheckpoint(t testing.TB) (*model.Checkpoint, []byte) {
	t.Helper()
	ck := trainedCheckpoint(t)
	ck.Meta.ConfigDigest = ck.Net.Config.Digest()
	data, err := ck.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return ck, data
}

func TestCheckpointRoundTrip(t *testing.T) {
	ck := trainedCheckpoint(t)
	path := filepath.Join(t.TempDir(), "a.ckpt")
	if err := ck.Save(path); err != nil {
		t.Fatal(err)
	}
	got, err := model.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Step != 2 || got.Meta.Parent != "fresh.ckpt" || got.Meta.Note != "test" ||
		!got.Meta.Created.Equal(ck.Meta.Created) || got.Meta.ConfigDigest != ck.Net.Config.Digest() {
		t.Errorf("header: got step %d meta %+v, want step 2 meta %+v", got.Step, got.Meta, ck.Meta)
	}
	if got.Net.Config != ck.Net.Config {
		t.Errorf("config %+v, want %+v", got.Net.Config, ck.Net.Config)
	}
	same := func(a, b []model.Tensor) {
		if len(a) != len(b) {
			t.Fatalf("%d tensors, want %d", len(a), len(b))
		}
		for i := range a {
			if a[i].Name != b[i].Name || a[i].Kind != b[i].Kind || !slices.Equal(a[i].Shape, b[i].Shape) {
				t.Fatalf("tensor %d: %s %s %v, want %s %s %v", i, a[i].Name, a[i].Kind, a[i].Shape, b[i].Name, b[i].Kind, b[i].Shape)
			}
			for j := range a[i].Data {
				if a[i].Data[j] != b[i].Data[j] {
					t.Fatalf("%s[%d] = %v, want %v", a[i].Name, j, a[i].Data[j], b[i].Data[j])
				}
			}
		}
	}
	same(got.Net.Tensors, ck.Net.Tensors)
	same(got.Opt.Slots, ck.Opt.Slots)
	if got.Opt.Kind != "adam" || got.Opt.Steps != 2 {
		t.Errorf("optimizer %q steps %d", got.Opt.Kind, got.Opt.Steps)
	}
	// No temporary file left behind.
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("folder holds %d entries after Save, want 1", len(entries))
	}
	// The loaded checkpoint resumes training.
	tr, err := learn.NewTrainer(got, learn.TrainOptions{Batch: 4})
	if err != nil {
		t.Fatal(err)
	}
	tr.Close()
}

// A fresh network (no optimizer state) saves and loads too.
func TestCheckpointFresh(t *testing.T) {
	ck := &model.Checkpoint{Net: modeltest.TinyNet(t, 42), Meta: model.Meta{Created: time.Unix(1700000000, 0)}}
	data, err := ck.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	ck.Meta.ConfigDigest = ck.Net.Config.Digest()
	data, _ = ck.Marshal()
	got, err := model.Unmarshal(data)
	if err != nil {
		t.Fatal(err)
	}
	if got.Opt.Kind != "" || got.Step != 0 || got.Net.NumParams() != ck.Net.NumParams() {
		t.Errorf("fresh checkpoint came back as %+v", got)
	}
}

// reseal rewrites the checksum of a file after the payload was changed.
func reseal(b []byte) []byte {
	end := len(b) - 4
	binary.LittleEndian.PutUint32(b[end:], envelope.Checksum(b[:end]))
	return b
}

func TestCheckpointBadFiles(t *testing.T) {
	ck, good := marshalledCheckpoint(t)
	// A network whose tensor has the wrong shape, correctly checksummed.
	bad := ck.Net.Clone()
	bad.Tensors[0].Shape = []int{16, model.NumPlanes, 9, 1}
	wrongShape, err := (&model.Checkpoint{Net: bad, Meta: ck.Meta}).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	// A config digest that does not match the config.
	ck2 := *ck
	ck2.Meta.ConfigDigest = "0123456789abcdef"
	wrongDigest, _ := ck2.Marshal()

	mod := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), good...)) }
	for _, tc := range []struct {
		name string
		data []byte
		err  error
		msg  string
	}{
		{"empty", nil, envelope.ErrTruncated, ""},
		{"not a checkpoint", []byte("hello, world: not a checkpoint"), envelope.ErrMagic, ""},
		{"truncated header", good[:10], envelope.ErrTruncated, ""},
		{"truncated payload", good[:len(good)/2], envelope.ErrTruncated, "payload bytes"},
		{"missing checksum", good[:len(good)-2], envelope.ErrTruncated, ""},
		{"trailing bytes", append(append([]byte(nil), good...), 0), envelope.ErrLength, "after the checksum"},
		{"corrupted weight", mod(func(b []byte) []byte { b[len(b)/2] ^= 0x10; return b }), envelope.ErrChecksum, ""},
		{"corrupted checksum", mod(func(b []byte) []byte { b[len(b)-1] ^= 1; return b }), envelope.ErrChecksum, ""},
		{"wrong magic", mod(func(b []byte) []byte { copy(b, "PK\x03\x04"); return b }), envelope.ErrMagic, ""},
		{"wrong version", mod(func(b []byte) []byte { b[8] = 99; return reseal(b) }), envelope.ErrVersion, "version 99"},
		{"wrong shape", wrongShape, envelope.ErrMalformed, "input/conv has shape"},
		{"wrong digest", wrongDigest, envelope.ErrMalformed, "digest"},
		{"huge length", mod(func(b []byte) []byte { binary.LittleEndian.PutUint64(b[12:], 1<<62); return b }), envelope.ErrTruncated, ""},
	} {
		_, err := model.Unmarshal(tc.data)
		if !errors.Is(err, tc.err) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: error %v, want %v containing %q", tc.name, err, tc.err, tc.msg)
		}
	}
	// Load names the file.
	path := filepath.Join(t.TempDir(), "bad.ckpt")
	os.WriteFile(path, good[:100], 0o644)
	if _, err := model.Load(path); err == nil || !strings.Contains(err.Error(), "bad.ckpt") || !errors.Is(err, envelope.ErrTruncated) {
		t.Errorf("Load of a truncated file: %v", err)
	}
	if _, err := model.Load(filepath.Join(t.TempDir(), "missing.ckpt")); err == nil {
		t.Errorf("Load of a missing file: no error")
	}
}

// Payload length fields are capped: a bogus length never allocates more
// than the data holds.
func TestCheckpointBogusLengths(t *testing.T) {
	_, good := marshalledCheckpoint(t)
	payload := good[envelope.HeaderLen : len(good)-4]
	// Overwrite each uint32 in the first part of the payload (every length
	// field among them) with a huge value and decode directly, skipping the
	// checksum: no call may allocate much more than the payload itself.
	var before, after runtime.MemStats
	rejected := 0
	for off := 0; off+4 <= len(payload) && off < 128; off++ {
		p := append([]byte(nil), payload...)
		binary.LittleEndian.PutUint32(p[off:], 0xFFFFFFF0)
		runtime.ReadMemStats(&before)
		_, err := model.DecodePayload(p, model.FormatVersion)
		runtime.ReadMemStats(&after)
		if err != nil {
			rejected++
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > uint64(4*len(payload)+1<<20) {
			t.Fatalf("offset %d: decoding a %d-byte payload allocated %d bytes", off, len(payload), grew)
		}
	}
	if rejected < 64 {
		t.Errorf("only %d of 128 corrupted payloads rejected", rejected)
	}
}

// FuzzLoad feeds arbitrary bytes to Unmarshal and to the payload decoder:
// neither may panic, every error is an *envelope.Error, and whatever is
// accepted is a valid network that encodes and loads again. Each input is
// also written over the payload of a valid checkpoint, at offset at
// (modulo the payload's length; at's lowest bit picks the smallest
// network the format allows, about 130 KB, or the committed version 2
// sample), and decoded there, as a file with its checksum right too: the
// fuzzer mutates and minimises a few bytes and an offset, not a 130 KB
// seed (with those as seeds it spent whole runs minimising them). Run it
// with a short minimisation time (CI runs it so):
//
//	go test ./model/ -run XXX -fuzz FuzzLoad -fuzztime 30s -fuzzminimizetime 2s
func FuzzLoad(f *testing.F) {
	small := model.Config{Name: "fuzz", Blocks: 0, Filters: 1, PolicyFilters: 1, ValueFilters: 1, ValueHidden: 1}
	ck := &model.Checkpoint{Net: model.NewNetwork(small, rand.New(rand.NewSource(43)))}
	ck.Meta.ConfigDigest = ck.Net.Config.Digest()
	good, err := ck.Marshal()
	if err != nil {
		f.Fatal(err)
	}
	sample, err := os.ReadFile("testdata/sample-v2-aux.ckpt")
	if err != nil {
		f.Fatal(err)
	}
	payload := func(file []byte) []byte { return file[envelope.HeaderLen : len(file)-envelope.TrailerLen] }
	bases := [2]struct {
		payload []byte
		version uint32
	}{{payload(good), model.FormatVersion}, {payload(sample), model.FormatVersionFlags}}
	// The payload's fields near its start (the configuration, the
	// metadata, the encoding's sizes, the first tensor's header) in both
	// bases, and a few values of both kinds of bytes.
	for _, at := range []uint32{0, 8, 20, 44, 60, 96, 128} {
		for base := uint32(0); base < 2; base++ {
			f.Add([]byte{0xff, 0xff, 0xff, 0x7f}, 2*at+base)
		}
	}
	// The bases as they are, and with a tensor value changed (accepted).
	f.Add([]byte{}, uint32(0))
	f.Add([]byte{}, uint32(1))
	f.Add([]byte{0x00, 0x00, 0x80, 0x3f}, uint32(2*4000))
	f.Add([]byte{0x00, 0x00, 0x80, 0x3f}, uint32(2*4000+1))
	f.Add([]byte("DAMANET\x1a\x01\x00\x00\x00"), uint32(0))
	f.Add(good[:96], uint32(1))
	typed := func(t *testing.T, what string, err error) {
		var e *envelope.Error
		if !errors.As(err, &e) || !errors.Is(err, e.Err) || e.Kind != "checkpoint" {
			t.Fatalf("%s: error %T is not a checkpoint *envelope.Error: %v", what, err, err)
		}
	}
	unmarshal := func(t *testing.T, data []byte) {
		if ck, err := model.Unmarshal(data); err == nil {
			if err := ck.Net.Check(); err != nil {
				t.Fatalf("Unmarshal accepted a bad network: %v", err)
			}
		} else {
			typed(t, "Unmarshal", err)
		}
	}
	decode := func(t *testing.T, data []byte, version uint32) {
		ck, err := model.DecodePayload(data, version)
		if err != nil {
			typed(t, "decodePayload", err)
			return
		}
		if err := ck.Net.Check(); err != nil {
			t.Fatalf("decodePayload accepted a bad network: %v", err)
		}
		again, err := ck.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := model.Unmarshal(again); err != nil {
			t.Fatalf("re-encoded checkpoint does not load: %v", err)
		}
	}
	format := envelope.Format{Kind: "checkpoint", Magic: [8]byte([]byte("DAMANET\x1a")), MinVersion: model.FormatVersion, MaxVersion: model.FormatVersionFlags}
	f.Fuzz(func(t *testing.T, data []byte, at uint32) {
		unmarshal(t, data)
		// The payload parser on its own too, which the checksum would
		// otherwise shield from almost every input.
		for _, version := range []uint32{model.FormatVersion, model.FormatVersionFlags} {
			decode(t, data, version)
		}
		b := bases[at%2]
		p := slices.Clone(b.payload)
		copy(p[int(at/2)%len(p):], data)
		decode(t, p, b.version)
		unmarshal(t, format.Append(nil, b.version, p))
	})
}
