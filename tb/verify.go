package tb

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"slices"
	"sync"

	"dama/rules"
)

// ErrInconsistent is wrapped by the error of a table whose entries
// disagree with one ply of the tables: a forged or miscomputed table.
var ErrInconsistent = errors.New("entries inconsistent with their moves")

// VerifyOptions says what Verify checks and how.
type VerifyOptions struct {
	// Tables are the signatures to check; nil means every table the
	// tables probe (those of up to Tables.Pieces pieces).
	Tables []Material
	// Trusted are signatures taken as verified without a check (a stamp
	// vouches for them): a checked table that reaches only checked and
	// trusted ones is Verified when it is consistent.
	Trusted []Material
	// Threads is the number of goroutines checking entries; 0 means
	// runtime.NumCPU().
	Threads int
	// Sample, when positive, checks that many random index points of each
	// table (drawn with Seed and the table's name) instead of every one: a
	// table of at most 4*Sample points is checked in full. A sampled check
	// verifies nothing (Report.Verified stays empty); it finds a table
	// that disagrees with its moves in a fraction f of its positions with
	// probability about 1-(1-f)^Sample.
	Sample int
	Seed   uint64
	// Examples is how many inconsistencies the report keeps with their
	// positions (Report.Examples); 0 means 10.
	Examples int
	// Progress, when not nil, is called after each chunk of entries with
	// the entries checked so far and the total, from one goroutine at a
	// time.
	Progress func(done, total int64)
}

// Inconsistency is a table entry that one ply of the tables contradicts.
type Inconsistency struct {
	Path     string // the table's file
	Material Material
	Index    int64
	Pos      rules.Position // White to move; the zero Position for a hole
	Hole     bool           // an index point where men of both sides share a square, which holds 0 (a draw)
	Stored   Entry          // what the table holds
	OnePly   Entry          // what the position's moves give, from the entries they reach
	// Own says that the entries of the other tables its moves reach (not
	// this table and not its colour twin, whose king moves lead into
	// each other) contradict the stored entry on their own: when those
	// tables are right, the fault is this table's. An entry of a genuine
	// table whose twin is forged is inconsistent but never Own.
	Own bool
}

// String is e.g. "0201.dtb: W:WK29,K32:BK1 is stored as draw; its moves
// give win, 11 plies to a man move or capture (...)".
func (c Inconsistency) String() string {
	return c.Path + ": " + c.what()
}

func (c Inconsistency) what() string {
	if c.Hole {
		return fmt.Sprintf("index %d is a hole (men of both sides on one square) and holds %v, want a draw", c.Index, c.Stored)
	}
	return fmt.Sprintf("%s is stored as %v; its moves give %v", c.Pos.FEN(), c.Stored, c.OnePly)
}

// InconsistentError is the error of a table that failed a consistency
// check: its first inconsistency and how many there were.
type InconsistentError struct {
	First   Inconsistency // an Own one where the table has any
	Count   int64         // inconsistencies found in the table
	Checked int64         // its entries checked
	Sampled bool          // a sampled check (Open's of a stamped table)
	Twin    string        // the colour twin's file, when it is inconsistent too and neither is shown at fault (Inconsistency.Own)
}

// Error is one line naming the file.
func (e *InconsistentError) Error() string {
	how := "checked"
	if e.Sampled {
		how = "sampled"
	}
	twin := ""
	if e.Twin != "" {
		twin = fmt.Sprintf("; its colour twin %s, whose king moves lead into it, is inconsistent too: one of the two is wrong", e.Twin)
	}
	return fmt.Sprintf("%s: endgame table: %v (%d of %d entries %s), a forged or damaged table (generate it again)%s: %s",
		e.First.Path, ErrInconsistent, e.Count, e.Checked, how, twin, e.First.what())
}

// Unwrap returns ErrInconsistent.
func (e *InconsistentError) Unwrap() error { return ErrInconsistent }

// TableReport is what Verify found in one table.
type TableReport struct {
	Material        Material
	Path            string
	Checked         int64 // index points checked, holes included
	Inconsistencies int64
	Own             int64         // of those, the ones the other tables contradict alone (Inconsistency.Own)
	First           Inconsistency // the first Own inconsistency by index, or the first, when there is one
}

