package spec

import (
	"errors"
	"fmt"
	"strings"
)

// Error is a problem in a spec, located by file, line, column and field
// path. Its message is one line, "file:line:column: field path: what is
// wrong", as compilers write them, so editors jump to it.
type Error struct {
	File   string // the file, or "--set" for an override
	Line   int    // 1-based; 0 when unknown
	Column int    // 1-based, where the field or value starts; 0 when unknown
	Path   string // dotted field path; "" for the whole document
	Msg    string // what is wrong and what is allowed
}

func (e *Error) Error() string {
	loc := e.File
	if e.Line > 0 {
		loc = fmt.Sprintf("%s:%d", loc, e.Line)
		if e.Column > 0 {
			loc = fmt.Sprintf("%s:%d", loc, e.Column)
		}
	}
	if e.Path != "" {
		return fmt.Sprintf("%s: field %s: %s", loc, e.Path, e.Msg)
	}
	return fmt.Sprintf("%s: %s", loc, e.Msg)
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

// Unflagged is err's message with the location of a spec error at a flag
// left out ("--set: field memory.l3.sise: …" becomes "field
// memory.l3.sise: …"): for a front end that took the value from somewhere
// else (a review file's entry, a sweep's --vary) and names that place
// itself.
func Unflagged(err error) string {
	var se *Error
	if !errors.As(err, &se) || !strings.HasPrefix(se.File, "--") {
		return err.Error()
	}
	bare := *se
	bare.File, bare.Line, bare.Column = "", 0, 0
	return strings.Replace(err.Error(), se.Error(), strings.TrimPrefix(bare.Error(), ": "), 1)
}

// OneLine folds a message onto one line (its runs of white space, line
// breaks among them, become one space), so an error quoting a file's
// value or another library's message stays one line.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
