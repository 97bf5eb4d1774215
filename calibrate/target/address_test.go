package target

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Address
		str  string // String(), when it differs from in
	}{
		{"local", Address{Scheme: Local}, ""},
		{"LOCAL", Address{Scheme: Local}, "local"},
		{"ssh://pi@raspberrypi.local", Address{Scheme: SSH, User: "pi", Host: "raspberrypi.local"}, ""},
		{"ssh://root@127.0.0.1:2222", Address{Scheme: SSH, User: "root", Host: "127.0.0.1", Port: 2222}, ""},
		{"ssh://board", Address{Scheme: SSH, Host: "board"}, ""},
		{"SSH://u@h:22", Address{Scheme: SSH, User: "u", Host: "h", Port: 22}, "ssh://u@h:22"},
		{"ssh://me@[::1]:2200", Address{Scheme: SSH, User: "me", Host: "::1", Port: 2200}, ""},
		{"ssh://[fe80::1]", Address{Scheme: SSH, Host: "fe80::1"}, ""},
		{"adb://emulator-5554", Address{Scheme: ADB, Serial: "emulator-5554"}, ""},
		{"adb://192.168.1.20:5555", Address{Scheme: ADB, Serial: "192.168.1.20:5555"}, ""},
		{"adb://R58M40ABCDE", Address{Scheme: ADB, Serial: "R58M40ABCDE"}, ""},
	} {
		got, err := Parse(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
			continue
		}
		want := tc.str
		if want == "" {
			want = tc.in
		}
		if got.String() != want {
			t.Errorf("Parse(%q).String() = %q, want %q", tc.in, got.String(), want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", `target "": empty`},
		{"raspberrypi", `target "raspberrypi": not a known target`},
		{"http://host", `unknown scheme "http"`},
		{"local://x", "local takes no address"},
		{"ssh://", "empty host"},
		{"ssh://u@", "empty host"},
		{"ssh://@h", "empty user"},
		{"ssh://u:secret@h", "no password in the target"},
		{"ssh://h:0", `port "0" is not a number from 1 to 65535`},
		{"ssh://h:65536", `port "65536" is not a number`},
		{"ssh://h:22x", `port "22x" is not a number`},
		{"ssh://h:+22", `port "+22" is not a number`},
		{"ssh://h:", "empty port after the colon"},
		{"ssh://h/tmp", `"/tmp" after the host`},
		{"ssh://h?x=1", `"?x=1" after the host`},
		{"ssh://::1", "an IPv6 address goes in brackets"},
		{"ssh://[::1", "without its closing ]"},
		{"ssh://[1.2.3.4]", "is not an IPv6 address"},
		{"ssh://[::1]x", `"x" after the IPv6 address`},
		{"ssh://-oProxyCommand=x", `host "-oProxyCommand=x" starts with -`},
		{"ssh://-l@h", `user "-l" starts with -`},
		{"ssh://u@h;rm", `host "h;rm" has ';'`},
		{"ssh://u@h o", `host "h o" has ' '`},
		{"adb://", "empty serial"},
		{"adb://-d", `serial "-d" starts with -`},
		{"adb://a b", `serial "a b" has ' '`},
		{"adb://emu/1", `serial "emu/1" has '/'`},
	} {
		_, err := Parse(tc.in)
		if err == nil {
			t.Errorf("Parse(%q): no error, want %q", tc.in, tc.want)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, tc.want) || !strings.HasSuffix(msg, "; use "+Forms) || strings.Contains(msg, "\n") {
			t.Errorf("Parse(%q): %q, want one line with %q and the allowed forms", tc.in, msg, tc.want)
		}
	}
}

// FuzzParse: Parse never panics, and what it accepts prints in a form
// that parses back to the same address.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"local", "ssh://root@127.0.0.1:2222", "ssh://[::1]:22", "adb://emulator-5554", "ssh://u:p@h", "adb://1.2.3.4:5555", "ssh://h:99999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := Parse(s)
		if err != nil {
			if strings.Contains(err.Error(), "\n") && !strings.Contains(s, "\n") {
				t.Fatalf("Parse(%q): error spans lines: %q", s, err)
			}
			return
		}
		b, err := Parse(a.String())
		if err != nil || b != a {
			t.Fatalf("Parse(%q) = %+v prints %q, which parses to %+v, %v", s, a, a.String(), b, err)
		}
	})
}

func TestPlatforms(t *testing.T) {
	for _, tc := range []struct{ uname, want string }{
		{"Linux x86_64\n", "linux/amd64"},
		{"Linux aarch64", "linux/arm64"},
		{"Linux armv7l", "linux/armv7"},
		{"Linux armv6l", "linux/armv6"},
		{"Darwin arm64", "darwin/arm64"},
		{"FreeBSD amd64", "freebsd/amd64"},
		{"Linux riscv64", "linux/riscv64"},
	} {
		p, err := parseUname(tc.uname)
		if err != nil || p.String() != tc.want {
			t.Errorf("uname %q: %v, %v; want %s", tc.uname, p, err, tc.want)
		}
	}
	for _, bad := range []string{"", "Linux", "Plan9 mips", "Linux sparc64", "Linux x86_64 extra"} {
		if _, err := parseUname(bad); err == nil {
			t.Errorf("uname %q: no error", bad)
		}
	}
	for _, tc := range []struct{ abi, want string }{
		{"arm64-v8a\r\n", "linux/arm64"}, {"x86_64", "linux/amd64"}, {"armeabi-v7a", "linux/armv7"}, {"x86", "linux/386"},
	} {
		p, err := parseABI(tc.abi)
		if err != nil || p.String() != tc.want {
			t.Errorf("abi %q: %v, %v; want %s", tc.abi, p, err, tc.want)
		}
	}
	_, err := parseABI("mips")
	if err == nil || !strings.Contains(err.Error(), "known: arm64-v8a, armeabi, armeabi-v7a, riscv64, x86, x86_64") {
		t.Errorf("abi mips: %v", err)
	}
	env := strings.Join(Platform{OS: "linux", Arch: "arm", ARM: "7"}.Env(), " ")
	if env != "GOOS=linux GOARCH=arm CGO_ENABLED=0 GOARM=7" {
		t.Errorf("env %q", env)
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"-soc":          "-soc",
		"chips/x.yaml":  "chips/x.yaml",
		"my chip":       "'my chip'",
		"it's":          `'it'\''s'`,
		"$(rm -rf /)":   "'$(rm -rf /)'",
		"":              "''",
		"/tmp/a b/c;ls": "'/tmp/a b/c;ls'",
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestFindCheckout(t *testing.T) {
	dir := t.TempDir()
	deep := filepath.Join(dir, "a", "b")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, ok := FindCheckout(deep); ok {
		t.Fatalf("found a checkout above %s", deep)
	}
	// Another module's go.mod is not a checkout of edgetwin.
	os.WriteFile(filepath.Join(dir, "a", "go.mod"), []byte("module example.com/other\n"), 0o644)
	if _, ok := FindCheckout(deep); ok {
		t.Errorf("example.com/other taken for edgetwin")
	}
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("// edgetwin\nmodule \"github.com/edgetwin/edgetwin\" // the twin\n\ngo 1.26\n"), 0o644)
	if root, ok := FindCheckout("", deep); !ok || root != dir {
		t.Errorf("FindCheckout = %q, %v; want %s", root, ok, dir)
	}
	wd, _ := os.Getwd()
	if root, ok := FindCheckout(wd); !ok || filepath.Join(root, "calibrate", "target") != wd {
		t.Errorf("from the package: %q, %v", root, ok)
	}
}
