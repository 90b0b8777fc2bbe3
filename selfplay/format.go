package selfplay

import (
	"bufio"
	"bytes"
	"compress/flate"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"sync"
	"time"

	"dama/internal/atomicfile"
	"dama/internal/envelope"
	"dama/rules"
)

// FormatVersion is the version of the game file format this package
// writes; the reader also reads versions 1 and 2 (see below).
//
// Self-play games are stored in chunk files of whole games. A worker names
// its files
//
//	<dir>/chunk-<worker>-<seq>.dgames
//
// where worker is a name of letters, digits, '_', '.' and '-' that is unique
// among the workers sharing dir, and seq counts the worker's chunks from
// 000000 (six or more decimal digits). A file is written under a temporary
// name in the same folder (starting with '.', ending in ".tmp" and random
// digits) and renamed into place, so readers that list "*.dgames" see only
// whole files.
//
// Format version 3 is an envelope of internal/envelope (magic "DAMAGAME",
// version, length, CRC-32C) around the payload below. Integers are
// little-endian; a uvarint is encoding/binary's unsigned varint; a string
// is a uvarint byte length (at most 4096) followed by UTF-8 bytes; a
// float32 is its IEEE 754 bits as a uint32. A position is 13 bytes:
// White's squares, Black's squares and the kings' squares as uint32
// rules.SquareSet values (bit s-1 for square s), then the side to move (0
// White, 1 Black). A move is 6 bytes: its start square, its end square
// (1..32, one byte each) and the uint32 SquareSet of the pieces it
// captures; these identify a legal move of its position uniquely.
//
//	payload header (uncompressed)
//	  model     string   name of the model that played (e.g. its file name)
//	  digest    string   the model's digest: from version 5, "sha256:" and
//	                       the hex SHA-256 of the checkpoint file (ModelDigest);
//	                       before, run-folder workers wrote the network's
//	                       config digest, "/", the training step
//	  created   int64    creation time, Unix nanoseconds
//	  config    string   the self-play Config.Digest
//	  games     uint32   number of games in the body
//	body: the games, one after another, compressed as one raw DEFLATE
//	stream (compress/flate); each game is
//	  seed        uint64   Game.Seed
//	  flags       uint8    bit 0: Game.NoResign; other bits 0
//	  result      uint8    rules.Result: 1 White wins, 2 Black wins, 3 draw
//	  end         uint8    Termination: 1 no moves, 2 repetition,
//	                       3 40-move rule, 4 length cap, 5 resignation,
//	                       6 table adjudication (version 6 on)
//	  wouldResign uvarint  Game.WouldResign+1 (0: never)
//	  resignWDL   3 float32 Game.ResignWDL, only when end is 5
//	                       (resignation; version 4 on)
//	  start       position Game.Start
//	  plies       uvarint  number of plies, then each ply:
//	    pos       position Ply.Pos; the first is start, each next one is
//	                       the previous one after its played move
//	    flags     uint8    bit 0: Ply.Full; bit 1: a policy target
//	                       follows the played move; other bits 0
//	    reps      uint8    Ply.Repetitions (0..2)
//	    quiet     uint8    Ply.QuietPlies (0..80)
//	    wdl       3 float32 Ply.WDL
//	    legal     uvarint  number of legal moves (all of them, 1..128),
//	                       then per move: move (6 bytes), visits uvarint
//	    played    uvarint  Ply.Move, an index into the legal moves
//	    policy    uint16 per legal move, in the order listed, when flag
//	              bit 1 is set: Ply.Policy quantised, round(p * 65535)
//	              (at least one not 0)
//
// Versions 1 and 2 (written before the shared envelope) hold the same
// payload in another frame:
//
//	magic     8 bytes  "DAMAGAME"
//	version   uint16   1 or 2
//	payload   as above
//	trailer   length uint64 (bytes before the trailer), CRC-32 (IEEE) of
//	          those bytes uint32, magic "DEND"
//
// and version 1 has no policy targets (ply flag bit 1 is always clear).
// Versions before 4 do not record the values of a resignation (resignWDL):
// Game.ResignWDL reads as zeros. Version 5 has the layout of version 4; it
// says that the model digest is the checkpoint file's SHA-256. Version 6
// has the layout of version 5 and adds termination 6, a table
// adjudication (Tables): the final position is in the run's endgame
// tables and the result is theirs; the reader refuses termination 6 in
// an older version.
// The envelope's uint32 version starts with the same uint16, so Decode
// tells the layouts apart by it: 1 and 2 are the old frame, any other
// value the envelope. Header.Version says which version was read.
//
// The reader checks everything: the frame (errors are *envelope.Error:
// ErrMagic, ErrVersion, ErrTruncated, ErrLength, ErrChecksum), and that
// every position is possible, every move legal, every list complete and
// the plies chain from the start position through the moves played
// (ErrMalformed).
const FormatVersion = 6

