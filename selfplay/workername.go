package selfplay

import (
	"fmt"
	"hash/fnv"
	"os"
	"strings"
)

// DefaultWorkerName is the worker name of a process not given one:
// HOST-PID, the host name cut to the characters of a chunk file name.
func DefaultWorkerName() string {
	host, _ := os.Hostname()
	host = strings.Map(func(r rune) rune {
		if r < 128 && (r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return r
		}
		return -1
	}, host)
	if host == "" {
		host = "w"
	}
	return fmt.Sprintf("%s-%d", host, os.Getpid())
}

// WorkerSeed is the base seed of a worker not given one: the FNV-1a hash
// of its name, so that distinct workers play distinct games and a worker
// is reproducible from its name.
func WorkerSeed(name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return h.Sum64()
}
