package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/edgetwin/edgetwin/internal/atomicfile"
	"github.com/edgetwin/edgetwin/reports"
)

// checkOutFile checks, before any work, that the file a flag names can be
// written (internal/atomicfile.CheckFile): its folder exists and takes a
// new file, and it is not a folder or a device. An empty path (the flag
// not given) passes. The error is bad input naming the flag and the path.
func checkOutFile(flag, path string) error {
	if path == "" {
		return nil
	}
	if err := atomicfile.CheckFile(path); err != nil {
		return inputErrorf("%s %s: %v", flag, path, err)
	}
	return nil
}

// checkOutFiles is checkOutFile for each flag and path pair.
func checkOutFiles(pairs ...string) error {
	for i := 0; i+1 < len(pairs); i += 2 {
		if err := checkOutFile(pairs[i], pairs[i+1]); err != nil {
			return err
		}
	}
	return nil
}

// outputErr is a failure to start writing the file a flag names: bad
// input when the path itself is the problem (a folder, a device, a
// missing folder), else an error of edgetwin's.
func outputErr(flag, path string, err error) error {
	if st, serr := os.Stat(path); serr == nil && !st.Mode().IsRegular() {
		return inputErrorf("%s %s: %v", flag, path, err)
	}
	if _, serr := os.Stat(filepath.Dir(path)); serr != nil {
		return inputErrorf("%s %s: %v", flag, path, err)
	}
	return fmt.Errorf("%s %s: %w", flag, path, err)
}

// checkSimulateOutputs checks simulate's --trace, --series and --ptrace
// files (and the floorplan --ptrace writes beside its file) before the run.
func checkSimulateOutputs(trace, series, ptrace string) error {
	if err := checkOutFiles("--trace", trace, "--series", series, "--ptrace", ptrace); err != nil {
		return err
	}
	if ptrace == "" {
		return nil
	}
	flp, err := reports.FloorplanPath(ptrace)
	if err != nil {
		return inputErrorf("--ptrace %s: %v", ptrace, err)
	}
	if err := checkOutFile("--ptrace", flp); err != nil {
		return err
	}
	return checkOutFile("--ptrace", reports.ConfigPath(ptrace))
}