// minVersion is the oldest format version the reader reads; versions up to
// lastLegacy are in the frame before the envelope.
const (
	minVersion = 1
	lastLegacy = 2
	// resignValuesVersion is the first version that records the values
	// of a resignation (Game.ResignWDL).
	resignValuesVersion = 4
	// modelFileVersion is the first version whose model digest is always
	// ModelDigest of the checkpoint file (Checker refuses another form).
	modelFileVersion = 5
	// tablesVersion is the first version with table adjudications
	// (Tables): from it on, Checker also refuses a game that plays on
	// inside the run's tables.
	tablesVersion = 6
)

// ModelDigest returns the digest chunks record of the model whose
// checkpoint file holds data: "sha256:" and the hex SHA-256 of the bytes.
func ModelDigest(data []byte) string {
	sum := sha256.Sum256(data)
	return modelDigestPrefix + hex.EncodeToString(sum[:])
}

const modelDigestPrefix = "sha256:"

// fileFormat is the games file's envelope. Open sees only versions past
// lastLegacy: Decode sends older files to openLegacy first.
var fileFormat = envelope.Format{
	Kind:       "games file",
	Magic:      [8]byte([]byte(fileMagic)),
	MinVersion: minVersion,
	MaxVersion: FormatVersion,
}

// quantizePolicy maps a policy probability to its stored uint16.
func quantizePolicy(p float32) uint16 {
	return uint16(math.Round(float64(min(max(p, 0), 1)) * 65535))
}

// policyValue maps a stored uint16 back to a probability.
func policyValue(q uint16) float32 { return float32(q) / 65535 }

// FileExt is the extension of game chunk files.
const FileExt = ".dgames"

const (
	fileMagic    = "DAMAGAME"
	trailerMagic = "DEND"
	trailerLen   = 16
	maxString    = 4096
	maxBody      = 1 << 30 // uncompressed body bytes the reader accepts
	maxFileSize  = 1 << 30 // file bytes ReadFile reads
)

// Header describes a games file.
type Header struct {
	Version      int       // format version (set by the reader; Encode writes FormatVersion)
	Model        string    // the model that played
	ModelDigest  string    // its digest
	Created      time.Time // when the file was written (zero: Encode uses the current time)
	ConfigDigest string    // Config.Digest of the self-play settings
	Games        int       // number of games (set by the reader; Encode uses len(games))
}

// Encode writes a games file holding games to w.
func Encode(w io.Writer, h Header, games []*Game) error {
	return encodeVersion(w, h, games, FormatVersion)
}

// encodeVersion writes a games file of the given version past lastLegacy
// (tests write the payloads of older versions with it).
func encodeVersion(w io.Writer, h Header, games []*Game, version uint32) error {
	for _, s := range []struct{ name, v string }{{"model", h.Model}, {"model digest", h.ModelDigest}, {"config digest", h.ConfigDigest}} {
		if len(s.v) > maxString {
			return fmt.Errorf("selfplay: header %s is %d bytes, more than %d", s.name, len(s.v), maxString)
		}
	}
	if h.Created.IsZero() {
		h.Created = time.Now()
	}
	buf := bytes.NewBuffer(fileFormat.Begin(nil, version))
	for _, s := range []string{h.Model, h.ModelDigest} {
		putString(buf, s)
	}
	buf.Write(binary.LittleEndian.AppendUint64(nil, uint64(h.Created.UnixNano())))
	putString(buf, h.ConfigDigest)
	buf.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(games))))

	fw := flateWriters.Get().(*flate.Writer)
	defer flateWriters.Put(fw)
	fw.Reset(buf)
	bw := bufio.NewWriter(fw)
	var scratch []byte
	var err error
	for i, g := range games {
		scratch, err = appendGame(scratch[:0], g, version)
		if err != nil {
			return fmt.Errorf("selfplay: game %d: %w", i, err)
		}
		bw.Write(scratch)
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := fw.Close(); err != nil {
		return err
	}
	_, err = w.Write(envelope.Seal(buf.Bytes(), 0))
	return err
}

