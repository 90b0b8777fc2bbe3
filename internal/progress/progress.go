// Package progress shows the progress of a stage of work: a progress bar
// redrawn in place on a terminal, and plain lines everywhere else (a log
// file or a pipe): one when the stage ends, and one every PlainEvery while
// a long stage runs, so that logs hold no carriage-return frames and a
// two-hour match still says how far it is.
package progress

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// PlainEvery is how often a stage that is not on a terminal writes a line
// while it runs (the stage's steps, its time and its rate so far).
const PlainEvery = 5 * time.Minute

// Bar is the progress of one stage of n steps. A nil *Bar does nothing, so
// callers need not check for a disabled display.
type Bar struct {
	w     io.Writer
	pb    *progressbar.ProgressBar // nil in plain mode
	desc  string
	n     int
	cur   int
	start time.Time
	last  time.Time // the last plain line, or start
	done  bool
	now   func() time.Time
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// New starts the display of a stage of n steps on w (nil: none, a nil
// *Bar). On a terminal it is a bar with a count and, after the first
// second, the rate; elsewhere Finish writes one line.
func New(w io.Writer, n int, desc string) *Bar {
	if w == nil || n <= 0 {
		return nil
	}
	b := &Bar{w: w, desc: desc, n: n, now: time.Now}
	b.start = b.now()
	b.last = b.start
	if isTerminal(w) {
		b.pb = progressbar.NewOptions(n,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription(desc),
			progressbar.OptionShowCount(),
			progressbar.OptionSetWidth(30),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionThrottle(200*time.Millisecond),
			progressbar.OptionClearOnFinish(),
		)
	}
	return b
}

// rate is the steps per second so far, once a second has passed (before,
// a rate from a few steps is noise).
func (b *Bar) rate() (float64, bool) {
	el := b.now().Sub(b.start).Seconds()
	if el < 1 || b.cur == 0 {
		return 0, false
	}
	return float64(b.cur) / el, true
}

func (b *Bar) redraw() {
	if b.pb == nil {
		if t := b.now(); t.Sub(b.last) >= PlainEvery && b.cur < b.n {
			b.last = t
			fmt.Fprintln(b.w, b.line())
		}
		return
	}
	d := b.desc
	if r, ok := b.rate(); ok {
		d += " (" + rateText(r) + ")"
	}
	b.pb.Describe(d)
	b.pb.Set(b.cur)
}

// Add advances the stage by k steps.
func (b *Bar) Add(k int) {
	if b == nil {
		return
	}
	b.cur = min(b.cur+k, b.n)
	b.redraw()
}

// Set sets the steps done.
func (b *Bar) Set(k int) {
	if b == nil {
		return
	}
	b.cur = min(max(k, 0), b.n)
	b.redraw()
}

// Describe replaces the description.
func (b *Bar) Describe(desc string) {
	if b == nil {
		return
	}
	b.desc = desc
	b.redraw()
}

// Clear takes the bar off a terminal until its next update, so that a
// line can be written under it; plain lines need no clearing.
func (b *Bar) Clear() {
	if b != nil && b.pb != nil {
		b.pb.Clear()
	}
}

// Finish ends the stage: the bar is cleared, or the plain line written
// ("desc: 12/16 in 3.4s (3.5/s)"). Later calls do nothing.
func (b *Bar) Finish() {
	if b == nil || b.done {
		return
	}
	b.done = true
	if b.pb != nil {
		b.pb.Finish()
		return
	}
	fmt.Fprintln(b.w, b.line())
}

// line is the plain line of the stage so far: "desc: 12/16 in 3.4s (3.5/s)".
func (b *Bar) line() string {
	el := b.now().Sub(b.start)
	line := fmt.Sprintf("%s: %d/%d in %.1fs", b.desc, b.cur, b.n, el.Seconds())
	if el > 0 && b.cur > 0 {
		line += " (" + rateText(float64(b.cur)/el.Seconds()) + ")"
	}
	return line
}

// rateText writes steps per second, or per minute where a second's rate
// would print as 0.0 (a match of long games).
func rateText(perSecond float64) string {
	if perSecond < 0.1 {
		return fmt.Sprintf("%.1f/min", perSecond*60)
	}
	return fmt.Sprintf("%.1f/s", perSecond)
}
