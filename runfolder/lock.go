package runfolder

import (
	"errors"
	"fmt"
	"os"
)

// lockName is the file a trainer holds locked while it works on a run.
const lockName = "lock"

// errLocked is what lockFile returns when another process holds the lock.
var errLocked = errors.New("locked by another process")

// Lock takes the run's exclusive lock, so that two trainers never work on
// one run folder; self-play workers do not take it. The lock goes with the
// process, so a killed trainer leaves no stale lock (flock on Linux, macOS
// and the BSDs, LockFileEx on Windows). It returns the unlock function.
func (r *Run) Lock() (func(), error) {
	f, err := os.OpenFile(r.Path(lockName), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := lockFile(f); err != nil {
		f.Close()
		if errors.Is(err, errLocked) {
			return nil, fmt.Errorf("runfolder: run folder %s is in use by another trainer", r.Dir)
		}
		return nil, fmt.Errorf("runfolder: locking %s: %w", r.Path(lockName), err)
	}
	return func() {
		unlockFile(f)
		f.Close()
	}, nil
}