// Report is what Verify found.
type Report struct {
	Tables          []TableReport // the tables checked, smallest first
	Entries         int64         // index points checked, holes included
	Inconsistencies int64
	// Examples are the first few inconsistencies: the Own ones first (the
	// evidence against the table at fault), then by table, smallest
	// first, and index.
	Examples []Inconsistency
	// Verified are the tables checked in full, consistent, and reaching
	// only tables verified or trusted: every entry of such a table is
	// exact (the entries consistent with one ply are the unique solution
	// of the equation the tables solve: distances fall along every win
	// and every loss).
	Verified []Material
	Sampled  bool // a sampled check
}

// Err returns nil when the report found no inconsistency, else an
// *InconsistentError for the table at fault: the first inconsistent
// table, smallest first (a wrong table makes the bigger tables that reach
// it inconsistent too), or its colour twin when only the twin's entries
// are shown at fault (Inconsistency.Own).
func (r Report) Err() error {
	byMat := map[Material]*TableReport{}
	for i := range r.Tables {
		byMat[r.Tables[i].Material] = &r.Tables[i]
	}
	for i := range r.Tables {
		tr := &r.Tables[i]
		if tr.Inconsistencies == 0 {
			continue
		}
		tw := byMat[tr.Material.Swap()]
		if tw != nil && (tw == tr || tw.Inconsistencies == 0) {
			tw = nil
		}
		if tw != nil && tr.Own == 0 && tw.Own > 0 {
			tr, tw = tw, nil
		}
		e := &InconsistentError{First: tr.First, Count: tr.Inconsistencies, Checked: tr.Checked, Sampled: r.Sampled}
		if tw != nil && tr.Own == 0 {
			e.Twin = tw.Path
		}
		return e
	}
	return nil
}

// verifyChunk is a run of one table's index points to check: lo..hi, or
// the points idx when sampled.
type verifyChunk struct {
	table  int
	lo, hi int64
	idx    []int64
}

func (c verifyChunk) size() int64 {
	if c.idx != nil {
		return int64(len(c.idx))
	}
	return c.hi - c.lo
}

// chunkResult is what a chunk found: its inconsistencies, the first few
// Own ones and the first few others by index.
type chunkResult struct {
	n, own   int64
	found    []Inconsistency // the first few Own ones and the first few others
	firstOwn *Inconsistency
	others   int
}

// verifyChunkLen is the index points of a chunk: small enough to spread
// a table over the threads and to update the progress often, large enough
// that handing it out costs nothing.
const verifyChunkLen = 1 << 15

