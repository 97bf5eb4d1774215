package reports

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/edgetwin/edgetwin/hw/thermal"
	"github.com/edgetwin/edgetwin/internal/atomicfile"
	"github.com/edgetwin/edgetwin/sim"
)

// The file formats of the HotSpot thermal simulator (University of
// Virginia), as its HOWTO and example files give them
// (github.com/uvahotspot/HotSpot: examples/example1/gcc.ptrace, ev6.flp and
// example.config):
//
//   - a power trace (.ptrace) is a line of unit names, then one line of
//     powers in watts per sampling interval (the -sampling_intvl option,
//     seconds), fields separated by tabs, no comments;
//   - a floorplan (.flp) has one line per unit: name, width, height, left x
//     and bottom y, in metres, tab-separated; lines that start with '#' are
//     comments.
//
// HotSpot pairs the trace's columns with the floorplan's units by name.

// HotSpotInterval is the sampling interval of the power traces
// WriteHotSpot writes: the governor's usual polling interval (assumed),
// fine against every time constant of a phone but the junctions'.
const HotSpotInterval = 0.1

// hotSpotBlock is the side of the square each heat source gets in the
// floorplan (assumed): ~10 mm², the NPU block hw/thermal's phone network
// assumes.
const hotSpotBlock = 3.2e-3

// ConfigPath is the HotSpot configuration WriteHotSpot writes beside the
// power trace at path: the same name with .config.
func ConfigPath(path string) string {
	return strings.TrimSuffix(path, filepath.Ext(path)) + ".config"
}

// FloorplanPath is the floorplan file WriteHotSpot writes beside the
// power trace at path: the same name with .flp.
func FloorplanPath(path string) (string, error) {
	if strings.EqualFold(filepath.Ext(path), ".flp") {
		return "", fmt.Errorf("the power trace %s would be overwritten by its floorplan: name it .ptrace", path)
	}
	return strings.TrimSuffix(path, filepath.Ext(path)) + ".flp", nil
}

// WriteHotSpot writes the power of a time series held in memory as a
// [HotSpotFile] would have as the run went: the same files.
func WriteHotSpot(path string, s *sim.Series, net *thermal.Network) error {
	f, err := CreateHotSpot(path)
	if err != nil {
		return err
	}
	defer f.Close()
	s.Replay(f)
	return f.Commit(net)
}

// HotSpotFile is the power of a run written as a HotSpot power trace as
// the run produces its series, so a long run's trace costs disk, not
// memory: give it to the run as its Config.Series (it is a
// [sim.SeriesSink]), then Commit. The units are the thermal nodes that
// draw power at some point of the run; the trace is resampled to rows of
// HotSpotInterval seconds, each the mean power over its interval (the last
// over the part the run covers). Rows no later step can reach go to a
// scratch file beside path (an [atomicfile.Scratch]), so memory holds only
// the rows the current step spans.
//
// Commit writes the trace at path and its floorplan beside it (the same
// name with .flp), each atomically. Until Commit, nothing is touched.
type HotSpotFile struct {
	path  string
	spill *atomicfile.Scratch
	trace *powerTrace
}

// CreateHotSpot starts a HotSpot power trace that will replace path; it
// refuses a path its floorplan would overwrite.
func CreateHotSpot(path string) (*HotSpotFile, error) {
	if _, err := FloorplanPath(path); err != nil {
		return nil, err
	}
	spill, err := atomicfile.CreateScratch(path)
	if err != nil {
		return nil, err
	}
	return &HotSpotFile{path: path, spill: spill, trace: newPowerTrace(HotSpotInterval, spill)}, nil
}

// Begin takes the thermal nodes the points give power for.
func (f *HotSpotFile) Begin(units, nodes []string) { f.trace.Begin(units, nodes) }

// Add takes a point's power into the rows it spans. After a failed write
// to the scratch file (a full disk) Commit returns the error.
func (f *HotSpotFile) Add(p sim.SeriesPoint) { f.trace.Add(p) }

