package tb

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/bits"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"dama/rules"
)

// maxTablePieces is the most pieces Generate and the reader accept.
const maxTablePieces = 8

// GenOptions says what Generate builds.
type GenOptions struct {
	Pieces  int       // every signature of 2..Pieces pieces
	Dir     string    // the folder of the table files, created if missing
	Workers int       // signatures solved at once; 0 means runtime.NumCPU()
	Log     io.Writer // one line per signature when not nil
}

// GenStats says what Generate did.
type GenStats struct {
	Signatures int   // signatures of at most Pieces pieces
	Skipped    int   // of them, already on disk and checked
	Positions  int64 // index points of the signatures generated (holes included)
	Bytes      int64 // bytes written
}

// Generate builds the tables of every signature with 2..opt.Pieces
// pieces into opt.Dir, skipping those whose files are there and check. A
// signature is solved together with its colour twin (Material.Swap) once
// the signatures its captures and promotions reach are done; independent
// ones run on opt.Workers goroutines. Each file is written atomically as
// soon as it is solved, so an interrupted run loses only the signatures
// in progress and a rerun resumes.
func Generate(ctx context.Context, opt GenOptions) (GenStats, error) {
	var st GenStats
	if opt.Pieces < 2 || opt.Pieces > maxTablePieces {
		return st, fmt.Errorf("tb: pieces %d: want 2 to %d", opt.Pieces, maxTablePieces)
	}
	if err := os.MkdirAll(opt.Dir, 0o755); err != nil {
		return st, fmt.Errorf("tb: %w", err)
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	sigs := Signatures(opt.Pieces)
	st.Signatures = len(sigs)
	type job struct {
		sigs []Material
		deps []int
		done chan struct{}
	}
	jobOf := map[Material]int{}
	var jobs []*job
	for _, m := range sigs {
		if _, ok := jobOf[m]; ok {
			continue
		}
		j := &job{sigs: []Material{m}, done: make(chan struct{})}
		if w := m.Swap(); w != m {
			j.sigs = append(j.sigs, w)
		}
		for _, s := range j.sigs {
			jobOf[s] = len(jobs)
		}
		jobs = append(jobs, j)
	}
	for ji, j := range jobs {
		seen := map[int]bool{}
		for _, s := range j.sigs {
			for _, c := range children(s) {
				d, ok := jobOf[c]
				if !ok {
					return st, fmt.Errorf("tb: internal error: signature %s reaches %s, not in the list", s, c)
				}
				if d != ji && !seen[d] {
					if d > ji {
						return st, fmt.Errorf("tb: internal error: signature %s depends on the later %s", s, c)
					}
					seen[d] = true
					j.deps = append(j.deps, d)
				}
			}
		}
	}

	store := &store{codes: map[Material][]uint8{}}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	sem := make(chan struct{}, workers)
	var mu sync.Mutex
	var wg sync.WaitGroup
	logf := func(format string, args ...any) {
		if opt.Log != nil {
			mu.Lock()
			fmt.Fprintf(opt.Log, format+"\n", args...)
			mu.Unlock()
		}
	}
	for _, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, d := range j.deps {
				select {
				case <-jobs[d].done:
				case <-ctx.Done():
					return
				}
			}
			// Finished signatures are loaded, not generated again.
			have := make([][]uint8, len(j.sigs))
			all := true
			for i, m := range j.sigs {
				path := filepath.Join(opt.Dir, m.String()+Ext)
				codes, _, err := readTable(path, m)
				switch {
				case err == nil:
					have[i] = codes
				case errors.Is(err, fs.ErrNotExist):
					all = false
				default:
					logf("%s: %v; generating it again", m, oneLine(err))
					all = false
				}
			}
			if all {
				for i, m := range j.sigs {
					store.put(m, have[i])
				}
				mu.Lock()
				st.Skipped += len(j.sigs)
				mu.Unlock()
				close(j.done)
				return
			}
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return
			}
			defer func() { <-sem }()
			start := time.Now()
			codes, err := solve(ctx, j.sigs, store)
			if err != nil {
				cancel(err)
				return
			}
			for i, m := range j.sigs {
				path := filepath.Join(opt.Dir, m.String()+Ext)
				n, err := writeTable(path, m, codes[i])
				if err != nil {
					cancel(err)
					return
				}
				store.put(m, codes[i])
				w, d, l := count(codes[i])
				mu.Lock()
				st.Positions += int64(len(codes[i]))
				st.Bytes += int64(n)
				mu.Unlock()
				logf("%s (%s): %d positions, %d wins %d draws %d losses, %d bytes, %.1fs", m, m.Describe(), len(codes[i]), w, d, l, n, time.Since(start).Seconds())
			}
			close(j.done)
		}()
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return st, err
	}
	return st, nil
}

// count returns the wins, draws (holes included) and losses of codes.
func count(codes []uint8) (w, d, l int64) {
	for _, c := range codes {
		switch {
		case c == 0:
			d++
		case isWin(c):
			w++
		default:
			l++
		}
	}
	return
}

// store holds the finished tables during a generation.
type store struct {
	mu    sync.RWMutex
	codes map[Material][]uint8
}

func (s *store) put(m Material, c []uint8) {
	s.mu.Lock()
	s.codes[m] = c
	s.mu.Unlock()
}

func (s *store) get(m Material) []uint8 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.codes[m]
}

// children returns the signatures that the moves of m's side to move can
// reach, seen from the side to move after the move (a superset: every
// capture of the opponent's pieces, with and without a promotion).
func children(m Material) []Material {
	var out []Material
	add := func(c Material) {
		if c.valid() {
			out = append(out, c)
		}
	}
	add(m.Swap())
	movers := []Material{m}
	if m.Men > 0 {
		p := Material{Men: m.Men - 1, Kings: m.Kings + 1, OppMen: m.OppMen, OppKings: m.OppKings}
		movers = append(movers, p)
		add(p.Swap())
	}
	for _, mv := range movers {
		for a := 0; a <= m.OppMen; a++ {
			for b := 0; b <= m.OppKings; b++ {
				if a+b > 0 {
					add(Material{Men: m.OppMen - a, Kings: m.OppKings - b, OppMen: mv.Men, OppKings: mv.Kings})
				}
			}
		}
	}
	return out
}

// progress is how far the men of s still have to go: the rows each man
// must still cross to promote, summed. A man move lowers it by one; a king
// move keeps it.
func progress(s sides) int {
	n := 0
	for x := s.men; x != 0; x &= x - 1 {
		n += rules.Square(bits.TrailingZeros32(x) + 1).Row()
	}
	for x := s.oppMen; x != 0; x &= x - 1 {
		n += 7 - rules.Square(bits.TrailingZeros32(x)+1).Row()
	}
	return n
}

func oneLine(err error) string {
	s := err.Error()
	for i := range s {
		if s[i] == '\n' {
			return s[:i]
		}
	}
	return s
}