// flateWriters keeps the compressors of Encode: one allocates about a
// megabyte, more than most chunks it writes.
var flateWriters = sync.Pool{New: func() any {
	w, err := flate.NewWriter(nil, flate.DefaultCompression)
	if err != nil {
		panic(err) // a valid level
	}
	return w
}}

// flateReaders keeps the decompressors of the reader (flate.NewReader's,
// about 40 KB each).
var flateReaders sync.Pool

func putString(buf *bytes.Buffer, s string) {
	buf.Write(binary.AppendUvarint(nil, uint64(len(s))))
	buf.WriteString(s)
}

func appendPos(b []byte, p rules.Position) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(p.Pieces(rules.White)))
	b = binary.LittleEndian.AppendUint32(b, uint32(p.Pieces(rules.Black)))
	b = binary.LittleEndian.AppendUint32(b, uint32(p.Kings(rules.White)|p.Kings(rules.Black)))
	return append(b, byte(p.Side()))
}

func appendGame(b []byte, g *Game, version uint32) ([]byte, error) {
	if g.Result < rules.WhiteWins || g.Result > rules.Draw {
		return nil, fmt.Errorf("result %v is not a finished game's", g.Result)
	}
	if g.End < NoMoves || g.End > Tables || g.End == Tables && version < tablesVersion {
		return nil, fmt.Errorf("termination %d is unknown in format version %d", g.End, version)
	}
	if g.WouldResign < -1 || g.WouldResign >= len(g.Plies) && g.WouldResign != -1 {
		return nil, fmt.Errorf("would-resign ply %d outside the game's %d plies", g.WouldResign, len(g.Plies))
	}
	b = binary.LittleEndian.AppendUint64(b, g.Seed)
	var flags byte
	if g.NoResign {
		flags |= 1
	}
	b = append(b, flags, byte(g.Result), byte(g.End))
	b = binary.AppendUvarint(b, uint64(g.WouldResign+1))
	if g.End == Resigned && version >= resignValuesVersion {
		for _, x := range g.ResignWDL {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
		}
	}
	b = appendPos(b, g.Start)
	b = binary.AppendUvarint(b, uint64(len(g.Plies)))
	for i := range g.Plies {
		p := &g.Plies[i]
		if len(p.Legal) == 0 || len(p.Legal) > rules.MaxMoves || len(p.Visits) != len(p.Legal) || p.Move < 0 || p.Move >= len(p.Legal) {
			return nil, fmt.Errorf("ply %d: %d legal moves, %d visit counts, move index %d", i, len(p.Legal), len(p.Visits), p.Move)
		}
		if p.Repetitions < 0 || p.Repetitions > 2 || p.QuietPlies < 0 || p.QuietPlies > rules.QuietLimit {
			return nil, fmt.Errorf("ply %d: repetitions %d, quiet plies %d out of range", i, p.Repetitions, p.QuietPlies)
		}
		if p.Policy != nil {
			if len(p.Policy) != len(p.Legal) {
				return nil, fmt.Errorf("ply %d: %d policy values for %d legal moves", i, len(p.Policy), len(p.Legal))
			}
			var sum int
			for _, x := range p.Policy {
				if !(x >= 0 && x <= 1) {
					return nil, fmt.Errorf("ply %d: policy value %v outside [0,1]", i, x)
				}
				sum += int(quantizePolicy(x))
			}
			if sum == 0 {
				return nil, fmt.Errorf("ply %d: policy target of zeros", i)
			}
		}
		b = appendPos(b, p.Pos)
		flags = 0
		if p.Full {
			flags |= 1
		}
		if p.Policy != nil {
			flags |= 2
		}
		b = append(b, flags, byte(p.Repetitions), byte(p.QuietPlies))
		for _, x := range p.WDL {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
		}
		b = binary.AppendUvarint(b, uint64(len(p.Legal)))
		for j, m := range p.Legal {
			b = append(b, byte(m.From()), byte(m.To()))
			b = binary.LittleEndian.AppendUint32(b, uint32(m.Captured()))
			b = binary.AppendUvarint(b, uint64(p.Visits[j]))
		}
		b = binary.AppendUvarint(b, uint64(p.Move))
		for _, x := range p.Policy {
			b = binary.LittleEndian.AppendUint16(b, quantizePolicy(x))
		}
	}
	return b, nil
}

