package advisor

import (
	"cmp"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/edgetwin/edgetwin/hw/units"
)

// asks maps parameter paths (units.* for any unit) to what to ask a
// vendor and the measurement that would settle it. {UNIT} is the kind of
// the unit that ran the model (NPU, GPU, ...), {DT} its compute dtype, {KV}
// the run's KV-cache size. The first pattern that matches wins.
var asks = []struct {
	pattern     *regexp.Regexp
	question    string
	measurement string
}{
	{regexp.MustCompile(`^memory\.dram\.bandwidth$`),
		"What DRAM bandwidth does the {UNIT} actually get?",
		"sustained DRAM read bandwidth from the {UNIT} (STREAM-like, all channels), with the LPDDR data rate and bus width"},
	{regexp.MustCompile(`^memory\.dram\.seq_efficiency$`),
		"What fraction of the DRAM peak does a long sequential read reach?",
		"sustained sequential read bandwidth (STREAM-like) from {DMA}"},
	{regexp.MustCompile(`^memory\.dram\.random_penalty$`),
		"How much slower are random reads than sequential ones?",
		"random 4 KB read latency and bandwidth from the {UNIT}, against sequential"},
	{regexp.MustCompile(`^memory\.dram\.latency$`),
		"What is the DRAM's load-to-use latency?",
		"idle DRAM latency from the {UNIT} (a pointer chase over 256 MB)"},
	{regexp.MustCompile(`^memory\.l3\.bandwidth$`),
		"What bandwidth does the L3 (system cache) deliver to the {UNIT}?",
		"L3 read bandwidth to the {UNIT} with a working set that fits the L3"},
	{regexp.MustCompile(`^memory\.l3\.`),
		"How much of the L3 (system cache) can the {UNIT} use for the KV cache?",
		"L3 miss rate with {KV} of KV under your cache partitioning"},
	{regexp.MustCompile(`^units\.[^.]+\.peak\.`),
		"What {DT} throughput does the {UNIT} sustain?",
		"sustained {DT} {OPS} on a 4096×4096 GEMM at nominal clock"},
	{regexp.MustCompile(`^units\.[^.]+\.active_power$`),
		"What power does the {UNIT} draw while it decodes?",
		"{UNIT} rail power during a memory-bound decode at its top clock, and the skin temperature after 5 minutes of decode at {AMB} ambient"},
	{regexp.MustCompile(`^thermal\.nodes\.[^.]+\.to_ambient$`),
		"How well does the device shed heat to the room?",
		"skin temperature after 5 minutes of decode at {AMB} ambient, and the steady skin temperature at a known SoC power"},
	{regexp.MustCompile(`^governor\.trips\.[^.]+\.temp$`),
		"At what skin temperature does the device throttle the {UNIT}, and what clock does it hold there?",
		"sustained {UNIT} clock at 45 °C skin, and the skin temperature at which the {UNIT} clock first drops, in a 5-minute decode at {AMB} ambient"},
	{regexp.MustCompile(`^(thermal|governor)\.`),
		"What is the device's thermal design?",
		"skin and junction temperatures and the {UNIT} clock over 5 minutes of decode at {AMB} ambient"},
	{regexp.MustCompile(`^units\.[^.]+\.dispatch$`),
		"What does dispatching one operator cost on the {UNIT}?",
		"per-operator dispatch latency of your {UNIT} runtime in a compiled graph"},
	{regexp.MustCompile(`^units\.[^.]+\.clock$`),
		"What clock does the {UNIT} sustain when hot?",
		"sustained {UNIT} clock at 45 °C skin"},
	{regexp.MustCompile(`^units\.[^.]+\.(gemm|gemv)_efficiency$`),
		"What fraction of its peak does the {UNIT} reach on LLM kernels?",
		"achieved {DT} throughput of a 4096×4096 GEMV (batch 1) and GEMM on the {UNIT}, against its peak"},
	{regexp.MustCompile(`^dma\.`),
		"What does a DMA transfer cost to set up, and how many run at once?",
		"DMA descriptor set-up time per transfer and the channels available to the {UNIT} runtime, with 4 KB copies"},
}

