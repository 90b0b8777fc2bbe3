package tb

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"dama/rules"
)

// ErrNotInTables is wrapped by the error of a probe of a position with
// more pieces than the tables hold.
var ErrNotInTables = errors.New("not in the tables")

// Tables are the tables of one folder, loaded and checked. They are safe
// for concurrent probes.
type Tables struct {
	dir    string
	pieces int // every signature of 2..pieces pieces is loaded
	codes  [maxTablePieces + 1][maxTablePieces + 1][maxTablePieces + 1][maxTablePieces + 1][]uint8
	sigs   []Material
	files  []FileInfo
	check  Check
}

// FileInfo describes one table file of a folder.
type FileInfo struct {
	Path      string
	Material  Material
	Positions int64 // index points, holes included
	Bytes     int64
	Wins      int64
	Draws     int64 // draws and holes
	Losses    int64
	SHA256    [sha256.Size]byte // of the whole file, what the stamp records
}

// Open loads every table file (NAME.dtb) in dir and checks each: its
// envelope and checksum, its content and that its name is its signature.
// A damaged, truncated or foreign file is an error naming it. The tables
// are complete up to Pieces pieces: every signature of that many pieces
// or fewer has its file; tables of more pieces than that are loaded and
// checked but not probed.
//
// Open then makes sure that the entries of the tables it probes agree
// with one ply of the tables themselves (Verify), so that a forged table,
// its checksum recomputed, is refused by name before anything plays with
// it. A table that the folder's stamp (StampName) records as verified,
// by the SHA-256 of its file, gets a sampled check of OpenSample entries;
// every other table is verified in full now, and the stamp rewritten to
// record it (when the folder takes it), so a folder is verified in full
// once. Check says which was done.
func Open(dir string) (*Tables, error) {
	t, err := load(dir)
	if err != nil {
		return nil, err
	}
	if err := t.vouch(context.Background()); err != nil {
		return nil, err
	}
	return t, nil
}

// load reads and checks the table files of dir (Open without the
// consistency check).
func load(dir string) (*Tables, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("tb: %w", err)
	}
	t := &Tables{dir: dir}
	for _, e := range ents {
		name := e.Name()
		if !strings.HasSuffix(name, Ext) || strings.HasPrefix(name, ".") {
			continue // other files, and atomicfile's temporary ones
		}
		path := filepath.Join(dir, name)
		m, ok := parseName(strings.TrimSuffix(name, Ext))
		if !ok {
			return nil, fmt.Errorf("%s: not an endgame table name (want four counts of at most %d pieces in all, e.g. 0201%s)", path, maxTablePieces, Ext)
		}
		codes, sum, err := readTable(path, m)
		if err != nil {
			return nil, err
		}
		t.codes[m.Men][m.Kings][m.OppMen][m.OppKings] = codes
		t.sigs = append(t.sigs, m)
		info := FileInfo{Path: path, Material: m, Positions: int64(len(codes)), SHA256: sum}
		if st, err := os.Stat(path); err == nil {
			info.Bytes = st.Size()
		}
		info.Wins, info.Draws, info.Losses = count(codes)
		t.files = append(t.files, info)
	}
	if len(t.sigs) == 0 {
		return nil, fmt.Errorf("tb: %s: no endgame tables (*%s files; dama tb gen writes them)", dir, Ext)
	}
	for n := 2; n <= maxTablePieces; n++ {
		complete := true
		for _, m := range Signatures(n) {
			if m.Pieces() == n && t.codes[m.Men][m.Kings][m.OppMen][m.OppKings] == nil {
				complete = false
				break
			}
		}
		if !complete {
			break
		}
		t.pieces = n
	}
	if t.pieces == 0 {
		return nil, fmt.Errorf("tb: %s: the tables of 2 pieces are not all there", dir)
	}
	sort.Slice(t.files, func(i, j int) bool {
		a, b := t.files[i].Material, t.files[j].Material
		if a.Pieces() != b.Pieces() {
			return a.Pieces() < b.Pieces()
		}
		return a.String() < b.String()
	})
	return t, nil
}

var shared struct {
	sync.Mutex
	open map[string]*Tables
}

