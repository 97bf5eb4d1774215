package pool

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
)

// Progress draws a progress bar for work of a known size on a terminal,
// and nothing at all when its writer is not one (a pipe, a file, a test),
// so scripted output stays clean. It is safe for concurrent use.
type Progress struct {
	mu    sync.Mutex
	w     io.Writer
	label string
	done  int
	total int
}

// NewProgress returns a progress bar for total steps on w; it is silent
// unless w is a terminal.
func NewProgress(w io.Writer, label string, total int) *Progress {
	if !isTerminal(w) {
		w = nil
	}
	p := &Progress{w: w, label: label, total: total}
	p.draw()
	return p
}

// Step records one finished step.
func (p *Progress) Step() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	p.draw()
}

// Done clears the bar.
func (p *Progress) Done() {
	if p.w != nil {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

func (p *Progress) draw() {
	if p.w == nil || p.total <= 0 {
		return
	}
	const width = 30
	n := min(width, width*p.done/p.total) // an upper-bound total may be passed
	fmt.Fprintf(p.w, "\r%s [%s%s] %d/%d", p.label, strings.Repeat("=", n), strings.Repeat(" ", width-n), p.done, p.total)
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
