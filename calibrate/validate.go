package calibrate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"

	"github.com/edgetwin/edgetwin/hw/spec"
	workers "github.com/edgetwin/edgetwin/internal/pool"
	"github.com/edgetwin/edgetwin/runtimes"
	"github.com/edgetwin/edgetwin/sim"
)

// Point is one record set against its prediction: the figures in the
// record's unit and the signed relative error (predicted − measured) /
// measured.
type Point struct {
	SoC       string  `json:"soc"`
	Model     string  `json:"model"`
	Quant     string  `json:"quant"`
	Phase     string  `json:"phase"`
	Depth     int     `json:"depth,omitempty"` // tokens of context before the measured tokens (llama-bench -d)
	Kind      Kind    `json:"kind"`
	Unit      string  `json:"unit"`
	Measured  float64 `json:"measured"`
	Predicted float64 `json:"predicted"`
	Error     float64 `json:"error"`
	// Runtime is the record's runtime ("" when it names none).
	Runtime string `json:"runtime,omitempty"`
	// Group is the held-out group the point was predicted from the others
	// of ("" without --holdout).
	Group string `json:"group,omitempty"`
	// Unfitted marks a held-out point whose runtime has no records
	// outside the group: nothing was fitted for it, and the chip's own
	// figures predicted it.
	Unfitted bool   `json:"unfitted,omitempty"`
	Source   string `json:"source"`
}

// PhaseStats summarises one phase's points.
type PhaseStats struct {
	Points int     `json:"points"`
	MAPE   float64 `json:"mape"` // mean absolute error, a fraction
	// Worst is the point with the largest absolute error.
	Worst Point `json:"worst"`
}

// Validation is predicted against measured for a set of records.
type Validation struct {
	Calibration string                `json:"calibration"` // the overlay file, "" for none
	Fidelity    string                `json:"fidelity"`
	Holdout     string                `json:"holdout"` // chip, model, or ""
	Points      []Point               `json:"points"`
	MAPE        map[string]float64    `json:"mape"` // by phase, "ttft" (see TTFT) and "all"
	Phases      map[string]PhaseStats `json:"phases"`
	Skipped     []SkippedRecord       `json:"skipped"`
}

// SkippedRecord is a record validation could not predict, and why.
type SkippedRecord struct {
	Source string `json:"source"`
	Reason string `json:"reason"`
}

// ValidateOptions configure [Validate].
type ValidateOptions struct {
	Overlay  *Overlay     // applied to every chip; nil for none
	Fidelity sim.Fidelity // default tile
	// Holdout, chip or model, predicts each group of records (one chip,
	// or one model) from an overlay fitted on all the others (leave one
	// group out) instead of from Overlay.
	Holdout string
	Fit     FitOptions // how the hold-out fits run
	Workers int
	// Progress, when a terminal, shows the hold-out fits as they finish
	// (silent otherwise, and nil for none).
	Progress io.Writer
}

// predict adds a point for each record predicted under ov, in group g.
// A record the simulator refuses (a unit that cannot read its format, a
// model too large for the chip) is listed as skipped with the reason;
// other errors (a chip or model that does not load, a cancelled run) end
// the validation.
func (v *Validation) predict(ctx context.Context, pr *Predictor, recs []Record, ov *Overlay, g string) error {
	ovs := make([]*Overlay, len(recs))
	for i := range ovs {
		ovs[i] = ov
	}
	pred, errs := pr.predictAll(ctx, recs, ovs)
	for i, r := range recs {
		switch {
		case errs[i] == nil:
			v.Points = append(v.Points, pointOf(r, pred[i], g))
		case Refused(errs[i]):
			v.Skipped = append(v.Skipped, SkippedRecord{Source: r.Source, Reason: errs[i].Error()})
		default:
			return errs[i]
		}
	}
	return nil
}

