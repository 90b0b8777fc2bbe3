package selfplay

import (
	"context"
	"strings"
	"testing"

	"dama/internal/evaltest"
	"dama/tb"
)

// TestTablesKey: selfplay.tables gives the searches the tables of the
// folder as their oracle; an empty key none; a folder without tables is
// an error naming the key. The key is in the digest only when set, so the
// digests of earlier settings stay as they were.
func TestTablesKey(t *testing.T) {
	dir := t.TempDir()
	if _, err := tb.Generate(context.Background(), tb.GenOptions{Pieces: 2, Dir: dir}); err != nil {
		t.Fatal(err)
	}
	pl, err := newPlayer(evaltest.Material{}, testConfig(0, func(c *Config) { c.Tables = dir }))
	if err != nil {
		t.Fatal(err)
	}
	if o, ok := pl.search.Options().Oracle.(tb.Oracle); !ok || o.T.Dir() != dir {
		t.Errorf("selfplay.tables %s: the search's oracle is %v", dir, pl.search.Options().Oracle)
	}
	pl, err = newPlayer(evaltest.Material{}, testConfig(0, nil))
	if err != nil || pl.search.Options().Oracle != nil {
		t.Errorf("no tables: oracle %v, err %v", pl.search.Options().Oracle, err)
	}
	_, err = newPlayer(evaltest.Material{}, testConfig(0, func(c *Config) { c.Tables = t.TempDir() }))
	if err == nil || !strings.Contains(err.Error(), "selfplay.tables: ") || !strings.Contains(err.Error(), "no endgame tables") {
		t.Errorf("an empty folder: %v", err)
	}
	if testConfig(0, nil).Digest() == testConfig(0, func(c *Config) { c.Tables = dir }).Digest() {
		t.Error("the tables do not change the digest")
	}
}
