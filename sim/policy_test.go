package sim

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/edgetwin/edgetwin/hw/spec"
)

// TestPolicyShares loads every policy under testdata/policies: each says
// what it exercises and what the error must contain (# want: a | b), or
// "# want: OK" for one that loads.
func TestPolicyShares(t *testing.T) {
	files, _ := filepath.Glob("testdata/policies/*.yaml")
	if len(files) == 0 {
		t.Fatal("no test policies")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, l := range strings.Split(string(data), "\n") {
				if w, ok := strings.CutPrefix(l, "# want: "); ok {
					want = strings.Split(w, " | ")
				}
			}
			_, err = DecodePolicy(filepath.Base(f), data)
			if len(want) == 1 && want[0] == "OK" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !spec.IsSpecError(err) {
				t.Fatalf("got %v, want a *spec.Error", err)
			}
			for _, w := range want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("message %q lacks %q", err, w)
				}
			}
		})
	}
}
