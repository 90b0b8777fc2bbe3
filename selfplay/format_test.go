package selfplay

import (
	"bytes"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"dama/internal/envelope"
	"dama/internal/evaltest"
	"dama/rules"
)

var update = flag.Bool("update", false, "rewrite the fuzz seed corpus in testdata/fuzz")

// playGames plays n games of cfg with the material evaluator.
func playGames(t testing.TB, cfg Config, n int) []*Game {
	t.Helper()
	return runGames(t, evaltest.Material{}, cfg, 0, n)
}

// testGames plays a few short games and sets the fields play leaves at
// their zero values.
func testGames(t testing.TB, n int) []*Game {
	t.Helper()
	games := playGames(t, testConfig(9, func(c *Config) { c.Visits, c.MaxPlies, c.CheapVisits, c.Parallel = 8, 40, 3, 2 }), n)
	games[0].NoResign = true
	games[0].WouldResign = 3
	if len(games) > 1 {
		games[1].Result, games[1].End = rules.BlackWins, Resigned
	}
	return games
}

func testHeader() Header {
	return Header{
		Model:        "candidates/0007.ckpt",
		ModelDigest:  "sha256:0123abcd",
		Created:      time.Unix(0, 1764496800123456789),
		ConfigDigest: testConfig(0, nil).Digest(),
	}
}

func encode(t testing.TB, h Header, games []*Game) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Encode(&buf, h, games); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestRoundTrip(t *testing.T) {
	games := testGames(t, 3)
	h := testHeader()
	data := encode(t, h, games)
	got, gotGames, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	h.Version, h.Games = FormatVersion, len(games)
	if !got.Created.Equal(h.Created) {
		t.Errorf("created %v, want %v", got.Created, h.Created)
	}
	got.Created = h.Created
	if got != h {
		t.Errorf("header %+v, want %+v", got, h)
	}
	if !reflect.DeepEqual(gotGames, games) {
		t.Errorf("games read back differ from the games written")
	}
	// No games at all is a valid file too.
	if _, g0, err := Decode(encode(t, h, nil)); err != nil || len(g0) != 0 {
		t.Errorf("empty file: %d games, err %v", len(g0), err)
	}
}

// fixCRC rewrites the checksum of a modified file so that only the change
// itself is detected.
func fixCRC(data []byte) []byte {
	n := len(data) - envelope.TrailerLen
	binary.LittleEndian.PutUint32(data[n:], envelope.Checksum(data[:n]))
	return data
}

// fixLegacyCRC is fixCRC for a file in the frame of versions 1 and 2.
func fixLegacyCRC(data []byte) []byte {
	n := len(data) - trailerLen
	binary.LittleEndian.PutUint32(data[n+8:], crc32.ChecksumIEEE(data[:n]))
	return data
}

// legacyFile frames a version 3 file's payload as a file of version 1 or 2.
func legacyFile(t testing.TB, version uint16, data []byte) []byte {
	t.Helper()
	h, games, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	var v3 bytes.Buffer // versions 1 to 3 hold the same payload
	if err := encodeVersion(&v3, h, games, 3); err != nil {
		t.Fatal(err)
	}
	_, payload, err := fileFormat.Open(v3.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	b := append([]byte(fileMagic), byte(version), byte(version>>8))
	return appendTrailer(append(b, payload...))
}

type readerErrorCase struct {
	name string
	data []byte
	want error
	msg  string // part of the message
}

func checkReaderErrors(t *testing.T, tests []readerErrorCase) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Decode(tc.data)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err %v, want %v", err, tc.want)
			}
			var fe *envelope.Error
			if !errors.As(err, &fe) || fe.Kind != "games file" {
				t.Fatalf("err %T, want a games file *envelope.Error", err)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("message %q does not mention %q", err, tc.msg)
			}
		})
	}
}

