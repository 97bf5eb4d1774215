// Command fakeprobe stands in for edgetwin-probe in tests: it speaks the
// same protocol ("#host " and the host's JSON, then one record a line,
// flushed) without measuring anything, slowly enough to be interrupted.
// It takes edgetwin-probe's flags and these (targettest.FakeProbeScript
// passes them through the edgetwin CLI):
//
//	-steps N      records to print, one per step of targettest.Plan(N) (6)
//	-delay D      pause before each record (20ms)
//	-pidfile F    write its pid to F
//	-bad-at K     print a line that is not a record in place of record K
//
// It says on stderr where its executable is, so that tests can check that
// it was removed. SIGINT and SIGTERM stop it after the current record,
// with status 1.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"github.com/edgetwin/edgetwin/calibrate"
	"github.com/edgetwin/edgetwin/calibrate/probe"
	"github.com/edgetwin/edgetwin/calibrate/target/targettest"
)

func main() {
	flag.Bool("quick", false, "ignored")
	flag.Int("threads", 0, "ignored")
	soc := flag.String("soc", "host", "the records' soc")
	steps := flag.Int("steps", 6, "records to print")
	delay := flag.Duration("delay", 20*time.Millisecond, "pause before each record")
	pidfile := flag.String("pidfile", "", "file to write the pid to")
	badAt := flag.Int("bad-at", 0, "record number replaced by a bad line")
	flag.Parse()

	if *pidfile != "" {
		if err := os.WriteFile(*pidfile, []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
			fail(err)
		}
	}
	if exe, err := os.Executable(); err == nil {
		fmt.Fprintf(os.Stderr, "fakeprobe: running as %s\n", exe)
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)

	host, _ := json.Marshal(probe.Host{OS: runtime.GOOS, Arch: runtime.GOARCH})
	fmt.Printf("#host %s\n", host)
	w := calibrate.NewWriter(os.Stdout)
	for i, st := range targettest.Plan(*steps) {
		fmt.Fprintf(os.Stderr, "fakeprobe: %s\n", st.Name)
		time.Sleep(*delay)
		if i+1 == *badAt {
			fmt.Println("this is not a record")
			continue
		}
		if err := w.Write(targettest.Record(st, *soc)); err != nil {
			fail(err)
		}
		select {
		case <-stop:
			fail(fmt.Errorf("interrupted after %s", st.Name))
		default:
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "fakeprobe:", err)
	os.Exit(1)
}
