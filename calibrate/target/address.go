package target

import (
	"fmt"
	"net"
	"strconv"
	"strings"
)

// Scheme is the kind of a target.
type Scheme string

// The kinds of target.
const (
	Local Scheme = "local" // this machine
	SSH   Scheme = "ssh"   // a machine reached with OpenSSH
	ADB   Scheme = "adb"   // an Android device reached with adb
)

// Forms lists the target forms Parse reads, for messages.
const Forms = "local, ssh://[user@]host[:port] or adb://SERIAL"

// Address is a parsed target: this machine, an ssh destination or an adb
// serial.
type Address struct {
	Scheme Scheme
	// User and Host are an ssh target's login and machine (a name or an
	// IP address; an IPv6 address without brackets). User may be empty:
	// ssh's configuration decides then.
	User, Host string
	// Port is an ssh target's port; 0 leaves it to ssh (22 unless its
	// configuration says otherwise).
	Port int
	// Serial is an adb target's device serial, as `adb devices` lists it.
	Serial string
}

// String is the address in the form Parse reads.
func (a Address) String() string {
	switch a.Scheme {
	case SSH:
		var b strings.Builder
		b.WriteString("ssh://")
		if a.User != "" {
			b.WriteString(a.User + "@")
		}
		if strings.Contains(a.Host, ":") {
			b.WriteString("[" + a.Host + "]")
		} else {
			b.WriteString(a.Host)
		}
		if a.Port != 0 {
			b.WriteString(":" + strconv.Itoa(a.Port))
		}
		return b.String()
	case ADB:
		return "adb://" + a.Serial
	}
	return string(a.Scheme)
}

// Parse reads a target: "local", "ssh://[user@]host[:port]" or
// "adb://SERIAL". Errors are one line that names the target and the
// allowed forms.
func Parse(s string) (Address, error) {
	fail := func(format string, args ...any) (Address, error) {
		return Address{}, fmt.Errorf("target %q: %s; use %s", s, fmt.Sprintf(format, args...), Forms)
	}
	if strings.EqualFold(s, "local") {
		return Address{Scheme: Local}, nil
	}
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok {
		if s == "" {
			return fail("empty")
		}
		return fail("not a known target")
	}
	switch Scheme(strings.ToLower(scheme)) {
	case SSH:
		a, msg := parseSSH(rest)
		if msg != "" {
			return fail("%s", msg)
		}
		return a, nil
	case ADB:
		if msg := checkName(rest, "serial", "letters, digits and . _ : -"); msg != "" {
			return fail("%s", msg)
		}
		return Address{Scheme: ADB, Serial: rest}, nil
	case Local:
		return fail("local takes no address")
	}
	return fail("unknown scheme %q", scheme)
}

// parseSSH reads "[user@]host[:port]"; the message says what is wrong.
func parseSSH(s string) (Address, string) {
	if i := strings.IndexAny(s, "/?#"); i >= 0 {
		return Address{}, fmt.Sprintf("%q after the host: an ssh target has no path, query or fragment", s[i:])
	}
	a := Address{Scheme: SSH}
	if user, host, ok := strings.Cut(s, "@"); ok {
		if strings.Contains(user, ":") {
			return Address{}, "no password in the target: give a key with --ssh-key"
		}
		if msg := checkName(user, "user", "letters, digits and . _ -"); msg != "" {
			return Address{}, msg
		}
		a.User, s = user, host
	}
	host, port := s, ""
	if strings.HasPrefix(s, "[") {
		end := strings.Index(s, "]")
		if end < 0 {
			return Address{}, "IPv6 address without its closing ]"
		}
		host, port = s[1:end], s[end+1:]
		if ip := net.ParseIP(host); ip == nil || ip.To4() != nil {
			return Address{}, fmt.Sprintf("%q in brackets is not an IPv6 address", host)
		}
		if port != "" && !strings.HasPrefix(port, ":") {
			return Address{}, fmt.Sprintf("%q after the IPv6 address; want :port", port)
		}
		port = strings.TrimPrefix(port, ":")
	} else {
		if strings.Count(s, ":") > 1 {
			return Address{}, "an IPv6 address goes in brackets: ssh://user@[::1]:22"
		}
		var hasPort bool
		host, port, hasPort = strings.Cut(s, ":")
		if hasPort && port == "" {
			return Address{}, "empty port after the colon"
		}
		if msg := checkName(host, "host", "letters, digits and . _ -"); msg != "" {
			return Address{}, msg
		}
	}
	a.Host = host
	if port != "" {
		p, err := strconv.Atoi(port)
		if err != nil || p < 1 || p > 65535 || strings.TrimLeft(port, "0123456789") != "" {
			return Address{}, fmt.Sprintf("port %q is not a number from 1 to 65535", port)
		}
		a.Port = p
	}
	return a, ""
}

// checkName accepts a user, host or serial: not empty, not starting with
// "-" (it would read as an option of ssh or adb), and only the characters
// allowed says (":" only in serials).
func checkName(s, what, allowed string) string {
	if s == "" {
		return "empty " + what
	}
	if s[0] == '-' {
		return fmt.Sprintf("%s %q starts with -", what, s)
	}
	for _, c := range s {
		ok := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-' ||
			c == ':' && what == "serial"
		if !ok {
			return fmt.Sprintf("%s %q has %q; allowed: %s", what, s, c, allowed)
		}
	}
	return ""
}
