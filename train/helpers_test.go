package train

import (
	"testing"

	"dama/configs"
	"dama/runfolder"
)

// loadConfig loads the configuration preset (or file) name with sets
// applied; an error fails tb.
func loadConfig(tb testing.TB, name string, sets ...string) *configs.Config {
	tb.Helper()
	cfg, err := configs.Load(name, nil, sets)
	if err != nil {
		tb.Fatal(err)
	}
	return cfg
}

// tempRun opens a run folder in a temporary directory; an error fails tb.
func tempRun(tb testing.TB) *runfolder.Run {
	tb.Helper()
	run, err := runfolder.Open(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	return run
}
