package tb

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"slices"
)

// OpenSample is the entries of each stamped table that Open checks
// against one ply: a table forged wholesale (every entry a draw, say)
// disagrees with its moves in a good part of its positions and is caught
// at once; one altered entry under a forged stamp is not, which only a
// full Verify finds. About a millisecond a table.
const OpenSample = 1024

// Check says how Open vouched for the entries of the tables it probes.
type Check struct {
	Stamped  int   // tables the folder's stamp vouched for, each sampled
	Sampled  int64 // entries of those checked against one ply
	Verified int   // tables verified in full by this Open (no stamp vouched for them)
	Entries  int64 // entries of those checked
	// StampNote says why the stamp could not be read (its tables were
	// then verified again) or written (the next Open verifies again); ""
	// when all went well.
	StampNote string
}

// Check says how Open vouched for the tables' entries.
func (t *Tables) Check() Check { return t.check }

// vouch checks the entries of the tables t probes as Open documents and
// records what it did in t.check.
func (t *Tables) vouch(ctx context.Context) error {
	path := filepath.Join(t.dir, StampName)
	st, err := readStamp(path)
	if err != nil {
		t.check.StampNote = "the stamp was not read, so every table was verified again: " + oneLine(err)
		st = stamp{}
	}
	sums := map[Material][sha256.Size]byte{}
	for _, f := range t.files {
		sums[f.Material] = f.SHA256
	}
	var stamped, fresh []Material
	seed := sha256.New()
	for _, m := range Signatures(t.pieces) {
		if sum, ok := st[m]; ok && sum == sums[m] {
			stamped = append(stamped, m)
			seed.Write(sum[:])
		} else {
			fresh = append(fresh, m)
		}
	}
	// The tables no stamp vouches for first: when one of them was
	// replaced by a forgery, the error names it and not a stamped table
	// that reaches it.
	if len(fresh) > 0 {
		r, err := Verify(ctx, t, VerifyOptions{Tables: fresh, Trusted: stamped, Examples: 1})
		if err != nil {
			return err
		}
		if err := r.Err(); err != nil {
			return err
		}
		if len(r.Verified) != len(fresh) {
			return fmt.Errorf("tb: internal error: %d of %d consistent tables of %s verified", len(r.Verified), len(fresh), t.dir)
		}
		t.check.Verified, t.check.Entries = len(fresh), r.Entries
	}
	if len(stamped) > 0 {
		r, err := Verify(ctx, t, VerifyOptions{Tables: stamped, Sample: OpenSample, Seed: binary.LittleEndian.Uint64(seed.Sum(nil)), Examples: 1})
		if err != nil {
			return err
		}
		if err := r.Err(); err != nil {
			return fmt.Errorf("%w (the folder's %s vouched for it: it is stale or forged)", err, StampName)
		}
		t.check.Stamped, t.check.Sampled = len(stamped), r.Entries
	}
	if len(fresh) == 0 {
		return nil
	}
	next := stamp{}
	for _, m := range append(stamped, fresh...) {
		next[m] = sums[m]
	}
	if err := writeStamp(path, next); err != nil {
		t.check.StampNote = "the stamp was not written, so the next open verifies again: " + oneLine(err)
	}
	return nil
}

// VerifyDir verifies in full every table of dir that Open would probe
// (Verify), whatever the folder's stamp says, and rewrites the stamp to
// record the tables found verified (none that failed). The files are read
// and checked as Open reads them, but their entries are not vouched for
// first: that is what VerifyDir does. opt.Tables, opt.Trusted and
// opt.Sample must be left zero. The report is filled even when the error
// is not nil (the stamp could not be written); inconsistencies are in the
// report, not the error (Report.Err).
func VerifyDir(ctx context.Context, dir string, opt VerifyOptions) (Report, error) {
	if opt.Tables != nil || opt.Trusted != nil || opt.Sample != 0 {
		return Report{}, fmt.Errorf("tb: VerifyDir checks every table in full: leave VerifyOptions.Tables, Trusted and Sample zero")
	}
	t, err := load(dir)
	if err != nil {
		return Report{}, err
	}
	r, err := Verify(ctx, t, opt)
	if err != nil {
		return r, err
	}
	next := stamp{}
	for _, f := range t.files {
		if slices.Contains(r.Verified, f.Material) {
			next[f.Material] = f.SHA256
		}
	}
	return r, writeStamp(filepath.Join(dir, StampName), next)
}