// Verify checks the entries of t's tables against one ply of t itself:
// each position's stored entry must be the one its legal moves give from
// the entries of the positions they reach (under the 40-move rule as
// stored, see Entry): a win has a move to a loss for the opponent, by a
// man move or capture or by a king move at one ply less than its
// distance, and its distance is the least such; a loss has only moves to
// wins for the opponent (none at all for a loss in 0 plies), its distance
// the most; a draw has neither. Moves that capture or promote reach the
// smaller tables, which must be verified in the same run or trusted. The
// index points that are holes must hold draws. The report is the same
// whatever the threads.
//
// The error is for a cancelled ctx or a signature t does not hold;
// inconsistencies are in the report (Report.Err).
func Verify(ctx context.Context, t *Tables, opt VerifyOptions) (Report, error) {
	var r Report
	sigs := opt.Tables
	if sigs == nil {
		sigs = Signatures(t.pieces)
	}
	sigs = slices.Clone(sigs)
	slices.SortFunc(sigs, compareMaterial)
	sigs = slices.Compact(sigs)
	for _, m := range sigs {
		if !m.valid() || m.Pieces() > t.pieces || t.table(m) == nil {
			return r, fmt.Errorf("tb: %s: no table %s%s to verify (complete up to %d pieces)", t.dir, m, Ext, t.pieces)
		}
	}
	threads := opt.Threads
	if threads <= 0 {
		threads = runtime.NumCPU()
	}
	examples := opt.Examples
	if examples <= 0 {
		examples = 10
	}
	r.Sampled = opt.Sample > 0
	r.Tables = make([]TableReport, len(sigs))
	var chunks []verifyChunk
	var total int64
	for i, m := range sigs {
		r.Tables[i] = TableReport{Material: m, Path: t.path(m)}
		size := m.Size()
		if r.Sampled && size > 4*int64(opt.Sample) {
			rng := rand.New(rand.NewPCG(opt.Seed, uint64(m.Men<<24|m.Kings<<16|m.OppMen<<8|m.OppKings)))
			idx := make([]int64, opt.Sample)
			for k := range idx {
				idx[k] = rng.Int64N(size)
			}
			slices.Sort(idx)
			for lo := 0; lo < len(idx); lo += verifyChunkLen {
				chunks = append(chunks, verifyChunk{table: i, idx: idx[lo:min(lo+verifyChunkLen, len(idx))]})
			}
			total += int64(len(idx))
			continue
		}
		for lo := int64(0); lo < size; lo += verifyChunkLen {
			chunks = append(chunks, verifyChunk{table: i, lo: lo, hi: min(lo+verifyChunkLen, size)})
		}
		total += size
	}

	var (
		mu   sync.Mutex
		next int
		done int64
		wg   sync.WaitGroup
	)
	firstOwn := make([]*Inconsistency, len(sigs))
	firstAny := make([]*Inconsistency, len(sigs))
	for range min(threads, max(len(chunks), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			moves := make([]rules.Move, 0, rules.MaxMoves)
			for {
				mu.Lock()
				if next == len(chunks) || ctx.Err() != nil {
					mu.Unlock()
					return
				}
				c := chunks[next]
				next++
				mu.Unlock()
				var res chunkResult
				moves = t.verifyRun(sigs[c.table], c, moves, &res, examples)
				mu.Lock()
				tr := &r.Tables[c.table]
				tr.Checked += c.size()
				tr.Inconsistencies += res.n
				tr.Own += res.own
				r.Examples = append(r.Examples, res.found...)
				if len(res.found) > 0 && (firstAny[c.table] == nil || res.found[0].Index < firstAny[c.table].Index) {
					firstAny[c.table] = &res.found[0]
				}
				if res.firstOwn != nil && (firstOwn[c.table] == nil || res.firstOwn.Index < firstOwn[c.table].Index) {
					firstOwn[c.table] = res.firstOwn
				}
				done += c.size()
				if opt.Progress != nil {
					opt.Progress(done, total)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return r, err
	}
	for i := range r.Tables {
		tr := &r.Tables[i]
		r.Entries += tr.Checked
		r.Inconsistencies += tr.Inconsistencies
		if firstOwn[i] != nil {
			tr.First = *firstOwn[i]
		} else if firstAny[i] != nil {
			tr.First = *firstAny[i]
		}
	}
	slices.SortFunc(r.Examples, func(a, b Inconsistency) int {
		if c := compareMaterial(a.Material, b.Material); c != 0 {
			return c
		}
		return cmp.Compare(a.Index, b.Index)
	})
	slices.SortStableFunc(r.Examples, func(a, b Inconsistency) int {
		if a.Own != b.Own {
			if a.Own {
				return -1
			}
			return 1
		}
		return 0
	})
	if len(r.Examples) > examples {
		r.Examples = r.Examples[:examples]
	}
	if r.Sampled {
		return r, nil
	}
	// A signature and its colour twin (whose king moves lead into each
	// other) are verified together: when each is checked and consistent,
	// or trusted, and every other table their moves reach is verified or
	// trusted. Those come first in Signatures' order (see Generate).
	trusted := map[Material]bool{}
	for _, m := range opt.Trusted {
		trusted[m] = true
	}
	consistent := map[Material]bool{}
	for i, m := range sigs {
		consistent[m] = r.Tables[i].Inconsistencies == 0
	}
	ok := map[Material]bool{}
	for _, m := range Signatures(t.pieces) {
		pair := []Material{m, m.Swap()}
		if _, seen := ok[m]; seen {
			continue
		}
		good := true
		for _, s := range pair {
			good = good && (consistent[s] || trusted[s])
			for _, c := range children(s) {
				if c != pair[0] && c != pair[1] && !ok[c] {
					good = false
				}
			}
		}
		for _, s := range pair {
			ok[s] = good
			if good && consistent[s] && !slices.Contains(r.Verified, s) {
				r.Verified = append(r.Verified, s)
			}
		}
	}
	return r, nil
}

// verifyRun checks the entries of chunk c of m's table into res, keeping
// the first limit inconsistencies by index, and returns the move buffer.
func (t *Tables) verifyRun(m Material, c verifyChunk, moves []rules.Move, res *chunkResult, limit int) []rules.Move {
	codes := t.table(m)
	check := func(i int64) {
		stored := entryOf(codes[i])
		s, ok := unindexSides(m, i)
		var bad Inconsistency
		if !ok {
			if codes[i] == 0 {
				return
			}
			bad = Inconsistency{Path: t.path(m), Material: m, Index: i, Hole: true, Stored: stored, Own: true}
		} else {
			p := s.position()
			var want Entry
			want, moves = t.onePly(p, moves)
			if want == stored {
				return
			}
			bad = Inconsistency{Path: t.path(m), Material: m, Index: i, Pos: p, Stored: stored, OnePly: want, Own: t.contradicted(p, m, stored)}
		}
		res.n++
		if bad.Own {
			if res.own < int64(limit) {
				res.found = append(res.found, bad)
			}
			res.own++
			if res.firstOwn == nil {
				res.firstOwn = &bad
			}
		} else if res.others < limit {
			res.found = append(res.found, bad)
			res.others++
		}
	}
	if c.idx != nil {
		for _, i := range c.idx {
			check(i)
		}
	} else {
		for i := c.lo; i < c.hi; i++ {
			check(i)
		}
	}
	return moves
}

// contradicted reports whether the stored entry of p, a position of m's
// table, is contradicted by the entries its moves reach outside m's table
// and its colour twin's alone (Inconsistency.Own).
func (t *Tables) contradicted(p rules.Position, m Material, stored Entry) bool {
	moves := p.Legal(nil)
	if len(moves) == 0 {
		return stored != Entry{Type: Loss}
	}
	all := true // every move leaves the pair
	for _, mv := range moves {
		c := p.Play(mv)
		if cm := sidesOf(c).material(); cm == m || cm == m.Swap() {
			all = false
			continue
		}
		e := t.entry(c)
		via := 1
		if p.Reversible(mv) {
			via = e.Dist + 1
			if via > rules.QuietLimit {
				e = Entry{}
			}
		}
		switch {
		case e.Type == Loss && (stored.Type != Win || stored.Dist > via):
			return true // a win at most via plies away
		case e.Type == Draw && stored.Type == Loss:
			return true // not a loss
		case e.Type == Win && stored.Type == Loss && stored.Dist < via:
			return true // a loss that lasts at least via plies
		}
	}
	return all
}

// onePly returns the entry that p's legal moves give from the entries of
// the positions they reach: the equation the generation solves (solve).
// A king move that captures nothing reaches its position's entry one ply
// later, so past the 40-move limit that entry counts as a draw.
func (t *Tables) onePly(p rules.Position, moves []rules.Move) (Entry, []rules.Move) {
	moves = p.Legal(moves)
	if len(moves) == 0 {
		return Entry{Type: Loss}, moves
	}
	win, far, allLose := 0, 0, true
	for _, mv := range moves {
		c := t.entry(p.Play(mv))
		via := 1 // plies to a man move or capture through mv
		if p.Reversible(mv) {
			via = c.Dist + 1
			if via > rules.QuietLimit {
				c = Entry{}
			}
		}
		switch c.Type {
		case Loss:
			if win == 0 || via < win {
				win = via
			}
			allLose = false
		case Win:
			far = max(far, via)
		default:
			allLose = false
		}
	}
	switch {
	case win > 0:
		return Entry{Type: Win, Dist: win}, moves
	case allLose:
		return Entry{Type: Loss, Dist: far}, moves
	}
	return Entry{}, moves
}

// entry is Probe for positions reached from a table position: their
// tables are loaded and no man stands on its crowning row.
func (t *Tables) entry(p rules.Position) Entry {
	s := sidesOf(p)
	m := s.material()
	switch {
	case m.Men+m.Kings == 0:
		return Entry{Type: Loss}
	case m.OppMen+m.OppKings == 0:
		if p.HasMoves() {
			return Entry{Type: Win, Dist: 1}
		}
		return Entry{Type: Loss}
	}
	return entryOf(t.table(m)[s.index(m)])
}

// table returns the codes of m's table, nil when t has none.
func (t *Tables) table(m Material) []uint8 {
	return t.codes[m.Men][m.Kings][m.OppMen][m.OppKings]
}

// path returns the file of m's table.
func (t *Tables) path(m Material) string {
	return filepath.Join(t.dir, m.String()+Ext)
}
