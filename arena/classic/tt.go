package classic

// The transposition table: buckets of two entries, one kept for depth (the
// deepest of the current search wins) and one always replaced.
//
// History and the table. A score can depend on the game's history, not only
// on the position: through threefold repetition (a draw because an earlier
// position recurs) and the 40-move rule (a draw because of the counter).
// Three rules keep such scores out of the table's cutoffs:
//
//   - A node whose subtree met a draw by repetition or by the 40-move rule
//     stores only its best move (boundMove), never its score: that score may
//     owe to positions on this path that another path does not have.
//   - A node takes a cutoff only if its 40-move counter is 0, or far enough
//     from the limit that the rule cannot strike within its remaining depth
//     (counter + depth + 2 < QuietLimit; the one extension past the horizon
//     is the +2's margin, captures reset the counter).
//   - A node with counter 0 was reached by a man move or a capture, an
//     irreversible move, so no earlier position can recur below it: a stored
//     score (which met no history draw) is exact for it.
//
// What remains is the benign half of the graph-history problem: at a node
// with a running counter (king moves since the last irreversible move), a
// stored score may overlook a repetition that only this path's earlier
// positions would allow. The draw is then found when the search reaches it
// without the table (the root and the nodes near it check the history
// themselves). Forbidding those cutoffs altogether made king endings
// 6-7 times more expensive per two plies of depth.

// Entry kinds: the stored score is exact, a lower bound (the search failed
// high) or an upper bound (it failed low).
const (
	boundExact uint8 = iota + 1
	boundLower
	boundUpper
	boundMove // only the move is known; the score must not be used
)

type ttEntry struct {
	key   uint64
	score int32
	depth int8
	bound uint8
	move  uint8 // 1 + index of the best move in Legal's order; 0 for none
	gen   uint8
}

type table struct {
	e    []ttEntry // len is a power of two, buckets of 2
	mask uint64
	gen  uint8
}

func newTable(bytes int) table {
	n := 2
	for n*2*16 <= bytes {
		n *= 2
	}
	return table{e: make([]ttEntry, n), mask: uint64(n/2 - 1)}
}

func (t *table) clear() {
	clear(t.e)
	t.gen = 0
}

// probe returns the entry for key, or nil.
func (t *table) probe(key uint64) *ttEntry {
	if t.e == nil {
		return nil
	}
	b := t.e[(key&t.mask)*2:]
	if b[0].key == key && b[0].bound != 0 {
		return &b[0]
	}
	if b[1].key == key && b[1].bound != 0 {
		return &b[1]
	}
	return nil
}

// store records a result for key.
func (t *table) store(key uint64, score int32, depth int, bound, move uint8) {
	if t.e == nil {
		return
	}
	b := t.e[(key&t.mask)*2:]
	var slot *ttEntry
	switch {
	case b[0].key == key || b[0].bound == 0 || b[0].gen != t.gen || depth >= int(b[0].depth):
		slot = &b[0]
		if b[0].key != key && b[0].bound != 0 {
			b[1] = b[0] // the displaced deep entry gets a second life
		}
	default:
		slot = &b[1]
	}
	if slot.key == key && move == 0 {
		move = slot.move // keep a known best move
	}
	*slot = ttEntry{key: key, score: score, depth: int8(depth), bound: bound, move: move, gen: t.gen}
}
