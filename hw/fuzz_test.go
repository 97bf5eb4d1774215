package hw

import (
	"strings"
	"testing"

	"github.com/edgetwin/edgetwin/hw/spec"
)

// FuzzLoad: no input makes the chip loader panic, and every failure is a
// one-line *spec.Error.
func FuzzLoad(f *testing.F) {
	f.Add([]byte(minimal))
	for _, id := range ChipIDs() {
		src, _ := ChipSource(id)
		f.Add(src)
	}
	f.Add([]byte("name: x\nmemory: {dram: {type: LPDDR5, bandwidth: 1e308 TB/s, capacity: 1 B}}\nunits: []\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Load("fuzz.yaml", data, nil)
		if err != nil {
			if !spec.IsSpecError(err) {
				t.Fatalf("error %T is not a *spec.Error: %v", err, err)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error: %q", err)
			}
			return
		}
		if c.Memory.DRAM.Bandwidth <= 0 || len(c.Units) == 0 {
			t.Fatalf("loaded an impossible chip: %+v", c.SoC)
		}
	})
}
