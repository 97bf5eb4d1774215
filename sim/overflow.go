package sim

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/sim/des"
)

// maxSimSeconds is the longest simulated time a run may reach: half the
// span of des.Time (int64 picoseconds, about 106 days), so that a time the
// engine saturated to des.MaxTime, or one on its way there, is never
// mistaken for a result.
var maxSimSeconds = des.MaxTime.Seconds() / 2

// MaxSeconds is the longest simulated time a run may reach (about 53
// days); a run that would go past it fails with an error IsTimeOverflow
// recognises.
var MaxSeconds = maxSimSeconds

// errTimeOverflow marks the input errors of runs whose simulated time
// overflowed, for callers that search figures (a calibration fit) and
// take such a run as merely the slowest possible one.
var errTimeOverflow = errors.New("simulated time overflows")

// overflow is the *spec.Error of an overflowed run, marked so that
// IsTimeOverflow finds it; it prints as the spec.Error.
type overflow struct{ err *spec.Error }

func (o overflow) Error() string   { return o.err.Error() }
func (o overflow) Unwrap() []error { return []error{o.err, errTimeOverflow} }

// IsTimeOverflow reports whether err is, or wraps, the error of a run
// whose simulated time would have overflowed (it is also a *spec.Error).
func IsTimeOverflow(err error) bool { return errors.Is(err, errTimeOverflow) }

// overflowed reports whether a pass that started at start and took t
// seconds ran past what simulated time can hold (or is not a number).
func overflowed(start, t float64) bool {
	end := start + t
	return math.IsNaN(end) || math.IsInf(end, 0) || t < 0 || end >= maxSimSeconds
}

// overflowError is the input error for a run whose simulated time
// overflowed in pass: it names the figure that made the run that long (the
// largest share of its time) and where that figure came from.
func (e *engine) overflowError(pass string) error {
	c := e.cfg
	unit := "units." + e.unit.Name
	type culprit struct {
		seconds float64
		paths   []string
	}
	// The figures as the run used them, which a program may have changed
	// since the chip loaded.
	live := map[string]string{
		"memory.dram.bandwidth":        c.Chip.Memory.DRAM.Bandwidth.String(),
		"dma.setup":                    c.Chip.DMA.Setup.String(),
		unit + ".peak." + string(e.dt): e.unit.Peak[e.dt].String(),
		unit + ".dispatch":             e.unit.Dispatch.String(),
		unit + ".barrier":              e.unit.Barrier.String(),
	}
	st := e.st
	cands := []culprit{
		{st.stallMem, []string{"memory.dram.bandwidth", "dma.setup", "memory.dram.latency"}},
		{st.compute, []string{unit + ".peak." + string(e.dt), unit + ".clock"}},
		{st.dispatch, []string{unit + ".dispatch", unit + ".barrier"}},
		{st.fallback, []string{unit + ".fallback_sync"}},
		{st.host, []string{"units." + e.hostName() + ".dispatch"}},
	}
	best := cands[0]
	for _, k := range cands[1:] {
		if k.seconds > best.seconds || math.IsNaN(best.seconds) {
			best = k
		}
	}
	prov := map[string]spec.Entry{}
	for _, p := range c.Chip.Provenance {
		prov[p.Path] = p
	}
	var named []string
	for _, p := range best.paths {
		if en, ok := prov[p]; ok {
			v := en.Value
			if l, ok := live[p]; ok {
				v = l
			}
			named = append(named, fmt.Sprintf("%s = %s (%s)", p, v, en.Source))
		}
	}
	msg := fmt.Sprintf("the %s would take more than %.0f days of simulated time, beyond what the simulator's clock (int64 picoseconds) holds; the time goes to %s: check %s",
		pass, maxSimSeconds/86400, e.share(best.paths[0]), strings.Join(named, ", "))
	err := &spec.Error{File: c.Chip.ID, Path: best.paths[0], Msg: msg}
	switch en, ok := prov[best.paths[0]]; {
	case ok && en.Source == spec.SetOrigin:
		err.File, err.Field = "", "set"
	case ok:
		err.File, err.Line = locate(en.Source, c.Chip.ID)
	}
	return overflow{err}
}

// share says in words what a culprit path's time is.
func (e *engine) share(path string) string {
	switch {
	case strings.HasPrefix(path, "memory."):
		return "waiting for memory"
	case strings.HasSuffix(path, ".dispatch"):
		return "dispatching operators"
	case strings.HasSuffix(path, ".fallback_sync"):
		return "handing operators to the CPU"
	}
	return "computing"
}

func (e *engine) hostName() string {
	if e.host != nil {
		return e.host.Name
	}
	return e.unit.Name
}

var fileLine = regexp.MustCompile(`^(.*):(\d+)$`)