var unitPath = regexp.MustCompile(`^units\.[^.]+\.`)

// vendorQuestions turns the parameters that matter (|elasticity| of a key
// metric above MaterialElasticity) but are only assumed into questions
// for the vendors, one per measurement, each listing the chips it applies
// to; the most influential first.
func vendorQuestions(rows []Row, specs []map[string]any, candidates []string) []Question {
	ambient := func(i int) string {
		if v := number(specs[i], "thermal.ambient"); v != nil {
			return units.Approx(*v, units.KindTemperature)
		}
		return "25 °C"
	}
	byText := map[string]*Question{}
	weight := map[string]float64{}
	for _, r := range rows {
		if r.Result == nil {
			continue
		}
		res := r.Result
		unitKind := strings.ToUpper(res.Unit)
		for _, u := range res.Units {
			if u.Name == res.Unit {
				unitKind = strings.ToUpper(u.Kind)
			}
		}
		for _, e := range r.Sensitivity {
			if !e.Assumed || e.Err != "" {
				continue
			}
			metric, el := strongest(e)
			if math.Abs(el) <= MaterialElasticity {
				continue
			}
			q, m := askFor(e.Param)
			ops := "TOPS"
			if strings.HasPrefix(res.Compute.Dtype, "fp") || strings.HasPrefix(res.Compute.Dtype, "bf") {
				ops = "TFLOPS"
			}
			dma := "the " + unitKind + "'s DMA"
			if unitKind == "CPU" || unitKind == "GPU" {
				dma = "the " + unitKind
			}
			repl := strings.NewReplacer(
				"{DMA}", dma,
				"{UNIT}", unitKind,
				"{DT}", strings.ToUpper(res.Compute.Dtype),
				"{OPS}", ops,
				"{KV}", units.Approx(res.Memory.KVBytes, units.KindBytes),
				"{PATH}", e.Param,
				"{AMB}", ambient(r.index),
			)
			q, m = repl.Replace(q), repl.Replace(m)
			key := q + "\n" + m
			qq := byText[key]
			if qq == nil {
				qq = &Question{Question: q, Measurement: m, Param: unitPath.ReplaceAllString(e.Param, "units.*.")}
				byText[key] = qq
			}
			qq.Chips = append(qq.Chips, QuestionChip{
				SoC: r.SoC, Path: e.Param, Value: formatValue(e.Value, e.Kind), Source: e.Source,
				Metric: metric, Elasticity: el,
			})
			weight[key] = math.Max(weight[key], math.Abs(el))
		}
	}
	keys := make([]string, 0, len(byText))
	for k := range byText {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if c := cmp.Compare(weight[b], weight[a]); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	order := map[string]int{}
	for i, c := range candidates {
		order[c] = i
	}
	out := make([]Question, 0, len(keys))
	for _, k := range keys {
		q := byText[k]
		slices.SortStableFunc(q.Chips, func(a, b QuestionChip) int {
			if c := cmp.Compare(math.Abs(b.Elasticity), math.Abs(a.Elasticity)); c != 0 {
				return c
			}
			return cmp.Compare(order[a.SoC], order[b.SoC])
		})
		out = append(out, *q)
	}
	return out
}

// strongest returns the key metric that moves most with the parameter,
// and its elasticity.
func strongest(e Elasticity) (string, float64) {
	metric, best := "", 0.0
	for _, ef := range e.Effects {
		if ef.Elasticity != nil && math.Abs(*ef.Elasticity) > math.Abs(best) {
			metric, best = ef.Metric, *ef.Elasticity
		}
	}
	return metric, best
}

// askFor finds the question and measurement for a parameter path.
func askFor(path string) (question, measurement string) {
	for _, a := range asks {
		if a.pattern.MatchString(path) {
			return a.question, a.measurement
		}
	}
	return "How close to reality is the assumed {PATH}?", "a measurement of {PATH} on the {UNIT}"
}

// formatValue prints a spec figure for people.
func formatValue(v float64, k units.Kind) string {
	if k != 0 {
		return units.Approx(v, k)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}