// Validate predicts every record and compares. Records the simulator
// cannot predict are listed as skipped.
func Validate(ctx context.Context, recs []Record, opt ValidateOptions) (*Validation, error) {
	if opt.Fidelity == "" {
		opt.Fidelity = sim.Tile
	}
	v := &Validation{Fidelity: string(opt.Fidelity), Holdout: opt.Holdout}
	if opt.Overlay != nil {
		v.Calibration = opt.Overlay.File()
	}
	use, skipped, err := predictable(recs, "validate")
	if err != nil {
		return nil, err
	}
	for _, u := range skipped {
		v.Skipped = append(v.Skipped, SkippedRecord{Source: u.Record.Source, Reason: u.Reason})
	}
	pr := NewPredictor(opt.Fidelity)
	pr.Workers = opt.Workers
	switch opt.Holdout {
	case "":
		if err := v.predict(ctx, pr, use, opt.Overlay, ""); err != nil {
			return nil, err
		}
	case "chip", "model":
		groupOf := func(r Record) string {
			if opt.Holdout == "chip" {
				return r.SoC
			}
			return r.Model
		}
		var groups []string
		for _, r := range use {
			if g := groupOf(r); !slices.Contains(groups, g) {
				groups = append(groups, g)
			}
		}
		if len(groups) < 2 {
			return nil, spec.FieldErrorf("holdout", "%s needs records of at least two %ss; these have one", opt.Holdout, opt.Holdout)
		}
		// Records that name a runtime are predicted with it bare, and each
		// runtime is fitted on its own records (FitOptions.Runtime): a
		// held-out chip's RKLLM records learn only from RKLLM elsewhere.
		pr.Runtimes = map[string]*runtimes.Profile{}
		for _, r := range use {
			if _, ok := pr.Runtimes[r.Runtime]; r.Runtime != "" && !ok {
				p, err := runtimes.Load(r.Runtime)
				if err != nil {
					return nil, r.locate(err)
				}
				pr.Runtimes[r.Runtime] = p.Bare()
			}
		}
		fits := 0
		for _, g := range groups {
			seen := map[string]bool{}
			for _, r := range use {
				if groupOf(r) == g && !seen[r.Runtime] {
					seen[r.Runtime] = true
					fits++
				}
			}
		}
		bar := workers.NewProgress(opt.Progress, "validate --holdout "+opt.Holdout, fits)
		defer bar.Done()
		for _, g := range groups {
			var train, test []Record
			for _, r := range use {
				if groupOf(r) == g {
					test = append(test, r)
				} else {
					train = append(train, r)
				}
			}
			byRuntime := map[string][]Record{}
			for _, r := range test {
				byRuntime[r.Runtime] = append(byRuntime[r.Runtime], r)
			}
			for _, id := range slices.Sorted(maps.Keys(byRuntime)) {
				fopt := opt.Fit
				fopt.Fidelity, fopt.Workers, fopt.Runtime = opt.Fidelity, opt.Workers, id
				var fit *Fit
				var err error
				unfitted := true
				if trainRT := ofRuntime(train, id); len(trainRT) > 0 {
					fit, err = FitRecords(ctx, trainRT, fopt)
					if unfitted = errors.Is(err, ErrNoRecord); err != nil && !unfitted {
						return nil, err
					}
				}
				var ov *Overlay
				if !unfitted {
					ov = fit.Overlay
				}
				n := len(v.Points)
				if err := v.predict(ctx, pr, byRuntime[id], ov, g); err != nil {
					return nil, err
				}
				for i := n; i < len(v.Points); i++ {
					v.Points[i].Unfitted = unfitted
				}
				bar.Step()
			}
		}
	default:
		return nil, spec.FieldErrorf("holdout", "%q is not allowed: use chip or model", opt.Holdout)
	}
	v.summarise()
	return v, nil
}

// ofRuntime is the records that name runtime id ("" : those naming none).
func ofRuntime(recs []Record, id string) []Record {
	var out []Record
	for _, r := range recs {
		if r.Runtime == id {
			out = append(out, r)
		}
	}
	return out
}

// pointOf sets a record against its prediction. A kernel's point names
// the kernel and its shape where a model's names the model; the probe's
// kernels and decoder, measured on one thread and on all, say on how many.
func pointOf(r Record, pred float64, group string) Point {
	model := r.Model
	if model == "" && r.Kernel != "" {
		model = fmt.Sprintf("%s %d×%d×%d", r.Kernel, max(1, r.Shape.M), r.Shape.N, r.Shape.K)
	}
	if r.Threads > 0 && (r.Kind == KindGEMV || r.Kind == KindGEMM || r.Kind == KindDecoder) {
		model += ", " + plural(r.Threads, "thread", "threads")
	}
	return Point{SoC: r.SoC, Model: model, Quant: r.Quant, Phase: PhaseOf(r.Kind), Depth: r.Shape.Depth, Kind: r.Kind, Unit: r.Unit,
		Measured: r.Value, Predicted: pred, Error: pred/r.Value - 1, Runtime: r.Runtime, Group: group, Source: r.Source}
}

// TTFT is the summary of the time to first token that the prefill
// points imply: a prefill rate r predicted as r(1+e) puts the first token
// at 1/(1+e) − 1 of its measured time (a prefill measured in seconds is
// that time already).
const TTFT = "ttft"

// Summaries are the keys of a validation's MAPE and Phases, in the order
// they print: each phase, the time to first token, and all points.
var Summaries = []string{PhasePrefill, TTFT, PhaseDecode, PhaseKernel, "all"}

// ttftError is the error in the time to first token a prefill point
// implies.
func ttftError(p Point) float64 {
	if p.Unit == UnitSeconds {
		return p.Error
	}
	return 1/(1+p.Error) - 1
}

// summarise fills the MAPE and the worst point by phase, for the time to
// first token, and over all.
func (v *Validation) summarise() {
	v.MAPE, v.Phases = map[string]float64{}, map[string]PhaseStats{}
	for _, ph := range Summaries {
		var st PhaseStats
		var sum float64
		for _, p := range v.Points {
			switch {
			case ph == TTFT && p.Phase == PhasePrefill:
				p.Error = ttftError(p)
			case ph != "all" && p.Phase != ph:
				continue
			}
			st.Points++
			sum += math.Abs(p.Error)
			if st.Points == 1 || math.Abs(p.Error) > math.Abs(st.Worst.Error) {
				st.Worst = p
			}
		}
		if st.Points == 0 {
			continue
		}
		st.MAPE = sum / float64(st.Points)
		v.MAPE[ph] = st.MAPE
		v.Phases[ph] = st
	}
}
