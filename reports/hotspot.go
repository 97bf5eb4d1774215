package reports

import (
	"bytes"
	"errors"
	"fmt"
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

// WriteHotSpot writes the power of a run as a HotSpot power trace at path
// and its floorplan beside it (the same name with .flp), each atomically.
// The units are the thermal nodes that draw power at some point of the run;
// the trace is resampled to rows of HotSpotInterval seconds, each the mean
// power over its interval (the last over the part the run covers).
//
// With the chip's network (nil: none), it also writes a HotSpot
// configuration beside them (.config, HotSpotConfig) that the command
// printed in the floorplan runs with.
func WriteHotSpot(path string, s *sim.Series, net *thermal.Network) error {
	flp, err := FloorplanPath(path)
	if err != nil {
		return err
	}
	trace, sources, err := PTrace(s, HotSpotInterval)
	if err != nil {
		return err
	}
	config := ""
	if net != nil {
		cfg, err := HotSpotConfig(net, HotSpotInterval)
		if err != nil {
			return err
		}
		config = ConfigPath(path)
		if err := atomicfile.WriteFile(config, cfg); err != nil {
			return err
		}
	}
	if err := atomicfile.WriteFile(flp, Floorplan(sources, filepath.Base(path), filepath.Base(config), HotSpotInterval)); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, trace)
}

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
// some point, in node order; they are returned too.
func PTrace(s *sim.Series, interval float64) ([]byte, []string, error) {
	if !(interval > 0) {
		return nil, nil, fmt.Errorf("power trace interval %g s: must be positive", interval)
	}
	var sources []int
	for n := range s.Nodes {
		for _, p := range s.Points {
			if n < len(p.NodePowerW) && p.NodePowerW[n] > 0 {
				sources = append(sources, n)
				break
			}
		}
	}
	if len(sources) == 0 {
		return nil, nil, errors.New("the run has no power into any thermal node: nothing to trace")
	}
	var end float64
	for _, p := range s.Points {
		end = math.Max(end, p.EndS)
	}
	rows := int(math.Ceil(end/interval - 1e-9))
	energy := make([][]float64, rows) // J per row and source
	for i := range energy {
		energy[i] = make([]float64, len(sources))
	}
	for _, p := range s.Points {
		from := p.EndS - p.Seconds
		for r := max(0, int(from/interval)); r < rows && float64(r)*interval < p.EndS; r++ {
			overlap := math.Min(p.EndS, float64(r+1)*interval) - math.Max(from, float64(r)*interval)
			if overlap <= 0 {
				continue
			}
			for k, n := range sources {
				energy[r][k] += p.NodePowerW[n] * overlap
			}
		}
	}
	var b bytes.Buffer
	names := make([]string, len(sources))
	for k, n := range sources {
		names[k] = s.Nodes[n]
	}
	b.WriteString(strings.Join(names, "\t") + "\n")
	for r, row := range energy {
		length := math.Min(interval, end-float64(r)*interval)
		for k, e := range row {
			if k > 0 {
				b.WriteByte('\t')
			}
			b.WriteString(strconv.FormatFloat(e/length, 'g', 6, 64))
		}
		b.WriteByte('\n')
	}
	return b.Bytes(), names, nil
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
