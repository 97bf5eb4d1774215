package atomicfile_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/edgetwin/edgetwin/internal/atomicfile"
)

// A failed write leaves the earlier file as it was.
func Example() {
	dir, _ := os.MkdirTemp("", "atomicfile-example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "overlay.yaml")

	atomicfile.WriteFile(path, []byte("gemv_efficiency: 0.61\n"))
	err := atomicfile.Write(path, func(w io.Writer) error {
		io.WriteString(w, "gemv_eff")
		return errors.New("killed midway")
	})
	data, _ := os.ReadFile(path)
	fmt.Printf("%v; the file still reads %q\n", err, data)
	// Output: killed midway; the file still reads "gemv_efficiency: 0.61\n"
}
