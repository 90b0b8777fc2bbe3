package selfplay

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash"
	"maps"
	"math"
	"slices"
	"sync"

	"dama/internal/envelope"
	"dama/rules"
)

// GameID is a game's identity in a run: its seed and a digest of its
// moves. A run takes no game whose seed, or whose moves, it already holds
// (GameIndex, Checker.Held): a chunk copied under another name, whole or
// in part, is refused, whatever else was changed in it.
//
// The seed alone would not do: it is a number the chunk states, and a
// worker can give a copied game a new one (with the settings digest
// recomputed for a new base seed) for the price of a few hashes. The
// moves fix what is trained on: every training position of a game
// follows from its start and its moves (the targets at them are the
// search's, which no check can recompute). A copy whose moves are the
// original's is refused whatever its seed, header, name, search targets
// or results say. To get past the check a copy must play another move
// somewhere, and from that ply on it is another game: other positions,
// whose legal moves the decoder checks and whose search targets and
// result Checker checks only for their form and consistency. Such a game
// is not a replay; it is made up, and no check of a chunk can tell a
// game the network played from one a worker invented with the same
// care: that is what a worker's credential (the broker's roles and
// signatures) vouches for. The check guarantees that no game, as played,
// is trained on twice, not that every game was played by the network.
//
// Moves is the first 8 bytes of the SHA-256 of a version line, the start
// position as the chunk format writes it and each move played (start
// square, end square, captured squares as the format writes a move).
// Finding another sequence of moves with the same 64 bits, to have an
// honest game refused in place of a copy, costs about 2^64 hashes;
// different games collide by chance with probability about n^2/2^65 for
// n games (1 in 40 million for a million games). Two honest games of
// the same moves are refused as well: the same positions, which
// self-play is likely to play twice only with little randomness (few
// temperature plies and no root noise); with none, every game of a model
// is the same, and only its first is taken.
type GameID struct {
	Seed  uint64
	Moves uint64
}

// movesVersion opens the hashed text of GameID.Moves: a new form of the
// digest gets a new line.
const movesVersion = "dama game moves 1\n"

// ID returns g's identity.
func (g *Game) ID() GameID {
	h := sha256.New()
	h.Write([]byte(movesVersion))
	b := appendPos(make([]byte, 0, 13+6*len(g.Plies)), g.Start)
	for i := range g.Plies {
		m := g.Plies[i].Played()
		b = append(b, byte(m.From()), byte(m.To()))
		b = binary.LittleEndian.AppendUint32(b, uint32(m.Captured()))
	}
	h.Write(b)
	return GameID{Seed: g.Seed, Moves: sum64(h)}
}

func sum64(h hash.Hash) uint64 {
	var buf [sha256.Size]byte
	return binary.BigEndian.Uint64(h.Sum(buf[:0]))
}

// IDs returns the identities of games.
func IDs(games []*Game) []GameID {
	ids := make([]GameID, len(games))
	for i, g := range games {
		ids[i] = g.ID()
	}
	return ids
}

// ChunkSummary is what a run keeps of a chunk it has taken: its games'
// identities and how many training targets they give.
type ChunkSummary struct {
	IDs []GameID // one per game, in the chunk's order
	// Targets counts the plies with a policy target: searched in full,
	// with more than one legal move, and with visits or a stored target.
	// The trainer makes one training sample of each.
	Targets int
}

// Targets returns the number of g's plies with a policy target (see
// ChunkSummary.Targets).
func (g *Game) Targets() int {
	n := 0
	for i := range g.Plies {
		if p := &g.Plies[i]; p.Full && len(p.Legal) > 1 && (p.Policy != nil || visitSum(p) > 0) {
			n++
		}
	}
	return n
}

func visitSum(p *Ply) uint64 {
	var n uint64
	for _, v := range p.Visits {
		n += uint64(v)
	}
	return n
}

// ScanFile summarises the chunk file at path (Scan); its errors name the
// file.
func ScanFile(path string) (ChunkSummary, error) {
	data, err := fileFormat.ReadFile(path, maxFileSize)
	if err != nil {
		return ChunkSummary{}, err
	}
	s, err := Scan(data)
	return s, envelope.WithPath(err, path)
}