func TestReaderErrors(t *testing.T) {
	games := testGames(t, 2)
	data := encode(t, testHeader(), games)
	mod := func(f func(b []byte) []byte) []byte { return f(slices.Clone(data)) }
	checkReaderErrors(t, []readerErrorCase{
		{"empty", nil, envelope.ErrTruncated, "the header alone"},
		{"magic only", []byte("DAMAG"), envelope.ErrTruncated, ""},
		{"wrong magic", mod(func(b []byte) []byte { b[0] = 'X'; return b }), envelope.ErrMagic, "XAMAGAME"},
		{"text file", []byte("[GameType \"22\"]\n1. 22-18 *\n"), envelope.ErrMagic, "not a games file"},
		{"wrong version", mod(func(b []byte) []byte { b[8] = 9; return b }), envelope.ErrVersion, "version 9, this program reads versions 1 to 6"},
		{"cut in the body", data[:len(data)/2], envelope.ErrTruncated, "payload bytes"},
		{"cut in the checksum", data[:len(data)-3], envelope.ErrTruncated, ""},
		{"extra bytes", append(slices.Clone(data), 0), envelope.ErrLength, "after the checksum"},
		{"flipped body byte", mod(func(b []byte) []byte { b[len(b)/2] ^= 0x10; return b }), envelope.ErrChecksum, ""},
		{"flipped header byte", mod(func(b []byte) []byte { b[envelope.HeaderLen+3] ^= 1; return b }), envelope.ErrChecksum, ""},
		{"bad body with good CRC", mod(func(b []byte) []byte { b[len(b)-envelope.TrailerLen-3] ^= 0xFF; return fixCRC(b) }), envelope.ErrMalformed, ""},
		{"game count too high", mod(func(b []byte) []byte {
			i := bytes.Index(b, []byte(testConfig(0, nil).Digest())) + 64
			b[i]++
			return fixCRC(b)
		}), envelope.ErrMalformed, "game 2"},
	})
}

// TestLegacyReaderErrors damages files in the frame of versions 1 and 2.
func TestLegacyReaderErrors(t *testing.T) {
	games := testGames(t, 2)
	data := legacyFile(t, 2, encode(t, testHeader(), games))
	if _, got, err := Decode(data); err != nil || !reflect.DeepEqual(got, games) {
		t.Fatalf("version 2 frame of the games: err %v", err)
	}
	mod := func(f func(b []byte) []byte) []byte { return f(slices.Clone(data)) }
	checkReaderErrors(t, []readerErrorCase{
		{"no version", data[:9], envelope.ErrTruncated, ""},
		{"cut in the body", data[:len(data)/2], envelope.ErrTruncated, "without its trailer"},
		{"cut in the trailer", data[:len(data)-3], envelope.ErrTruncated, ""},
		{"extra bytes", append(slices.Clone(data), 0), envelope.ErrTruncated, ""},
		{"flipped body byte", mod(func(b []byte) []byte { b[len(b)/2] ^= 0x10; return b }), envelope.ErrChecksum, "CRC-32"},
		{"flipped header byte", mod(func(b []byte) []byte { b[12] ^= 1; return b }), envelope.ErrChecksum, "CRC-32"},
		{"bad body with good CRC", mod(func(b []byte) []byte { b[len(b)-trailerLen-3] ^= 0xFF; return fixLegacyCRC(b) }), envelope.ErrMalformed, ""},
		{"game count too high", mod(func(b []byte) []byte {
			i := bytes.Index(b, []byte(testConfig(0, nil).Digest())) + 64
			b[i]++
			return fixLegacyCRC(b)
		}), envelope.ErrMalformed, "game 2"},
	})
}

