package tb

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSharedCache: the first SharedCache of a process generates the
// tables into the user's cache folder and says so; the next calls return
// the same tables; a later process (the memo cleared) finds them there,
// checks them and generates again only a damaged file.
func TestSharedCache(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("HOME", cache)
	dir, err := CacheDir(2)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(dir, cache) || filepath.Base(dir) != "tables-v1-2p" {
		t.Errorf("CacheDir(2) = %s, want tables-v1-2p under %s", dir, cache)
	}
	forget := func() {
		shared.Lock()
		delete(shared.open, dir)
		shared.Unlock()
	}
	t.Cleanup(forget)

	var log bytes.Buffer
	tb, err := SharedCache(2, &log)
	if err != nil {
		t.Fatal(err)
	}
	if tb.Pieces() != 2 || tb.Dir() != dir || len(tb.Files()) != len(Signatures(2)) {
		t.Errorf("tables of %d pieces in %s, %d files", tb.Pieces(), tb.Dir(), len(tb.Files()))
	}
	if !strings.Contains(log.String(), "generated 4 of 4 signatures into "+dir) {
		t.Errorf("first call logged %q", log.String())
	}
	log.Reset()
	again, err := SharedCache(2, &log)
	if err != nil || again != tb || log.Len() != 0 {
		t.Errorf("second call: %v, same tables %v, logged %q", err, again == tb, log.String())
	}

	// A later process: all there; then one file damaged.
	forget()
	if _, err := SharedCache(2, &log); err != nil || !strings.Contains(log.String(), "all there and checked") {
		t.Errorf("later process: %v, logged %q", err, log.String())
	}
	forget()
	log.Reset()
	victim := tb.Files()[0].Path
	if err := os.WriteFile(victim, []byte("not a table"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := SharedCache(2, &log); err != nil || !strings.Contains(log.String(), "generated 1 of 4 signatures") {
		t.Errorf("after damaging %s: %v, logged %q", victim, err, log.String())
	}
	if _, err := Open(dir); err != nil {
		t.Errorf("the folder after the repair: %v", err)
	}
}

// TestSharedCacheNoFolder: without a cache folder the error says how to
// make the tables by hand.
func TestSharedCacheNoFolder(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", "")
	_, err := SharedCache(2, nil)
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "dama tb gen --pieces 2 --out DIR") {
		t.Errorf("no cache folder: %v", err)
	}
}