// locate turns a provenance source into a file and line: "chip.yaml:6",
// or, for a catalog citation, the chip's id with no line.
func locate(source, chip string) (string, int) {
	if m := fileLine.FindStringSubmatch(source); m != nil && !strings.Contains(m[1], " ") {
		n, _ := strconv.Atoi(m[2])
		return m[1], n
	}
	return chip, 0
}

// nonFinite finds the first number of v (a result, walked field by field
// by their JSON names) that is NaN or infinite, and returns its path, or "".
func nonFinite(v reflect.Value, path string) string {
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		if f := v.Float(); math.IsNaN(f) || math.IsInf(f, 0) {
			return path
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			return nonFinite(v.Elem(), path)
		}
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" {
				continue
			}
			sub := joinPath(path, name)
			switch {
			case name == "" && f.Anonymous: // its fields are the outer object's in JSON
				sub = path
			case name == "":
				sub = joinPath(path, f.Name)
			}
			if p := nonFinite(v.Field(i), sub); p != "" {
				return p
			}
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			if p := nonFinite(v.Index(i), joinPath(path, strconv.Itoa(i))); p != "" {
				return p
			}
		}
	case reflect.Map:
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return fmt.Sprint(keys[i]) < fmt.Sprint(keys[j]) })
		for _, k := range keys {
			if p := nonFinite(v.MapIndex(k), joinPath(path, fmt.Sprint(k))); p != "" {
				return p
			}
		}
	}
	return ""
}

// anyNonFinite reports whether v holds a number nonFinite would find,
// walking the same fields without naming them; it skips what cannot hold
// a float (a result's provenance, its labels), which is most of a result.
func anyNonFinite(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		f := v.Float()
		return math.IsNaN(f) || math.IsInf(f, 0)
	case reflect.Pointer, reflect.Interface:
		return !v.IsNil() && anyNonFinite(v.Elem())
	case reflect.Struct:
		for _, i := range walkedFields(v.Type()) {
			if anyNonFinite(v.Field(i)) {
				return true
			}
		}
	case reflect.Slice, reflect.Array:
		if !holdsFloat(v.Type().Elem()) {
			return false
		}
		for i := 0; i < v.Len(); i++ {
			if anyNonFinite(v.Index(i)) {
				return true
			}
		}
	case reflect.Map:
		if !holdsFloat(v.Type().Elem()) {
			return false
		}
		for it := v.MapRange(); it.Next(); {
			if anyNonFinite(it.Value()) {
				return true
			}
		}
	}
	return false
}

// walked keeps, per struct type, the indices of the fields anyNonFinite
// walks: exported, in the JSON, and of a type that can hold a float.
var walked sync.Map // reflect.Type → []int

func walkedFields(t reflect.Type) []int {
	if fs, ok := walked.Load(t); ok {
		return fs.([]int)
	}
	var fs []int
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); f.IsExported() && name != "-" && holdsFloat(f.Type) {
			fs = append(fs, i)
		}
	}
	walked.Store(t, fs)
	return fs
}

// holdsFloat reports whether a value of type t can hold a float that
// anyNonFinite would reach (an interface may hold anything; a type that
// refers to itself is taken to).
func holdsFloat(t reflect.Type) bool {
	if h, ok := floaty.Load(t); ok {
		return h.(bool)
	}
	h := holds(t, map[reflect.Type]bool{})
	floaty.Store(t, h)
	return h
}

var floaty sync.Map // reflect.Type → holdsFloat

func holds(t reflect.Type, open map[reflect.Type]bool) bool {
	switch t.Kind() {
	case reflect.Float32, reflect.Float64, reflect.Interface:
		return true
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		return holds(t.Elem(), open)
	case reflect.Struct:
		if open[t] {
			return true
		}
		open[t] = true
		defer delete(open, t)
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); f.IsExported() && name != "-" && holds(f.Type, open) {
				return true
			}
		}
	}
	return false
}

func joinPath(a, b string) string {
	if a == "" {
		return b
	}
	return a + "." + b
}

// checkFinite refuses a result holding a NaN or an infinity: extreme
// inputs that pass the load bounds together can still divide by a zero or
// overflow a float, and such a number must not be printed (nor fail the
// JSON writer after the run).
func checkFinite(r *Result, chip string) error {
	if !anyNonFinite(reflect.ValueOf(r)) {
		return nil // every run but the extreme: no path is built
	}
	if p := nonFinite(reflect.ValueOf(r), ""); p != "" {
		return &spec.Error{File: chip, Msg: fmt.Sprintf("the run's %s is not a finite number: the chip's or model's figures are too extreme together to simulate; check the figures the provenance lists as set or given", p)}
	}
	return nil
}
