package target

import (
	"fmt"
	"runtime"
	"strings"
)

// Platform is what a probe binary is built for: Go's GOOS and GOARCH, and
// GOARM for 32-bit ARM.
type Platform struct {
	OS, Arch string
	ARM      string // GOARM ("5", "6", "7"); empty but for Arch "arm"
}

// Host is the platform edgetwin itself runs on.
func Host() Platform { return Platform{OS: runtime.GOOS, Arch: runtime.GOARCH} }

// String prints "os/arch", with "v7" and the like for ARM.
func (p Platform) String() string {
	s := p.OS + "/" + p.Arch
	if p.ARM != "" {
		s += "v" + p.ARM
	}
	return s
}

// Env is the Go toolchain's environment for a build of a static binary
// for p.
func (p Platform) Env() []string {
	env := []string{"GOOS=" + p.OS, "GOARCH=" + p.Arch, "CGO_ENABLED=0"}
	if p.ARM != "" {
		env = append(env, "GOARM="+p.ARM)
	}
	return env
}

var unameOS = map[string]string{
	"Linux": "linux", "Darwin": "darwin", "FreeBSD": "freebsd", "OpenBSD": "openbsd", "NetBSD": "netbsd",
}

var unameArch = map[string]Platform{
	"x86_64": {Arch: "amd64"}, "amd64": {Arch: "amd64"},
	"aarch64": {Arch: "arm64"}, "arm64": {Arch: "arm64"},
	"armv8l": {Arch: "arm", ARM: "7"}, "armv7l": {Arch: "arm", ARM: "7"}, "armv6l": {Arch: "arm", ARM: "6"},
	"armv5tel": {Arch: "arm", ARM: "5"},
	"i386":     {Arch: "386"}, "i686": {Arch: "386"},
	"riscv64": {Arch: "riscv64"}, "ppc64le": {Arch: "ppc64le"}, "s390x": {Arch: "s390x"}, "loongarch64": {Arch: "loong64"},
}

// parseUname reads the output of `uname -s -m`, such as "Linux aarch64".
func parseUname(out string) (Platform, error) {
	f := strings.Fields(out)
	if len(f) != 2 {
		return Platform{}, fmt.Errorf("`uname -s -m` printed %q; want the system and the machine, such as \"Linux aarch64\"", strings.TrimSpace(out))
	}
	goos, ok := unameOS[f[0]]
	if !ok {
		return Platform{}, fmt.Errorf("system %q (from uname -s) has no probe build; known: %s", f[0], keys(unameOS))
	}
	p, ok := unameArch[f[1]]
	if !ok {
		return Platform{}, fmt.Errorf("machine %q (from uname -m) has no probe build; known: %s", f[1], keys(unameArch))
	}
	p.OS = goos
	return p, nil
}

// androidABI maps an Android ABI (ro.product.cpu.abi) to the Linux build
// that runs on it: a static Go binary for Linux runs on Android.
var androidABI = map[string]Platform{
	"arm64-v8a":   {OS: "linux", Arch: "arm64"},
	"armeabi-v7a": {OS: "linux", Arch: "arm", ARM: "7"},
	"armeabi":     {OS: "linux", Arch: "arm", ARM: "5"},
	"x86_64":      {OS: "linux", Arch: "amd64"},
	"x86":         {OS: "linux", Arch: "386"},
	"riscv64":     {OS: "linux", Arch: "riscv64"},
}

// parseABI reads the output of `getprop ro.product.cpu.abi`.
func parseABI(out string) (Platform, error) {
	abi := strings.TrimSpace(out)
	p, ok := androidABI[abi]
	if !ok {
		return Platform{}, fmt.Errorf("ABI %q (from getprop ro.product.cpu.abi) has no probe build; known: %s", abi, keys(androidABI))
	}
	return p, nil
}
