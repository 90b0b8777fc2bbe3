package runfolder

import (
	"strings"
	"testing"
)

// The run lock excludes a second holder and is free again after unlock.
func TestRunLock(t *testing.T) {
	run := tempRun(t)
	unlock, err := run.Lock()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := run.Lock(); err == nil || !strings.Contains(err.Error(), "in use by another trainer") {
		t.Errorf("second lock: %v, want in use", err)
	}
	unlock()
	unlock2, err := run.Lock()
	if err != nil {
		t.Fatalf("lock after unlock: %v", err)
	}
	unlock2()
}
