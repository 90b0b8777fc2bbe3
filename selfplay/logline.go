package selfplay

import (
	"io"
	"sync"
	"time"
)

// stampedLog starts every line written to it with the time.
type stampedLog struct {
	mu     sync.Mutex
	w      io.Writer
	now    func() time.Time
	inLine bool // the last write ended within a line
}

// LogTimeFormat is the layout of the time that StampedLog puts before
// each line: UTC, to the millisecond.
const LogTimeFormat = "2006-01-02T15:04:05.000Z07:00"

// StampedLog returns a writer that passes lines on to w, each started with
// the UTC time from now (time.Now if nil) in LogTimeFormat and a space.
// It is safe for concurrent use; a worker's log lines each carry its name
// already ("worker NAME: ...").
func StampedLog(w io.Writer, now func() time.Time) io.Writer {
	if now == nil {
		now = time.Now
	}
	return &stampedLog{w: w, now: now}
}

func (s *stampedLog) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	stamp := s.now().UTC().Format(LogTimeFormat) + " "
	out := make([]byte, 0, len(p)+len(stamp))
	for _, c := range p {
		if !s.inLine {
			out = append(out, stamp...)
			s.inLine = true
		}
		out = append(out, c)
		if c == '\n' {
			s.inLine = false
		}
	}
	if _, err := s.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}
