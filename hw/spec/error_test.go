package spec

import (
	"errors"
	"fmt"
	"testing"
)

// TestErrorNamesItsPlace holds the one error's rendering: a file's error
// leads with file:line:column, a value given directly with its setting,
// which a front end may call by its own name (Named); Bare drops the
// setting for a caller that names the place itself; Refield renames it.
func TestErrorNamesItsPlace(t *testing.T) {
	inFile := &Error{File: "chip.yaml", Line: 7, Column: 9, Path: "memory.l3.ways", Msg: `"twelve" is not an integer`}
	threads := FieldErrorf("threads", "0 is not allowed: must be 1 or more")
	set := &Error{Field: "set", Path: "memory.l3.sise", Msg: "unknown path"}
	chip := FieldErrorf("soc", "%q: no catalog chip", "seed-z")
	glued := FieldErrorf("vary", ": the ranges give more than 10 points")
	for _, tc := range []struct {
		err         *Error
		error, flag string
	}{
		{inFile, `chip.yaml:7:9: field memory.l3.ways: "twelve" is not an integer`, `chip.yaml:7:9: field memory.l3.ways: "twelve" is not an integer`},
		{threads, "threads 0 is not allowed: must be 1 or more", "--threads 0 is not allowed: must be 1 or more"},
		{set, "set: field memory.l3.sise: unknown path", "--set: field memory.l3.sise: unknown path"},
		{chip, `soc "seed-z": no catalog chip`, `--soc "seed-z": no catalog chip`},
		{glued, "vary: the ranges give more than 10 points", "--vary: the ranges give more than 10 points"},
		{Errorf("no record"), "no record", "no record"},
	} {
		if got := tc.err.Error(); got != tc.error {
			t.Errorf("Error() = %q, want %q", got, tc.error)
		}
		if got := tc.err.Named("--" + tc.err.Field); got != tc.flag {
			t.Errorf("Named = %q, want %q", got, tc.flag)
		}
	}
	if got, want := Bare(set), "field memory.l3.sise: unknown path"; got != want {
		t.Errorf("Bare(set) = %q, want %q", got, want)
	}
	if got, want := Bare(fmt.Errorf("chips.1: %w", chip)), `chips.1: "seed-z": no catalog chip`; got != want {
		t.Errorf("Bare(wrapped) = %q, want %q", got, want)
	}
	if got := Bare(inFile); got != inFile.Error() {
		t.Errorf("Bare of a file's error = %q, want it whole", got)
	}
	if got, want := Refield(chip, "soc", "candidates").Error(), `candidates "seed-z": no catalog chip`; got != want {
		t.Errorf("Refield = %q, want %q", got, want)
	}
	wrapped := fmt.Errorf("loading: %w", chip)
	if Refield(wrapped, "soc", "candidates") != wrapped || Refield(threads, "soc", "candidates") != error(threads) {
		t.Error("Refield changed an error that adds to the message or names another setting")
	}
	sentinel := errors.New("no record the simulator can predict")
	if err := Errorf("%w: a reason", sentinel); !errors.Is(err, sentinel) || err.Error() != "no record the simulator can predict: a reason" {
		t.Errorf("Errorf(%%w) = %v, want it to wrap the sentinel", err)
	}
}

// Prefixed puts the part's prefix before the path of an override's error
// (set, or no setting), once, and leaves an error located in a file as
// the file names it.
func TestPrefixed(t *testing.T) {
	for _, c := range []struct {
		err  *Error
		want string
	}{
		{&Error{Field: "set", Path: "context"}, "runtime.context"},
		{&Error{Path: "context"}, "runtime.context"},
		{&Error{Field: "set", Path: "runtime.context"}, "runtime.context"},
		{&Error{File: "x.yaml", Line: 3, Path: "context"}, "context"},
		{&Error{Field: "soc", Path: "context"}, "context"},
	} {
		var got *Error
		if !errors.As(Prefixed(c.err, "runtime."), &got) || got.Path != c.want {
			t.Errorf("%+v: path %q, want %q", *c.err, got.Path, c.want)
		}
	}
	if c := (&Error{Path: "x"}); Prefixed(c, "m.") == error(c) || c.Path != "x" {
		t.Error("Prefixed changed the error it was given, or returned it unprefixed")
	}
}
