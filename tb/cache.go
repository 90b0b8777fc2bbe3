package tb

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// CacheDir returns the folder, in the user's cache folder
// (os.UserCacheDir, e.g. ~/.cache on Linux), that holds the generated
// tables of up to pieces pieces: dama/tables-vV-Np, V the FormatVersion.
// The tables of a number of pieces are one fixed set of files (Generate
// writes the same bytes on every machine), so one folder serves every run
// and worker of the user's.
func CacheDir(pieces int) (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("tb: no cache folder for the generated tables (%v): generate them with dama tb gen --pieces %d --out DIR and name DIR", err, pieces)
	}
	return filepath.Join(base, "dama", fmt.Sprintf("tables-v%d-%dp", FormatVersion, pieces)), nil
}

// cached serialises SharedCache: the goroutines of one process generate a
// folder once.
var cached sync.Mutex

// SharedCache returns the tables of up to pieces pieces from CacheDir,
// opened once per process (as Shared opens a folder). The first call of a
// process generates what the folder lacks or holds damaged (Generate, one
// worker a CPU: resumable, every file written atomically, so processes
// that generate at once only repeat work), opens them (Open: a folder
// without its stamp is verified in full once) and, when log is not nil,
// writes one line saying what it found and did. Meant for few pieces: 4 take some
// 10 CPU-seconds, 5 some 4 CPU-minutes, and the generation cannot be
// interrupted.
func SharedCache(pieces int, log io.Writer) (*Tables, error) {
	dir, err := CacheDir(pieces)
	if err != nil {
		return nil, err
	}
	cached.Lock()
	defer cached.Unlock()
	shared.Lock()
	t := shared.open[dir]
	shared.Unlock()
	if t != nil {
		return t, nil
	}
	start := time.Now()
	st, err := Generate(context.Background(), GenOptions{Pieces: pieces, Dir: dir})
	if err != nil {
		return nil, fmt.Errorf("tb: generating the tables of up to %d pieces in %s: %w", pieces, dir, err)
	}
	t, err = Shared(dir)
	if err != nil || log == nil {
		return t, err
	}
	checked := fmt.Sprintf("%d tables vouched for by %s, %d entries sampled", t.check.Stamped, StampName, t.check.Sampled)
	if t.check.Verified > 0 {
		checked = fmt.Sprintf("%d tables verified against one ply (%d entries)", t.check.Verified, t.check.Entries)
	}
	if st.Skipped == st.Signatures {
		fmt.Fprintf(log, "endgame tables of up to %d pieces: %s (%d signatures, all there and checked; %s)\n", pieces, dir, st.Signatures, checked)
	} else {
		fmt.Fprintf(log, "endgame tables of up to %d pieces: generated %d of %d signatures into %s (%d positions, %d bytes; %s) in %.1fs\n",
			pieces, st.Signatures-st.Skipped, st.Signatures, dir, st.Positions, st.Bytes, checked, time.Since(start).Seconds())
	}
	return t, nil
}
