package spec

import (
	"errors"
	"fmt"
	"strings"
)

// Error is the one error for bad input, whatever its language: a problem
// located by file, line, column and field path, or, for a value given
// directly rather than in a file, by the setting it was given to. Its
// message is one line, "file:line:column: field path: what is wrong", as
// compilers write them, so editors jump to it.
type Error struct {
	File   string // the file; "" for a value given directly
	Line   int    // 1-based; 0 when unknown
	Column int    // 1-based, where the field or value starts; 0 when unknown
	// Field is the setting a value given directly came from, when no file
	// did: a lower-case path such as "set", "soc", "threads" or
	// "draft.len". A front end names it as its user knows it (the CLI by
	// its flag: Named).
	Field string
	Path  string // dotted field path inside the value; "" for the whole of it
	Msg   string // what is wrong and what is allowed
	err   error  // what it wraps, from Errorf's %w
}

func (e *Error) Error() string { return e.Named(e.Field) }

// Named is the message with the setting called name (a flag, a key of a
// file) where it says Field; the error's own file and line when it has a
// file. A message about the setting's value starts with that value
// ("0 is not allowed: …", "\"x\": no catalog chip"), and one that starts
// with a colon is joined to the name without a space.
func (e *Error) Named(name string) string {
	loc := ""
	switch {
	case e.File == "" && e.Field != "":
		loc = name
	case e.File != "":
		loc = e.File
		if e.Line > 0 {
			loc = fmt.Sprintf("%s:%d", loc, e.Line)
			if e.Column > 0 {
				loc = fmt.Sprintf("%s:%d", loc, e.Column)
			}
		}
	}
	switch {
	case e.Path != "" && loc != "":
		return fmt.Sprintf("%s: field %s: %s", loc, e.Path, e.Msg)
	case e.Path != "":
		return fmt.Sprintf("field %s: %s", e.Path, e.Msg)
	case loc == "":
		return strings.TrimPrefix(e.Msg, ": ")
	case e.File != "":
		return loc + ": " + e.Msg
	case strings.HasPrefix(e.Msg, ":"):
		return loc + e.Msg
	}
	return loc + " " + e.Msg
}

// Unwrap is the error Errorf wrapped with %w, if any.
func (e *Error) Unwrap() error { return e.err }

// FieldErrorf is an Error in the setting field (see Error.Field).
func FieldErrorf(field, format string, args ...any) *Error {
	e := Errorf(format, args...)
	e.Field = field
	return e
}

// Errorf is an Error with no location (the caller's message says what is
// wrong). A %w verb wraps its error, so errors.Is finds a sentinel.
func Errorf(format string, args ...any) *Error {
	err := fmt.Errorf(format, args...)
	return &Error{Msg: err.Error(), err: errors.Unwrap(err)}
}

// IsSpecError reports whether err is, or wraps, an *Error: a problem with
// the user's input rather than with edgetwin.
func IsSpecError(err error) bool {
	var e *Error
	return errors.As(err, &e)
}

// UserInput is what every error about the user's input implements,
// whatever its package: a bad file, flag, field, record or request, not a
// fault of the program. It is the one rule for exit 2: the CLI exits 2 on
// an error that is or wraps one, and 1 on anything else.
type UserInput interface {
	error
	UserInput()
}

// IsUserInput reports whether err is, or wraps, a UserInput.
func IsUserInput(err error) bool {
	var u UserInput
	return errors.As(err, &u)
}

// UserInput marks a spec error as the user's input.
func (*Error) UserInput() {}

// Bare is err's message with the setting of an Error about a value given
// directly left out ("field memory.l3.sise: …" rather than "set: field
// memory.l3.sise: …"): for a front end that took the value from somewhere
// else (a review file's entry, a sweep's vary range) and names that place
// itself.
func Bare(err error) string {
	var se *Error
	if !errors.As(err, &se) || se.File != "" || se.Field == "" {
		return err.Error()
	}
	bare := *se
	bare.Field = ""
	return strings.Replace(err.Error(), se.Error(), bare.Error(), 1)
}

// Refield is err with the setting from, when it names one, renamed to:
// for a caller that took the value under another setting (a chip given
// as a candidate, a model as the draft). An error whose wrappers add to
// the message is left as it is.
func Refield(err error, from, to string) error {
	var se *Error
	if !errors.As(err, &se) || se.File != "" || se.Field != from || err.Error() != se.Error() {
		return err
	}
	e := *se
	e.Field = to
	return &e
}

// Prefixed is err with prefix before the path it names, when it names an
// override's (no file; the setting set, or none): for a caller that
// applied overrides to one part of a run without their prefix (model.,
// scenario., runtime.), so the message names the path as the user wrote
// it. An error located in a file, and one already prefixed, are left as
// they are.
func Prefixed(err error, prefix string) error {
	var se *Error
	if !errors.As(err, &se) || se.File != "" || (se.Field != "set" && se.Field != "") || se.Path == "" || strings.HasPrefix(se.Path, prefix) {
		return err
	}
	e := *se
	e.Path = prefix + se.Path
	return &e
}

// OneLine folds a message onto one line (its runs of white space, line
// breaks among them, become one space), so an error quoting a file's
// value or another library's message stays one line.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