// Decode reads a games file held in data, of any version the reader
// knows. Its errors are *envelope.Error values.
func Decode(data []byte) (Header, []*Game, error) {
	version, payload, err := openFile(data)
	if err != nil {
		return Header{}, nil, err
	}
	return decodePayload(payload, version)
}

// openFile checks the frame of a games file of any version and returns its
// version and payload.
func openFile(data []byte) (uint32, []byte, error) {
	if v, ok := legacyVersion(data); ok {
		return openLegacy(data, v)
	}
	return fileFormat.Open(data)
}

// legacyVersion returns the version of a file in the frame before the
// envelope (versions 1 and 2).
func legacyVersion(data []byte) (uint32, bool) {
	if len(data) < len(fileMagic)+2 || string(data[:len(fileMagic)]) != fileMagic {
		return 0, false
	}
	v := uint32(binary.LittleEndian.Uint16(data[len(fileMagic):]))
	return v, v >= minVersion && v <= lastLegacy
}

// openLegacy opens a file of version 1 or 2: it checks the trailer and
// its CRC-32 (IEEE) and returns the payload, laid out as in the envelope.
func openLegacy(data []byte, version uint32) (uint32, []byte, error) {
	fail := func(sentinel error, format string, args ...any) (uint32, []byte, error) {
		return 0, nil, fileFormat.Fail(sentinel, version, format, args...)
	}
	start := len(fileMagic) + 2
	if len(data) < start+trailerLen || string(data[len(data)-4:]) != trailerMagic {
		return fail(envelope.ErrTruncated, "version %d file of %d bytes without its trailer", version, len(data))
	}
	t := data[len(data)-trailerLen:]
	n := binary.LittleEndian.Uint64(t)
	if n != uint64(len(data)-trailerLen) {
		return fail(envelope.ErrTruncated, "version %d trailer gives %d bytes before it, the file has %d", version, n, len(data)-trailerLen)
	}
	if got, want := crc32.ChecksumIEEE(data[:n]), binary.LittleEndian.Uint32(t[8:]); got != want {
		return fail(envelope.ErrChecksum, "version %d file: CRC-32 %08x, trailer says %08x", version, got, want)
	}
	return version, data[start:n], nil
}

// decodePayload decodes the header and games of a payload of the given
// version.
func decodePayload(data []byte, version uint32) (Header, []*Game, error) {
	fail := func(format string, args ...any) (Header, []*Game, error) {
		return Header{}, nil, fileFormat.Malformed(version, format, args...)
	}
	h, body, err := readPayload(data, version)
	if err != nil {
		return Header{}, nil, err
	}
	br := &byteReader{envelope.Reader{Buf: body}}
	games := make([]*Game, 0, min(h.Games, 1024))
	legal := make([]rules.Move, 0, rules.MaxMoves)
	for i := 0; i < h.Games; i++ {
		off := br.Off
		g, err := readGame(br, legal, h.Version)
		if err != nil {
			return fail("game %d (body offset %d): %v", i, off, err)
		}
		games = append(games, g)
	}
	if br.Off != len(body) {
		return fail("%d bytes after the last of %d games in the body", len(body)-br.Off, h.Games)
	}
	return h, games, nil
}

// readPayload reads the header of a payload of the given version and
// inflates its body.
func readPayload(data []byte, version uint32) (Header, []byte, error) {
	fail := func(format string, args ...any) (Header, []byte, error) {
		return Header{}, nil, fileFormat.Malformed(version, format, args...)
	}
	h, r := readHeader(data, version)
	if r.Err != nil {
		return fail("header: %v", r.Err)
	}
	src := bytes.NewReader(data[r.Off:])
	fr, _ := flateReaders.Get().(io.ReadCloser)
	if fr == nil {
		fr = flate.NewReader(src)
	} else if err := fr.(flate.Resetter).Reset(src, nil); err != nil {
		return fail("compressed body: %v", err)
	}
	defer flateReaders.Put(fr)
	body, err := io.ReadAll(io.LimitReader(fr, maxBody+1))
	if err != nil {
		return fail("compressed body at payload offset %d: %v", r.Off, err)
	}
	if len(body) > maxBody {
		return fail("body expands to more than %d bytes", maxBody)
	}
	return h, body, nil
}

// readHeader reads the header at the start of a payload of the given
// version; the reader's Err says whether it failed, its Off where the
// compressed body begins.
func readHeader(data []byte, version uint32) (Header, *byteReader) {
	h := Header{Version: int(version)}
	r := &byteReader{envelope.Reader{Buf: data}}
	h.Model = r.str("model name")
	h.ModelDigest = r.str("model digest")
	h.Created = time.Unix(0, int64(r.U64("creation time")))
	h.ConfigDigest = r.str("config digest")
	h.Games = int(r.U32("game count"))
	return h, r
}