// Scan summarises the games file held in data as Decode and the games'
// ID and Targets would, several times faster: it checks the frame and the
// checksum and walks the body, but not that the positions and moves are
// legal. It is for chunks that a run checked when it took them (rebuilding
// its GameIndex on resume); Decode is the reader of new chunks. Its errors
// are *envelope.Error values.
func Scan(data []byte) (ChunkSummary, error) {
	version, payload, err := openFile(data)
	if err != nil {
		return ChunkSummary{}, err
	}
	h, body, err := readPayload(payload, version)
	if err != nil {
		return ChunkSummary{}, err
	}
	fail := func(format string, args ...any) (ChunkSummary, error) {
		return ChunkSummary{}, fileFormat.Malformed(version, format, args...)
	}
	var s ChunkSummary
	s.IDs = make([]GameID, 0, min(h.Games, 1024))
	r := &byteReader{envelope.Reader{Buf: body}}
	sc := &scanner{h: sha256.New()}
	for i := 0; i < h.Games; i++ {
		off := r.Off
		id, targets := sc.game(r, int(version))
		if r.Err != nil {
			return fail("game %d (body offset %d): %v", i, off, r.Err)
		}
		s.IDs = append(s.IDs, id)
		s.Targets += targets
	}
	if r.Off != len(body) {
		return fail("%d bytes after the last of %d games in the body", len(body)-r.Off, h.Games)
	}
	return s, nil
}

// scanner walks the games of a body for Scan.
type scanner struct {
	h     hash.Hash
	moves []byte
	at    [rules.MaxMoves]int // body offset of each listed move of a ply
}

// game reads one game of r's body (of the given format version), as
// readGame lays it out, and returns its identity and its plies with a
// policy target; an error is left in r.Err.
func (sc *scanner) game(r *byteReader, version int) (GameID, int) {
	seed := r.U64("seed")
	r.U8("flags")
	r.U8("result")
	end := Termination(r.U8("termination"))
	r.Uvarint("would-resign ply", math.MaxInt32)
	if end == Resigned && version >= resignValuesVersion {
		r.Take(12, "resignation W/D/L")
	}
	sc.moves = append(sc.moves[:0], r.Take(13, "start position")...)
	n := r.Uvarint("ply count", math.MaxInt32)
	targets := 0
	for i := 0; i < int(n) && r.Err == nil; i++ {
		r.Take(13, "position")
		flags := r.U8("ply flags")
		r.Take(2+12, "counters and WDL")
		nl := int(r.Uvarint("legal move count", rules.MaxMoves))
		if r.Err == nil && (nl == 0 || version == 1 && flags&2 != 0) {
			r.Fail("ply %d: %d legal moves, flags %#x", i, nl, flags)
		}
		if r.Err != nil {
			break
		}
		var visits uint64
		for j := 0; j < nl; j++ {
			sc.at[j] = r.Off
			r.Take(6, "move")
			visits += r.Uvarint("visits", math.MaxUint32)
		}
		played := int(r.Uvarint("played move", uint64(nl-1)))
		policy := flags&2 != 0
		if policy {
			r.Take(2*nl, "policy")
		}
		if r.Err != nil {
			break
		}
		at := sc.at[played]
		sc.moves = append(sc.moves, r.Buf[at:at+6]...)
		if flags&1 != 0 && nl > 1 && (policy || visits > 0) {
			targets++
		}
	}
	sc.h.Reset()
	sc.h.Write([]byte(movesVersion))
	sc.h.Write(sc.moves)
	return GameID{Seed: seed, Moves: sum64(sc.h)}, targets
}

// GameIndex is the set of games a run holds, by their GameID, each with
// the chunk that holds it; the trainer's is rebuilt on resume from the
// chunks its generation plans name and grows with each chunk it takes.
// Each key (seed, moves) is kept in a sorted array with its chunk's
// number, the newest in a map merged into them once it holds an eighth as
// many: about 28 bytes a game (under 3 MB for 100,000 games), a lookup a
// binary search. It is safe for concurrent use.
type GameIndex struct {
	mu     sync.Mutex
	seeds  keyIndex
	moves  keyIndex
	names  []string
	chunks map[string]int32
}

