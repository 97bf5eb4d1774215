package pool

import (
	"bytes"
	"testing"
)

func TestProgressQuietOffTerminal(t *testing.T) {
	var b bytes.Buffer
	p := NewProgress(&b, "sweep", 4)
	p.Step()
	p.Done()
	if b.Len() != 0 {
		t.Errorf("wrote %q to a non-terminal", b.String())
	}
}

func TestProgressBar(t *testing.T) {
	var b bytes.Buffer
	p := &Progress{w: &b, label: "sweep", total: 4}
	p.Step()
	// One of four steps: a quarter of the 30-character bar (7 '=').
	if want := "\rsweep [=======                       ] 1/4"; b.String() != want {
		t.Errorf("drew %q, want %q", b.String(), want)
	}
}
