package thermalfit

import (
	"os"
	"strings"
	"testing"

	"github.com/edgetwin/edgetwin/hw/thermal"
)

func TestReadSeries(t *testing.T) {
	data := "# a comment\ntime_s, power_npu_w, power_dram_w, temp_npu_c, temp_skin_c, clock_npu_mhz, ambient_c\n" +
		"0, 0, 0, 25.5, 25.1, 1000, 24\n" +
		"1.5, 3, 0.5, 40, 26, 900, 24.5\n"
	s, err := ReadSeries("run.csv", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	if s.Header != 2 || len(s.Times) != 2 || s.Times[1] != 1.5 || s.Lines[1] != 4 {
		t.Errorf("header line %d, times %v, lines %v", s.Header, s.Times, s.Lines)
	}
	if len(s.Power) != 2 || s.Power[1].Name != "dram" || s.Power[1].Values[1] != 0.5 {
		t.Errorf("power %+v", s.Power)
	}
	if len(s.Temps) != 2 || s.Temps[0].Name != "npu" || s.Temps[0].Values[1] != 40 {
		t.Errorf("temps %+v", s.Temps)
	}
	if len(s.Clocks) != 1 || s.Clocks[0].Values[1] != 900e6 {
		t.Errorf("clocks %+v (MHz must read as Hz)", s.Clocks)
	}
	if s.Ambient[1] != 24.5 || s.TotalW != nil {
		t.Errorf("ambient %v, total %v", s.Ambient, s.TotalW)
	}
}

// TestReadSimulateSeries reads the columns `simulate --series` writes (see
// reports/series.go): end_s is the time, phase and latency_ms are known and
// not fitted, clocks in GHz, and a power column per node.
func TestReadSimulateSeries(t *testing.T) {
	data := "phase,end_s,latency_ms,power_w,clock_npu_ghz,temp_npu_c,temp_skin_c,power_npu_w,power_skin_w\n" +
		"prefill,0.25,250,3.2,1,34,25,1.5,0\n" +
		"decode,0.33,80,2.5,0.9,29,25.01,0.2,0\n"
	s, err := ReadSeries("sim.csv", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	if s.Times[1] != 0.33 || s.Clocks[0].Values[1] != 0.9e9 || s.TotalW[0] != 3.2 || len(s.Power) != 2 {
		t.Errorf("read %+v", s)
	}
	d, err := s.Bind(thermal.Spec{Ambient: 25, Nodes: []thermal.Node{{Name: "npu"}, {Name: "skin"}}}, map[string]string{"npu": "npu"})
	if err != nil {
		t.Fatal(err)
	}
	if d.Power[1][0] != 0.2 || d.Ambient[1] != 25 || len(d.Sensors) != 2 {
		t.Errorf("bound %+v", d)
	}
}

func TestReadSeriesErrors(t *testing.T) {
	const head = "time_s,power_npu_w,temp_npu_c\n"
	for _, c := range []struct{ name, data, want string }{
		{"empty", "", "x.csv: empty file"},
		{"unknown column", "time_s,power_npu_w,temp_npu_c,fan_rpm\n0,1,2,3\n", `x.csv:1: field "fan_rpm": unknown column; allowed: time_s (or end_s), power_<unit|node>_w`},
		{"bad name", "time_s,power_NPU_w,temp_npu_c\n", `field "power_NPU_w": unknown column`},
		{"twice", "time_s,power_npu_w,temp_npu_c,temp_npu_c\n", `x.csv:1: field "temp_npu_c": column given twice`},
		{"time twice", "time_s,end_s,power_npu_w,temp_npu_c\n", `field "end_s": column given twice`},
		{"clock twice", "time_s,power_npu_w,temp_npu_c,clock_npu_hz,clock_npu_ghz\n", `field "clock_npu_ghz": column given twice`},
		{"no time", "power_npu_w,temp_npu_c\n0,1\n", "x.csv:1: no time column: give time_s"},
		{"no power", "time_s,power_w,temp_npu_c\n0,1,2\n", "x.csv:1: no power_<unit|node>_w column"},
		{"no temp", "time_s,power_npu_w\n0,1\n", "x.csv:1: no temp_<node>_c column"},
		{"not a number", head + "0,1,25\n1,x,26\n", `x.csv:3: field power_npu_w: "x" is not a finite number`},
		{"empty cell", head + "0,1,25\n1,,26\n", `x.csv:3: field power_npu_w: "" is not a finite number`},
		{"NaN", head + "0,1,NaN\n", `x.csv:2: field temp_npu_c: "NaN" is not a finite number`},
		{"infinite", head + "0,1,25\n1,1,+Inf\n", `x.csv:3: field temp_npu_c: "+Inf" is not a finite number`},
		{"time equal", head + "0,1,25\n0,1,26\n", "x.csv:3: field time_s: time 0 s does not increase (the row before, line 2, is at 0 s)"},
		{"time back", head + "0,1,25\n2,1,25\n1,1,26\n", "x.csv:4: field time_s: time 1 s does not increase"},
		{"negative power", head + "0,-1,25\n", "x.csv:2: field power_npu_w: power -1 W is negative"},
		{"negative total power", "time_s,power_npu_w,temp_npu_c,power_w\n0,1,25,1\n1,1,26,-2\n", "x.csv:3: field power_w: total power -2 W is negative"},
		{"below absolute zero", head + "0,1,-300\n", "x.csv:2: field temp_npu_c: -300 °C is below absolute zero"},
		{"short row", head + "0,1\n", "x.csv:2: the row does not have one cell per header column"},
		{"one row", head + "0,1,25\n", "x.csv: 1 data rows: a series needs at least two"},
		{"quote", head + "0,\"1,25\n", "x.csv:2:"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadSeries("x.csv", []byte(c.data))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want it to contain %q", err, c.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans lines: %q", err)
			}
		})
	}
}