// TestReaderChecksContent re-encodes games made inconsistent and expects
// the reader to name the game and ply.
func TestReaderChecksContent(t *testing.T) {
	games := testGames(t, 1)
	g := *games[0]
	g.Plies = slices.Clone(g.Plies)
	g.Plies[2].Pos = g.Plies[4].Pos
	_, _, err := Decode(encode(t, testHeader(), []*Game{&g}))
	if !errors.Is(err, envelope.ErrMalformed) || !strings.Contains(err.Error(), "game 0") || !strings.Contains(err.Error(), "ply 2") {
		t.Errorf("broken chain: err %v", err)
	}
	g = *games[0]
	g.Plies = slices.Clone(g.Plies)
	g.Plies[1].Legal = g.Plies[1].Legal[:len(g.Plies[1].Legal)-1]
	g.Plies[1].Visits = g.Plies[1].Visits[:len(g.Plies[1].Legal)]
	g.Plies[1].Move = 0
	if _, _, err := Decode(encode(t, testHeader(), []*Game{&g})); !errors.Is(err, envelope.ErrMalformed) || !strings.Contains(err.Error(), "moves listed") {
		t.Errorf("incomplete move list: err %v", err)
	}
	g = *games[0]
	g.Result = rules.Ongoing
	if err := Encode(&bytes.Buffer{}, testHeader(), []*Game{&g}); err == nil {
		t.Errorf("an unfinished game was encoded")
	}
	// W/D/L out of range (found by fuzzing, issue 13 point 16).
	for _, wdl := range [][3]float32{{0, float32(math.NaN()), 1.99998}, {-0.5, 1, 0.5}, {0.7, 0.7, 0}, {float32(math.Inf(1)), 0, 0}} {
		g = *games[0]
		g.Plies = slices.Clone(g.Plies)
		g.Plies[3].WDL = wdl
		if _, _, err := Decode(encode(t, testHeader(), []*Game{&g})); !errors.Is(err, envelope.ErrMalformed) || !strings.Contains(err.Error(), "ply 3") || !strings.Contains(err.Error(), "W/D/L") {
			t.Errorf("W/D/L %v: err %v, want envelope.ErrMalformed naming ply 3 and the W/D/L", wdl, err)
		}
	}
	// A ply in a position without legal moves (found in review: the
	// played-move bound wrapped and the reader panicked).
	lost, err := rules.ParseFEN("W:W:B1,2")
	if err != nil {
		t.Fatal(err)
	}
	pos := func(b []byte, p rules.Position) []byte {
		b = binary.LittleEndian.AppendUint32(b, uint32(p.Pieces(rules.White)))
		b = binary.LittleEndian.AppendUint32(b, uint32(p.Pieces(rules.Black)))
		b = binary.LittleEndian.AppendUint32(b, uint32(p.Kings(rules.White)|p.Kings(rules.Black)))
		return append(b, byte(p.Side()))
	}
	body := binary.LittleEndian.AppendUint64(nil, 1) // seed
	body = append(body, 0, byte(rules.BlackWins), byte(NoMoves), 0)
	body = pos(body, lost)
	body = append(body, 1) // one ply
	body = pos(body, lost)
	body = append(body, 1, 0, 0)             // flags, repetitions, quiet plies
	body = append(body, make([]byte, 12)...) // WDL
	body = append(body, 0, 0)                // no legal moves, played move 0
	if _, _, err := Decode(rawFile(1, body)); !errors.Is(err, envelope.ErrMalformed) || !strings.Contains(err.Error(), "no legal move") {
		t.Errorf("ply without legal moves: err %v", err)
	}
}