// Shared returns the tables of dir, opened (Open) once per process: the
// searches of many games, players and goroutines share one copy in memory.
// A failed Open is not kept; the next call tries again.
func Shared(dir string) (*Tables, error) {
	shared.Lock()
	defer shared.Unlock()
	if t, ok := shared.open[dir]; ok {
		return t, nil
	}
	t, err := Open(dir)
	if err != nil {
		return nil, err
	}
	if shared.open == nil {
		shared.open = map[string]*Tables{}
	}
	shared.open[dir] = t
	return t, nil
}

// parseName reads a table's file name: four digits.
func parseName(s string) (Material, bool) {
	if len(s) != 4 {
		return Material{}, false
	}
	var c [4]int
	for i := range 4 {
		if s[i] < '0' || s[i] > '9' {
			return Material{}, false
		}
		c[i] = int(s[i] - '0')
	}
	m := Material{c[0], c[1], c[2], c[3]}
	return m, m.valid() && m.Pieces() <= maxTablePieces
}

// Pieces returns the most pieces of a position the tables answer for.
func (t *Tables) Pieces() int { return t.pieces }

// Dir returns the folder the tables were read from.
func (t *Tables) Dir() string { return t.dir }

// Files describes the table files, by pieces and then name.
func (t *Tables) Files() []FileInfo { return t.files }

// Has reports whether p is in the tables: at most Pieces pieces.
func (t *Tables) Has(p rules.Position) bool {
	wm, wk := p.Count(rules.White)
	bm, bk := p.Count(rules.Black)
	return wm+wk+bm+bk <= t.pieces
}

// Probe returns the entry of p, for its side to move. A position with more
// pieces than the tables is an error wrapping ErrNotInTables.
func (t *Tables) Probe(p rules.Position) (Entry, error) {
	s := sidesOf(p)
	m := s.material()
	if n := m.Pieces(); n > t.pieces {
		return Entry{}, fmt.Errorf("%w (%d pieces, have up to %d)", ErrNotInTables, n, t.pieces)
	}
	if s.men&0xF != 0 || s.oppMen&0xF000_0000 != 0 {
		return Entry{}, fmt.Errorf("tb: %s: a man on the row where it would have been crowned", p.FEN())
	}
	switch {
	case m.Men+m.Kings == 0:
		return Entry{Type: Loss}, nil
	case m.OppMen+m.OppKings == 0:
		// Any move leaves the opponent without a move.
		if p.HasMoves() {
			return Entry{Type: Win, Dist: 1}, nil
		}
		return Entry{Type: Loss}, nil
	}
	return entryOf(t.codes[m.Men][m.Kings][m.OppMen][m.OppKings][s.index(m)]), nil
}

// MoveValue is a legal move with the value it leaves for the side that
// plays it.
type MoveValue struct {
	Move  rules.Move
	Value Value // for the mover, with the 40-move counter after the move
	Dist  int   // plies to a man move or capture by this move: 1 for one, else 1 + the reply position's distance
}

// Moves returns the position's value at 40-move counter quiet, and its
// legal moves with their values, best first: those that keep the value,
// for a win the fastest (the least distance, so a won ending is won
// within the 40-move rule and never repeats), for a loss the slowest.
func (t *Tables) Moves(p rules.Position, quiet int) (Value, []MoveValue, error) {
	e, err := t.Probe(p)
	if err != nil {
		return Draw, nil, err
	}
	v := e.Under(quiet)
	var out []MoveValue
	for _, mv := range p.Legal(nil) {
		c := p.Play(mv)
		ce, err := t.Probe(c)
		if err != nil {
			return Draw, nil, err
		}
		q := rules.QuietAfter(p, mv, quiet)
		d := 1
		if q > 0 {
			d = 1 + ce.Dist
		}
		out = append(out, MoveValue{Move: mv, Value: -ce.Under(q), Dist: d})
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Value != b.Value {
			return a.Value > b.Value
		}
		switch a.Value {
		case Win:
			return a.Dist < b.Dist
		case Loss:
			return a.Dist > b.Dist
		}
		return false
	})
	return v, out, nil
}

// Best returns the moves of p that keep its value at 40-move counter
// quiet: for a win those of least distance, for a loss those of most, for
// a draw every drawing move. It returns no moves for a position without
// any.
func (t *Tables) Best(p rules.Position, quiet int) (Value, []MoveValue, error) {
	v, all, err := t.Moves(p, quiet)
	if err != nil || len(all) == 0 {
		return v, nil, err
	}
	n := 0
	for n < len(all) && all[n].Value == all[0].Value && (v == Draw || all[n].Dist == all[0].Dist) {
		n++
	}
	return v, all[:n], nil
}
