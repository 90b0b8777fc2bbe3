//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly || windows)

package runfolder

import (
	"errors"
	"os"
)

func lockFile(*os.File) error {
	return errors.New("run folder locks are not supported on this system (supported: Linux, macOS, the BSDs, Windows)")
}

func unlockFile(*os.File) {}