func TestBindErrors(t *testing.T) {
	spec := thermal.PhoneDefault()
	units := map[string]string{"npu": "npu", "dsp": "package", "dram": "package"}
	for _, c := range []struct{ name, header, want string }{
		{"unknown power", "time_s,power_modem_w,temp_npu_c", `x.csv:1: field power_modem_w: no node or unit "modem"; nodes: npu, cpu, gpu, package, board, skin; units: dram, dsp, npu`},
		{"unknown sensor", "time_s,power_npu_w,temp_battery_c", `x.csv:1: field temp_battery_c: no node "battery"`},
		{"clock of a node", "time_s,power_npu_w,temp_npu_c,clock_board_hz", `x.csv:1: field clock_board_hz: no unit "board"; units: dram, dsp, npu`},
	} {
		t.Run(c.name, func(t *testing.T) {
			cells := strings.Count(c.header, ",") + 1
			row := strings.TrimSuffix(strings.Repeat("1,", cells), ",")
			s, err := ReadSeries("x.csv", []byte(c.header+"\n0"+row[1:]+"\n2"+row[1:]+"\n"))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.Bind(spec, units); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want it to contain %q", err, c.want)
			}
		})
	}
}

// TestBindSumsPower checks that a unit's power lands on its node and adds
// to the node's own column there: the DSP and DRAM heat the package.
func TestBindSumsPower(t *testing.T) {
	s, err := ReadSeries("x.csv", []byte("time_s,power_dsp_w,power_package_w,power_dram_w,temp_skin_c\n0,0,0,0,25\n1,0.5,1,0.25,25\n"))
	if err != nil {
		t.Fatal(err)
	}
	d, err := s.Bind(thermal.PhoneDefault(), map[string]string{"dsp": "package", "dram": "package"})
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Power[1][3]; got != 1.75 {
		t.Errorf("package power %g W, want 0.5 + 1 + 0.25 = 1.75 W", got)
	}
}

// FuzzReadSeries holds the reader to its promise on any input: no panic,
// and either a one-line error naming the file, or a series whose times
// increase and whose columns all have one finite value per row.
func FuzzReadSeries(f *testing.F) {
	f.Add([]byte("time_s,power_npu_w,temp_npu_c\n0,1,25\n1,2,26\n"))
	f.Add([]byte("phase,end_s,latency_ms,power_w,clock_npu_ghz,temp_npu_c,power_npu_w\nprefill,0.2,200,3,1,30,2\ndecode,0.3,100,2,1,31,1.5\n"))
	f.Add([]byte("# c\ntime_s,power_a_w,temp_b_c,ambient_c,clock_a_mhz\n0,1,2,3,4\n"))
	f.Add([]byte("time_s,power_npu_w,temp_npu_c\n0,1,25\n0,1,25\n"))
	f.Add([]byte("\ufefftime_s,power_npu_w,temp_npu_c\n\"0\",1,25\n1,\"2\n"))
	if data, err := os.ReadFile("testdata/phone.csv"); err == nil {
		f.Add(data[:min(len(data), 600)])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ReadSeries("fuzz.csv", data)
		if err != nil {
			msg := err.Error()
			if !strings.HasPrefix(msg, "fuzz.csv") || strings.Contains(msg, "\n") {
				t.Fatalf("error %q: not one line naming the file", msg)
			}
			return
		}
		for i := 1; i < len(s.Times); i++ {
			if !(s.Times[i] > s.Times[i-1]) {
				t.Fatalf("times %v do not increase", s.Times)
			}
		}
		for _, group := range [][]Channel{s.Power, s.Temps, s.Clocks} {
			for _, c := range group {
				if len(c.Values) != len(s.Times) {
					t.Fatalf("column %s has %d values for %d rows", c.Column, len(c.Values), len(s.Times))
				}
			}
		}
	})
}
