package spec

import (
	"strings"
	"testing"
)

func TestDuplicateJSONKey(t *testing.T) {
	for _, tc := range []struct{ data, want string }{
		{`{"a": 1, "b": {"c": [1, {"d": 2}]}}`, ""},
		{`{"a": 1, "b": 2, "a": 3}`, `x.json:1: field a: duplicate key "a" (first at line 1)`},
		{"{\n \"a\": {\"x\": 1,\n  \"x\": 2}\n}", `x.json:3: field a.x: duplicate key "x" (first at line 2)`},
		{`{"l": [{"k": 1}, {"k": 2}], "m": [{"k": 1, "k": 1}]}`, `field m.k: duplicate key "k"`},
		{`{"a": [1, 2], "a": 3}`, `duplicate key "a"`},
		{`{"a": 1,`, ""}, // the syntax error is the caller's
	} {
		err := DuplicateJSONKey("x.json", 1, []byte(tc.data))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.data, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: got %v, want %q", tc.data, err, tc.want)
		}
	}
}