// byteReader reads the fields of a chunk's payload.
type byteReader struct{ envelope.Reader }

func (r *byteReader) str(what string) string {
	n := r.Uvarint(what+" length", maxString)
	return string(r.Take(int(n), what))
}

func (r *byteReader) pos(what string) rules.Position {
	w := rules.SquareSet(r.U32(what + " white"))
	b := rules.SquareSet(r.U32(what + " black"))
	k := rules.SquareSet(r.U32(what + " kings"))
	side := r.U8(what + " side")
	if r.Err != nil {
		return rules.Position{}
	}
	switch {
	case w&b != 0:
		r.Fail("%s: squares %v hold both colours", what, (w & b).Squares())
	case k&^(w|b) != 0:
		r.Fail("%s: kings on empty squares %v", what, (k &^ (w | b)).Squares())
	case side > 1:
		r.Fail("%s: side to move %d", what, side)
	case w&^k&0xF != 0:
		r.Fail("%s: white men on Black's back row %v", what, (w &^ k & 0xF).Squares())
	case b&^k&0xF0000000 != 0:
		r.Fail("%s: black men on White's back row %v", what, (b &^ k & 0xF0000000).Squares())
	}
	if r.Err != nil {
		return rules.Position{}
	}
	var board [rules.NumSquares]rules.Piece
	for s := rules.Square(1); s <= rules.NumSquares; s++ {
		switch {
		case w.Has(s) && k.Has(s):
			board[s-1] = rules.WhiteKing
		case w.Has(s):
			board[s-1] = rules.WhiteMan
		case b.Has(s) && k.Has(s):
			board[s-1] = rules.BlackKing
		case b.Has(s):
			board[s-1] = rules.BlackMan
		}
	}
	return rules.NewPosition(board, rules.Color(side))
}

// validWDL reports probabilities each in [0, 1] whose sum is at most 1 (a
// forced move's ply holds zeros), with room for rounding.
func validWDL(wdl [3]float32) bool {
	var sum float32
	for _, x := range wdl {
		if !(x >= 0 && x <= 1) { // NaN fails too
			return false
		}
		sum += x
	}
	return sum <= 1.001
}

