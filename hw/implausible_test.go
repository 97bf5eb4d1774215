package hw

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/edgetwin/edgetwin/hw/spec"
)

// TestImplausibleChips loads every chip under testdata/implausible. Each
// file says in its first lines what it exercises (# exercises: …) and what
// the message must contain (# want: a | b | …, substrings); each must be a
// one-line *spec.Error.
func TestImplausibleChips(t *testing.T) {
	files, err := filepath.Glob("testdata/implausible/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no test chips: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			exercises := false
			for _, l := range strings.Split(string(data), "\n") {
				if w, ok := strings.CutPrefix(l, "# want: "); ok {
					for _, s := range strings.Split(w, " | ") {
						want = append(want, strings.TrimSpace(s))
					}
				}
				exercises = exercises || strings.HasPrefix(l, "# exercises: ")
			}
			if len(want) == 0 || !exercises {
				t.Fatal("the file lacks its # exercises: and # want: lines")
			}
			_, err = Load(filepath.Base(f), data, nil)
			if err == nil {
				t.Fatal("loaded an implausible chip")
			}
			if !spec.IsSpecError(err) {
				t.Errorf("error %T is not a *spec.Error", err)
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") {
				t.Errorf("message spans lines: %q", msg)
			}
			for _, w := range want {
				if !strings.Contains(msg, w) {
					t.Errorf("message %q lacks %q", msg, w)
				}
			}
		})
	}
}