// Commit writes the floorplan and the trace, once the run is over. With
// the chip's network (nil: none), it also writes a HotSpot configuration
// beside them (.config, HotSpotConfig) that the command printed in the
// floorplan runs with.
func (f *HotSpotFile) Commit(net *thermal.Network) error {
	flp, err := FloorplanPath(f.path)
	if err != nil {
		return err
	}
	sources, names, err := f.trace.sources()
	if err != nil {
		return err
	}
	if err := f.trace.flush(); err != nil {
		return err
	}
	if _, err := f.spill.Seek(0, io.SeekStart); err != nil {
		return err
	}
	config := ""
	if net != nil {
		cfg, err := HotSpotConfig(net, HotSpotInterval)
		if err != nil {
			return err
		}
		config = ConfigPath(f.path)
		if err := atomicfile.WriteFile(config, cfg); err != nil {
			return err
		}
	}
	if err := atomicfile.WriteFile(flp, Floorplan(names, filepath.Base(f.path), filepath.Base(config), HotSpotInterval)); err != nil {
		return err
	}
	return atomicfile.Write(f.path, func(w io.Writer) error {
		return f.trace.write(w, bufio.NewReaderSize(f.spill, 1<<16), sources, names)
	})
}

// Close drops the scratch file; after Commit, or instead of it when the
// run fails.
func (f *HotSpotFile) Close() error { return f.spill.Close() }

// kelvin is 0 °C in kelvin: HotSpot's temperatures are absolute.
const kelvin = 273.15

// Lumped is the package node's path to ambient as one resistance and one
// capacitance: R is its steady rise per watt put into it, and R·C the
// time its step response takes to reach 1 − 1/e of that rise, so that the
// closed form P·R·(1 − e^(−t/RC)) meets the network's response at that
// time and at steady state.
func Lumped(net *thermal.Network) (r, c float64, err error) {
	pkg := slices.Index(net.Kinds(), thermal.Package)
	if pkg < 0 {
		return 0, 0, errors.New("the thermal network has no package node to lump")
	}
	p := make([]float64, net.Len())
	p[pkg] = 1
	ta := net.AmbientTemp()
	r = net.Steady(p)[pkg] - ta
	rise := func(t float64) float64 { return net.Advance(nil, net.Ambient(), p, t)[pkg] - ta }
	lo, hi := 0.0, 1.0
	for rise(hi) < (1-1/math.E)*r {
		hi *= 2
	}
	for range 100 {
		mid := (lo + hi) / 2
		if rise(mid) < (1-1/math.E)*r {
			lo = mid
		} else {
			hi = mid
		}
	}
	return r, hi / r, nil
}

// HotSpotConfig is a HotSpot configuration whose package parameters stand
// for the twin's network: its convection resistance and capacitance are
// the package node's lumped path to ambient (Lumped), its ambient and
// start temperatures the network's ambient, in kelvin as HotSpot takes
// them. HotSpot adds its own die, interface, spreader and sink layers from
// their geometry (its defaults, or the lines below to change): those add
// resistance the twin's package node already holds, so compare shapes and
// time constants, and thin the layers for absolute agreement.
func HotSpotConfig(net *thermal.Network, interval float64) ([]byte, error) {
	r, c, err := Lumped(net)
	if err != nil {
		return nil, err
	}
	ta := net.AmbientTemp() + kelvin
	var b bytes.Buffer
	b.WriteString("# HotSpot configuration for an edgetwin run: the package node of the twin's thermal network lumped\n")
	fmt.Fprintf(&b, "# to ambient (%.4g K/W, time constant %.4g s); ambient and start at %.2f K (%.2f °C)\n", r, r*c, ta, ta-kelvin)
	fmt.Fprintf(&b, "-r_convec\t%.6g\n", r)
	fmt.Fprintf(&b, "-c_convec\t%.6g\n", c)
	fmt.Fprintf(&b, "-ambient\t%.2f\n", ta)
	fmt.Fprintf(&b, "-init_temp\t%.2f\n", ta)
	fmt.Fprintf(&b, "-sampling_intvl\t%g\n", interval)
	b.WriteString("-model_type\tblock\n")
	return b.Bytes(), nil
}

