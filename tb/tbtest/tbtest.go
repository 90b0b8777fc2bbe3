// Package tbtest makes small endgame tables for the tests of the packages
// that search or play with them.
package tbtest

import (
	"context"
	"testing"

	"dama/tb"
)

// Tables generates the tables of up to pieces pieces (2 or 3 take a second
// or two) in a temporary folder of t and returns the folder and the tables
// opened.
func Tables(t testing.TB, pieces int) (string, *tb.Tables) {
	t.Helper()
	dir := t.TempDir()
	if _, err := tb.Generate(context.Background(), tb.GenOptions{Pieces: pieces, Dir: dir}); err != nil {
		t.Fatal(err)
	}
	tables, err := tb.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return dir, tables
}

// Cache points the user's cache folder (os.UserCacheDir: XDG_CACHE_HOME,
// and HOME where that is not read) at a temporary folder of t for the rest
// of the test, so that generated tables (selfplay.tables "auto:N",
// tb.SharedCache) go there, and returns it. It sets the environment, so
// the test must not be parallel.
func Cache(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", dir)
	t.Setenv("HOME", dir)
	t.Setenv("LocalAppData", dir)
	return dir
}