func readGame(r *byteReader, legal []rules.Move, version int) (*Game, error) {
	plyFlags := uint8(3) // the ply flags of the version
	if version == 1 {
		plyFlags = 1
	}
	g := &Game{}
	g.Seed = r.U64("seed")
	flags := r.U8("flags")
	g.Result = rules.Result(r.U8("result"))
	g.End = Termination(r.U8("termination"))
	wr := r.Uvarint("would-resign ply", math.MaxInt32)
	if g.End == Resigned && version >= resignValuesVersion {
		for j := range g.ResignWDL {
			g.ResignWDL[j] = math.Float32frombits(r.U32("resignation W/D/L"))
		}
	}
	g.Start = r.pos("start position")
	n := r.Uvarint("ply count", math.MaxInt32)
	if r.Err != nil {
		return nil, r.Err
	}
	switch {
	case flags&^1 != 0:
		return nil, fmt.Errorf("unknown game flags %#x", flags)
	case g.Result < rules.WhiteWins || g.Result > rules.Draw:
		return nil, fmt.Errorf("result %d is not a finished game's", g.Result)
	case g.End < NoMoves || g.End > Tables || g.End == Tables && version < tablesVersion:
		return nil, fmt.Errorf("unknown termination %d in format version %d", g.End, version)
	case wr > n:
		return nil, fmt.Errorf("would-resign ply %d outside the game's %d plies", int(wr)-1, n)
	case !validWDL(g.ResignWDL):
		return nil, fmt.Errorf("resignation W/D/L %v out of range (each in [0,1], summing to at most 1)", g.ResignWDL)
	}
	g.NoResign = flags&1 != 0
	g.WouldResign = int(wr) - 1
	pos := g.Start
	for i := 0; i < int(n); i++ {
		var p Ply
		p.Pos = r.pos("position")
		flags := r.U8("ply flags")
		p.Repetitions = int(r.U8("repetitions"))
		p.QuietPlies = int(r.U8("quiet plies"))
		for j := range p.WDL {
			p.WDL[j] = math.Float32frombits(r.U32("WDL"))
		}
		nl := r.Uvarint("legal move count", rules.MaxMoves)
		if r.Err != nil {
			return nil, fmt.Errorf("ply %d: %v", i, r.Err)
		}
		switch {
		case p.Pos != pos:
			return nil, fmt.Errorf("ply %d: position %s, but the moves lead to %s", i, p.Pos.FEN(), pos.FEN())
		case flags&^plyFlags != 0:
			return nil, fmt.Errorf("ply %d: unknown flags %#x", i, flags)
		case p.Repetitions > 2 || p.QuietPlies > rules.QuietLimit:
			return nil, fmt.Errorf("ply %d: repetitions %d, quiet plies %d out of range", i, p.Repetitions, p.QuietPlies)
		case nl == 0:
			return nil, fmt.Errorf("ply %d: position %s has no legal move; the game ended before it", i, p.Pos.FEN())
		case !validWDL(p.WDL):
			return nil, fmt.Errorf("ply %d: W/D/L %v out of range (each in [0,1], summing to at most 1)", i, p.WDL)
		}
		p.Full = flags&1 != 0
		legal = pos.Legal(legal)
		if int(nl) != len(legal) {
			return nil, fmt.Errorf("ply %d: %d moves listed, the position %s has %d", i, nl, pos.FEN(), len(legal))
		}
		p.Legal = make([]rules.Move, nl)
		p.Visits = make([]uint32, nl)
		var seen [rules.MaxMoves]bool
		for j := range p.Legal {
			from, to := r.U8("move start"), r.U8("move end")
			capt := rules.SquareSet(r.U32("move captures"))
			p.Visits[j] = uint32(r.Uvarint("visits", math.MaxUint32))
			if r.Err != nil {
				return nil, fmt.Errorf("ply %d move %d: %v", i, j, r.Err)
			}
			k := -1
			for x, m := range legal {
				if m.From() == rules.Square(from) && m.To() == rules.Square(to) && m.Captured() == capt {
					k = x
					break
				}
			}
			if k < 0 {
				return nil, fmt.Errorf("ply %d move %d: %d-%d capturing %v is not legal in %s", i, j, from, to, capt.Squares(), pos.FEN())
			}
			if seen[k] {
				return nil, fmt.Errorf("ply %d move %d: %v listed twice", i, j, legal[k])
			}
			seen[k] = true
			p.Legal[j] = legal[k]
		}
		p.Move = int(r.Uvarint("played move", nl-1))
		if flags&2 != 0 {
			p.Policy = make([]float32, nl)
			var sum int
			for j := range p.Policy {
				q := r.U16("policy")
				sum += int(q)
				p.Policy[j] = policyValue(q)
			}
			if r.Err == nil && sum == 0 {
				return nil, fmt.Errorf("ply %d: policy target of zeros", i)
			}
		}
		if r.Err != nil {
			return nil, fmt.Errorf("ply %d: %v", i, r.Err)
		}
		g.Plies = append(g.Plies, p)
		pos = pos.Play(p.Legal[p.Move])
	}
	return g, nil
}

// ReadFile reads a games file. Its errors name the file.
func ReadFile(path string) (Header, []*Game, error) {
	data, err := fileFormat.ReadFile(path, maxFileSize)
	if err != nil {
		return Header{}, nil, err
	}
	h, games, err := Decode(data)
	return h, games, envelope.WithPath(err, path)
}

// ReadHeader reads the header of a games file, its frame and checksum
// checked but its games not decoded: what counting games needs. Its errors
// name the file.
func ReadHeader(path string) (Header, error) {
	data, err := fileFormat.ReadFile(path, maxFileSize)
	if err != nil {
		return Header{}, err
	}
	version, payload, err := openFile(data)
	if err != nil {
		return Header{}, envelope.WithPath(err, path)
	}
	h, r := readHeader(payload, version)
	if r.Err != nil {
		return Header{}, envelope.WithPath(fileFormat.Malformed(version, "header: %v", r.Err), path)
	}
	return h, nil
}

// WriteFile writes a games file to path, under a temporary name in the same
// folder first and renamed into place once complete.
func WriteFile(path string, h Header, games []*Game) error {
	var buf bytes.Buffer
	if err := Encode(&buf, h, games); err != nil {
		return err
	}
	if err := atomicfile.WriteFile(path, buf.Bytes()); err != nil {
		return fmt.Errorf("selfplay: %w", err)
	}
	return nil
}