// PTrace is the power trace of s in HotSpot's format, with one row per
// interval seconds from time 0 to the end of the run: each row is the mean
// power of every heat source over its interval, from the energy of the
// steps that overlap it. The heat sources are the nodes that draw power at
// some point, in node order; they are returned too. s's points are in
// time order, as a run produces them.
func PTrace(s *sim.Series, interval float64) ([]byte, []string, error) {
	if !(interval > 0) {
		return nil, nil, fmt.Errorf("power trace interval %g s: must be positive", interval)
	}
	var settled bytes.Buffer
	t := newPowerTrace(interval, &settled)
	s.Replay(t)
	sources, names, err := t.sources()
	if err != nil {
		return nil, nil, err
	}
	if err := t.flush(); err != nil {
		return nil, nil, err
	}
	var b bytes.Buffer
	if err := t.write(&b, &settled, sources, names); err != nil {
		return nil, nil, err
	}
	return b.Bytes(), names, nil
}

// powerTrace resamples a run's power per thermal node into rows of
// interval seconds as the points arrive (a sim.SeriesSink). It holds only
// the rows the latest points span: a row no later point can reach (one
// that ends a row before the latest point starts, as a point starts
// where the one before it ended, to rounding) is settled, its joules per
// node written to settled as float64s.
type powerTrace struct {
	interval float64
	nodes    []string
	draws    []bool      // whether each node drew power at some point
	open     [][]float64 // joules per node of rows base, base+1, ...
	base     int         // the rows settled
	end      float64     // the latest end of any point
	settled  *bufio.Writer
	free     [][]float64 // settled rows' slices, for new rows
	scratch  []byte
	err      error // the first write to settled that failed
}

func newPowerTrace(interval float64, settled io.Writer) *powerTrace {
	return &powerTrace{interval: interval, settled: bufio.NewWriterSize(settled, 1<<16)}
}

// Begin takes the nodes.
func (t *powerTrace) Begin(_, nodes []string) {
	t.nodes, t.draws = nodes, make([]bool, len(nodes))
}

// Add spreads a point's energy over the rows it overlaps.
func (t *powerTrace) Add(p sim.SeriesPoint) {
	t.end = math.Max(t.end, p.EndS)
	for n, w := range p.NodePowerW {
		if n < len(t.draws) && w > 0 {
			t.draws[n] = true
		}
	}
	from := p.EndS - p.Seconds
	first := max(0, int(from/t.interval))
	t.settle(first - 1)
	for r := max(first, t.base); float64(r)*t.interval < p.EndS; r++ {
		overlap := math.Min(p.EndS, float64(r+1)*t.interval) - math.Max(from, float64(r)*t.interval)
		if overlap <= 0 {
			continue
		}
		row := t.row(r)
		for n := range min(len(row), len(p.NodePowerW)) {
			row[n] += p.NodePowerW[n] * overlap
		}
	}
}

// row is row r's joules per node, opening the rows up to it.
func (t *powerTrace) row(r int) []float64 {
	for t.base+len(t.open) <= r {
		var row []float64
		if k := len(t.free); k > 0 {
			row, t.free = t.free[k-1], t.free[:k-1]
			clear(row)
		} else {
			row = make([]float64, len(t.nodes))
		}
		t.open = append(t.open, row)
	}
	return t.open[r-t.base]
}

// settle writes the open rows before row upTo to settled.
func (t *powerTrace) settle(upTo int) {
	for t.base < upTo && len(t.open) > 0 {
		row := t.open[0]
		t.scratch = t.scratch[:0]
		for _, j := range row {
			t.scratch = binary.LittleEndian.AppendUint64(t.scratch, math.Float64bits(j))
		}
		if t.err == nil {
			_, t.err = t.settled.Write(t.scratch)
		}
		t.free = append(t.free, row)
		t.open = t.open[1:]
		t.base++
	}
}

