// Package target runs edgetwin's probe on a machine: this one, one reached
// with ssh, or an Android device reached with adb, and streams back the
// records the probe measures as it measures them.
//
// A target is named by an address that [Parse] reads:
//
//	local                      this machine
//	ssh://[user@]host[:port]   a machine with an sshd and a POSIX shell
//	adb://SERIAL               an Android device, as `adb devices` lists it
//
// [New] returns the [Target] behind an address. [Target.Platform] asks the
// machine what it is (`uname -s -m` over ssh, the ABI from `getprop
// ro.product.cpu.abi` over adb), [Build] cross-builds cmd/edgetwin-probe
// for that platform with the Go toolchain (GOOS, GOARCH, no cgo) when
// edgetwin runs from its source checkout ([FindCheckout]; else the user
// gives a binary, see [ErrNoProbeBinary]), and [Target.Run] copies it to a
// temporary directory on
// the machine, runs it, hands back each line it prints, and removes the
// directory afterwards, also when the run fails (and when edgetwin itself
// is killed, the shell that runs the probe there removes it as soon as the
// probe ends, at its next record on the closed connection).
//
// A [Session] takes those lines: the first is "#host " and the JSON of
// the probe's host description, each further one a record, parsed
// strictly and written at once through a calibrate.Writer (which flushes
// and fsyncs every record). A lost connection, a killed probe, a timeout
// or Ctrl-C therefore keeps every record received; [Session.Missing]
// names the steps of the probe's plan that have no record.
//
// ssh and scp are the system's OpenSSH client, run with BatchMode (never a
// prompt), edgetwin's own known_hosts file (a new host's key is accepted
// once, then must match), a connect timeout and server keep-alives, so a
// dead connection ends the run within about 15 s. The system client reads
// the user's ~/.ssh/config, agent and keys as every other tool does. adb
// is the adb client on PATH.
//
// A typical run, as `edgetwin calibrate probe` does it:
//
//	addr, err := target.Parse("ssh://pi@raspberrypi.local")
//	t, err := target.New(addr, target.Options{SSHKey: key, KnownHosts: kh})
//	plat, err := t.Platform(ctx)
//	root, ok := target.FindCheckout(target.SearchDirs()...)
//	bin, err := target.Build(ctx, root, plat, tmp)
//	s := target.NewSession(t.String(), w, probe.Plan(opts))
//	err = t.Run(ctx, bin, target.ProbeArgs(opts), s.Line, os.Stderr)
//	fmt.Println(s.Summary(time.Since(start)))
package target