func TestChunkWriter(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "games")
	games := testGames(t, 5)
	w, err := NewChunkWriter(dir, "w1", 2, testHeader(), true)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range games {
		if err := w.Add(g); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	files, err := Chunks(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{ChunkName("w1", 0), ChunkName("w1", 1), ChunkName("w1", 2)}
	for i := range want {
		want[i] = filepath.Join(dir, want[i])
	}
	if !slices.Equal(files, want) || !slices.Equal(w.Files(), want) || w.Written() != 5 {
		t.Fatalf("files %v (writer says %v, %d games), want %v", files, w.Files(), w.Written(), want)
	}
	var read []*Game
	for _, f := range files {
		h, gs, err := ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if h.Model != testHeader().Model || h.Games != len(gs) {
			t.Errorf("%s: header %+v", f, h)
		}
		read = append(read, gs...)
		pdn, err := os.ReadFile(strings.TrimSuffix(f, FileExt) + ".pdn")
		if err != nil {
			t.Fatal(err)
		}
		recs, err := rules.ParsePDN(string(pdn))
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range recs {
			if !slices.Equal(r.Moves, gs[i].Moves()) || r.Result != gs[i].Result {
				t.Errorf("%s game %d: PDN moves or result differ", f, i)
			}
		}
	}
	if !reflect.DeepEqual(read, games) {
		t.Errorf("games read from the chunks differ from those written")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
	// A new writer for the same worker continues the numbering.
	w2, err := NewChunkWriter(dir, "w1", 2, testHeader(), false)
	if err != nil {
		t.Fatal(err)
	}
	if err := w2.Add(games[0]); err != nil {
		t.Fatal(err)
	}
	if err := w2.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := filepath.Base(w2.Files()[0]); got != ChunkName("w1", 3) {
		t.Errorf("restarted writer wrote %s, want %s", got, ChunkName("w1", 3))
	}
	if _, err := NewChunkWriter(dir, "a/b", 2, testHeader(), false); err == nil {
		t.Errorf("worker name with a slash accepted")
	}
	if _, _, err := ReadFile(filepath.Join(dir, "missing.dgames")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestWriteSeedCorpus(t *testing.T) {
	if !*update {
		t.Skip("run with -update to rewrite testdata/fuzz/FuzzDecode")
	}
	games := testGames(t, 2)
	for _, g := range games {
		cutGame(g, 6)
	}
	data := encode(t, testHeader(), games[:1])
	seeds := map[string][]byte{
		"valid":     data,
		"empty":     encode(t, testHeader(), nil),
		"truncated": data[:len(data)/2],
		"magic":     []byte(fileMagic),
	}
	body, err := appendGame([]byte{1}, games[1], FormatVersion)
	if err != nil {
		t.Fatal(err)
	}
	seeds["body"] = body
	dir := filepath.Join("testdata", "fuzz", "FuzzDecode")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, b := range seeds {
		body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", b)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// cutGame keeps the first n plies of g (the rest of the record as it
// was: the reader does not check results).
func cutGame(g *Game, n int) {
	g.Plies = g.Plies[:min(n, len(g.Plies))]
	if g.WouldResign >= len(g.Plies) {
		g.WouldResign = -1
	}
}

// fuzzSeeds returns a small file of each version the reader reads, each
// one game of the committed sample of that version cut to a few plies
// (the version 6 one ends by table adjudication): a few hundred bytes,
// which the fuzzer mutates and minimises in a moment (the samples
// themselves, of up to 13 KB, kept it minimising).
func fuzzSeeds(tb testing.TB) [][]byte {
	tb.Helper()
	var out [][]byte
	for _, version := range []uint16{1, 2, 3, 6} {
		h, games, err := ReadFile(filepath.Join("testdata", fmt.Sprintf("games-v%d.dgames", version)))
		if err != nil {
			tb.Fatal(err)
		}
		g := *games[0]
		for _, x := range games {
			if x.End == Tables || x.End == Resigned && g.End != Tables {
				g = *x
			}
		}
		cutGame(&g, 4)
		var buf bytes.Buffer
		if err := encodeVersion(&buf, h, []*Game{&g}, uint32(max(version, 3))); err != nil {
			tb.Fatal(err)
		}
		b := buf.Bytes()
		if version <= lastLegacy {
			b = legacyFile(tb, version, b)
		}
		out = append(out, b)
	}
	return out
}

// rawFile builds a file with the given game count around an uncompressed
// body, so that fuzzing reaches the game decoder past the checksum.
func rawFile(count byte, body []byte) []byte {
	return rawFileVersion(FormatVersion, count, body)
}

// rawFileVersion is rawFile with the given format version, in the frame of
// that version.
func rawFileVersion(version uint16, count byte, body []byte) []byte {
	var buf bytes.Buffer
	putString(&buf, "m")
	putString(&buf, "d")
	buf.Write(binary.LittleEndian.AppendUint64(nil, 1))
	putString(&buf, "c")
	buf.Write(binary.LittleEndian.AppendUint32(nil, uint32(count)))
	buf.Write(storedDeflate(body))
	if version <= lastLegacy {
		b := append([]byte(fileMagic), byte(version), byte(version>>8))
		return appendTrailer(append(b, buf.Bytes()...))
	}
	return fileFormat.Append(nil, uint32(version), buf.Bytes())
}

// storedDeflate returns body as a DEFLATE stream of stored (uncompressed)
// blocks (RFC 1951, 3.2.4): what a compressor would write, without its
// cost (a flate.Writer allocates a megabyte), so that a fuzz execution
// stays cheap.
func storedDeflate(body []byte) []byte {
	out := make([]byte, 0, len(body)+5*(len(body)/65535+1))
	for {
		n := min(len(body), 65535)
		final := byte(0)
		if n == len(body) {
			final = 1
		}
		out = append(out, final)
		out = binary.LittleEndian.AppendUint16(out, uint16(n))
		out = binary.LittleEndian.AppendUint16(out, ^uint16(n))
		out = append(out, body[:n]...)
		if body = body[n:]; final == 1 {
			return out
		}
	}
}

// appendTrailer adds a valid trailer of versions 1 and 2 to the header and
// body in b.
func appendTrailer(b []byte) []byte {
	n := len(b)
	b = binary.LittleEndian.AppendUint64(b, uint64(n))
	b = binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b[:n]))
	return append(b, trailerMagic...)
}

// FuzzDecode checks that the reader never panics, that every error is a
// games file *envelope.Error, and that whatever it accepts it writes back
// and reads again unchanged. Each input is read as a file, as a file with
// its checksum repaired (in the envelope and in the frame of versions 1
// and 2), and as the uncompressed body of a file of versions 1 and 3
// (first byte: the game count). The seeds are small files of versions 1,
// 2, 3 and 6 cut from the committed samples (fuzzSeeds) beside the corpus
// in testdata/fuzz, all of a few hundred bytes. Run it with a short
// minimisation time (CI runs it so):
//
//	go test ./selfplay/ -run XXX -fuzz FuzzDecode -fuzztime 60s -fuzzminimizetime 2s
func FuzzDecode(f *testing.F) {
	for _, b := range fuzzSeeds(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		check := func(data []byte) {
			h, games, err := Decode(data)
			if err != nil {
				var fe *envelope.Error
				if !errors.As(err, &fe) || fe.Kind != "games file" || !errors.Is(err, fe.Err) {
					t.Fatalf("error %T is not a games file *envelope.Error: %v", err, err)
				}
				return
			}
			h2, games2, err := Decode(encode(t, h, games))
			if err != nil {
				t.Fatalf("re-encoded file does not read: %v", err)
			}
			if h2.Model != h.Model || !h2.Created.Equal(h.Created) || !reflect.DeepEqual(games2, games) {
				t.Fatalf("re-encoded file reads back differently")
			}
		}
		check(data)
		if len(data) > envelope.HeaderLen+envelope.TrailerLen {
			check(fixCRC(slices.Clone(data)))
		}
		if len(data) > trailerLen {
			check(appendTrailer(slices.Clone(data[:len(data)-trailerLen])))
		}
		if len(data) > 0 {
			// Version 1 (no policy flag) and the envelope; version 2's
			// payload is version 3's.
			check(rawFileVersion(1, data[0], data[1:]))
			check(rawFile(data[0], data[1:]))
		}
	})
}

// ReadHeader gives the header ReadFile gives, of every stored version, and
// refuses a damaged file naming it.
func TestReadHeader(t *testing.T) {
	files, err := filepath.Glob("testdata/games-v*.dgames")
	if err != nil || len(files) == 0 {
		t.Fatalf("no test chunks: %v", err)
	}
	for _, f := range files {
		want, games, err := ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ReadHeader(f)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if got != want || got.Games != len(games) {
			t.Errorf("%s: header %+v, want %+v with %d games", f, got, want, len(games))
		}
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0xff
	bad := filepath.Join(t.TempDir(), "bad.dgames")
	if err := os.WriteFile(bad, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadHeader(bad); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("damaged file: %v, want an error naming %s", err, bad)
	}
}