// flush ends the writes to settled.
func (t *powerTrace) flush() error {
	if t.err == nil {
		t.err = t.settled.Flush()
	}
	return t.err
}

// sources are the nodes that drew power at some point, and their names.
func (t *powerTrace) sources() ([]int, []string, error) {
	var sources []int
	var names []string
	for n, d := range t.draws {
		if d {
			sources, names = append(sources, n), append(names, t.nodes[n])
		}
	}
	if len(sources) == 0 {
		return nil, nil, errors.New("the run has no power into any thermal node: nothing to trace")
	}
	return sources, names, nil
}

// write writes the trace: the sources' names, then a row per interval to
// the end of the run, the settled rows read back from settled.
func (t *powerTrace) write(w io.Writer, settled io.Reader, sources []int, names []string) error {
	rows := int(math.Ceil(t.end/t.interval - 1e-9))
	b := bufio.NewWriterSize(w, 1<<16)
	b.WriteString(strings.Join(names, "\t") + "\n")
	row := make([]float64, len(t.nodes))
	buf := make([]byte, 8*len(t.nodes))
	for r := range rows {
		switch {
		case r < t.base:
			if _, err := io.ReadFull(settled, buf); err != nil {
				return err
			}
			for n := range row {
				row[n] = math.Float64frombits(binary.LittleEndian.Uint64(buf[8*n:]))
			}
		case r-t.base < len(t.open):
			copy(row, t.open[r-t.base])
		default:
			clear(row)
		}
		length := math.Min(t.interval, t.end-float64(r)*t.interval)
		for k, n := range sources {
			if k > 0 {
				b.WriteByte('\t')
			}
			b.WriteString(strconv.FormatFloat(row[n]/length, 'g', 6, 64))
		}
		b.WriteByte('\n')
	}
	return b.Flush()
}

// Floorplan is a HotSpot floorplan for the heat sources: each an assumed
// square of hotSpotBlock metres, side by side in one row, so none overlap
// and the die is a rectangle with no empty space. Comments say so, and
// give the command that runs the trace with the configuration beside it
// (config, "" when none was written).
func Floorplan(sources []string, trace, config string, interval float64) []byte {
	var b bytes.Buffer
	mm := strconv.FormatFloat(hotSpotBlock*1e3, 'g', -1, 64)
	fmt.Fprintf(&b, "# HotSpot floorplan of the heat sources of an edgetwin run; power trace: %s\n", trace)
	flp := strings.TrimSuffix(trace, filepath.Ext(trace)) + ".flp"
	if config != "" {
		fmt.Fprintf(&b, "# run with: hotspot -c %s -f %s -p %s -o %s.ttrace\n", config, flp, trace, strings.TrimSuffix(trace, filepath.Ext(trace)))
	} else {
		fmt.Fprintf(&b, "# run with: hotspot -f %s -p %s -sampling_intvl %g (HotSpot's default package)\n", flp, trace, interval)
	}
	fmt.Fprintf(&b, "# assumed: each heat source (a thermal node of the chip) is a %s mm x %s mm square (~10 mm2, an NPU block),\n", mm, mm)
	b.WriteString("# side by side in one row; HotSpot derives its own R and C from this geometry and its config,\n")
	b.WriteString("# so compare the shape of its temperature traces with edgetwin's, not their absolute values.\n")
	b.WriteString("# Line format: <unit-name>\\t<width>\\t<height>\\t<left-x>\\t<bottom-y>, all in metres\n")
	side := strconv.FormatFloat(hotSpotBlock, 'f', 6, 64)
	for i, name := range sources {
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s\t%s\n", name, side, side, strconv.FormatFloat(float64(i)*hotSpotBlock, 'f', 6, 64), strconv.FormatFloat(0, 'f', 6, 64))
	}
	return b.Bytes()
}