// keyIndex maps 64-bit keys to chunk numbers.
type keyIndex struct {
	keys   []uint64 // sorted
	chunks []int32  // chunks[i] holds keys[i]
	recent map[uint64]int32
}

func (k *keyIndex) get(key uint64) (int32, bool) {
	if c, ok := k.recent[key]; ok {
		return c, true
	}
	if i, ok := slices.BinarySearch(k.keys, key); ok {
		return k.chunks[i], true
	}
	return 0, false
}

func (k *keyIndex) len() int { return len(k.keys) + len(k.recent) }

// put adds a key that get does not find.
func (k *keyIndex) put(key uint64, c int32) {
	if k.recent == nil {
		k.recent = map[uint64]int32{}
	}
	k.recent[key] = c
	if len(k.recent) >= max(1024, len(k.keys)/8) {
		k.merge()
	}
}

// merge moves the recent keys into the sorted arrays.
func (k *keyIndex) merge() {
	add := slices.Sorted(maps.Keys(k.recent))
	keys := make([]uint64, 0, len(k.keys)+len(add))
	chunks := make([]int32, 0, cap(keys))
	i := 0
	for _, key := range add {
		for ; i < len(k.keys) && k.keys[i] < key; i++ {
			keys, chunks = append(keys, k.keys[i]), append(chunks, k.chunks[i])
		}
		keys, chunks = append(keys, key), append(chunks, k.recent[key])
	}
	k.keys, k.chunks = append(keys, k.keys[i:]...), append(chunks, k.chunks[i:]...)
	clear(k.recent)
}

// NewGameIndex returns an empty index.
func NewGameIndex() *GameIndex {
	return &GameIndex{chunks: map[string]int32{}}
}

// Len returns the number of games held.
func (x *GameIndex) Len() int {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.moves.len()
}

// Add records ids as the games of the chunk called name. A game whose
// seed or moves the index holds already, of another chunk or earlier in
// ids, keeps its first holder; repeats counts those games.
func (x *GameIndex) Add(name string, ids []GameID) (repeats int) {
	x.mu.Lock()
	defer x.mu.Unlock()
	c, ok := x.chunks[name]
	if !ok {
		c = int32(len(x.names))
		x.names = append(x.names, name)
		x.chunks[name] = c
	}
	for _, id := range ids {
		s, seen := x.seeds.get(id.Seed)
		m, played := x.moves.get(id.Moves)
		if seen && s != c || played && m != c {
			repeats++
		}
		if !seen {
			x.seeds.put(id.Seed, c)
		}
		if !played {
			x.moves.put(id.Moves, c)
		}
	}
	return repeats
}

// Repeat returns the first game of ids, the games of the chunk called
// name, that repeats a game the index holds of another chunk, or another
// game of ids, with what it repeats; ok is false when none does. The
// games the index holds of name itself (the same chunk delivered again,
// or checked again) are not repeats.
func (x *GameIndex) Repeat(name string, ids []GameID) (game int, why string, ok bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	own, isOwn := x.chunks[name]
	holder := func(k *keyIndex, key uint64) (string, bool) {
		c, found := k.get(key)
		if !found || isOwn && c == own {
			return "", false
		}
		return x.names[c], true
	}
	seeds := make(map[uint64]int, len(ids))
	moves := make(map[uint64]int, len(ids))
	for i, id := range ids {
		if c, ok := holder(&x.seeds, id.Seed); ok {
			return i, fmt.Sprintf("has seed %d, as a game of %s, which the run holds", id.Seed, c), true
		}
		if c, ok := holder(&x.moves, id.Moves); ok {
			return i, fmt.Sprintf("repeats the moves of a game of %s, which the run holds (moves digest %016x)", c, id.Moves), true
		}
		if j, ok := seeds[id.Seed]; ok {
			return i, fmt.Sprintf("has seed %d, as game %d of this chunk", id.Seed, j), true
		}
		if j, ok := moves[id.Moves]; ok {
			return i, fmt.Sprintf("repeats the moves of game %d of this chunk", j), true
		}
		seeds[id.Seed], moves[id.Moves] = i, i
	}
	return 0, "", false
}
