package reports

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/edgetwin/edgetwin/advisor"
	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/internal/numfmt"
	"github.com/edgetwin/edgetwin/sim"
)

// RequirementsTable is the advice's ranking as a report table: rank, chip,
// pass or FAIL, each requirement clause with its margin (✓ +691 ms), the
// objective, and why a chip fails.
func RequirementsTable(a *advisor.Advice) *ReportTable {
	labels := clauseLabels(a.Requirements)
	var clauses []string
	for _, r := range a.Requirements {
		clauses = append(clauses, r.Clauses...)
	}
	t := &ReportTable{Header: []string{"rank", "chip", "verdict"}}
	for k, c := range clauses {
		t.Header = append(t.Header, labels[k]+": "+c)
	}
	t.Header = append(t.Header, sense(a.Objective)+" "+a.Objective.Expr, "why it fails")
	for _, r := range a.Ranking {
		verdict := "FAIL"
		if r.Pass {
			verdict = "pass"
		}
		row := []string{fmt.Sprint(r.Rank), r.SoC, verdict}
		for _, c := range r.Checks {
			for _, cl := range c.Clauses {
				row = append(row, clauseCell(a, cl))
			}
		}
		for len(row) < 3+len(clauses) { // a chip that did not run has no checks
			row = append(row, "—")
		}
		why := ""
		if !r.Pass {
			why = r.Reason
		}
		row = append(row, objectiveCell(a, a.Objective.Expr, r.Objective), why)
		t.Rows = append(t.Rows, row)
	}
	return t
}

// Source kinds of a provenance entry, as the assumptions table flags them.
const (
	SourceCited      = "cited"
	SourceAssumed    = "assumed"
	SourceDerived    = "derived"
	SourceCalibrated = "calibrated"
	SourceSet        = "set"
	SourceFile       = "file"
)

var fileLine = regexp.MustCompile(`\.(ya?ml|json):\d+$`)

// SourceKind classifies a provenance source: a datasheet or paper
// (cited), a documented default (assumed), a figure computed from others
// (derived; assumed when it rests on an assumption), a calibration
// overlay, a --set override, or a user's file.
func SourceKind(source string) string {
	s := strings.TrimSpace(source)
	switch {
	case advisor.IsAssumed(s):
		return SourceAssumed
	case strings.HasPrefix(s, "derived"):
		return SourceDerived
	case strings.HasPrefix(s, "calibrated"):
		return SourceCalibrated
	case strings.HasPrefix(s, spec.SetOrigin):
		return SourceSet
	case fileLine.MatchString(s):
		return SourceFile
	}
	return SourceCited
}

// Assumptions gathers the provenance of the runs of a review: one row per
// chip and path (model and scenario paths once per model or scenario),
// in the order of the results, each with its value, kind and source.
func Assumptions(results []*sim.Result) *ReportTable {
	t := &ReportTable{Header: []string{"of", "parameter", "value", "kind", "source"}}
	seen := map[string]bool{}
	for _, r := range results {
		if r == nil {
			continue
		}
		for _, e := range r.Provenance {
			of := r.SoC
			switch {
			case strings.HasPrefix(e.Path, "model."):
				of = r.Model
			case strings.HasPrefix(e.Path, "scenario."):
				of = r.Scenario
			}
			key := of + "\x00" + e.Path
			if seen[key] {
				continue
			}
			seen[key] = true
			t.Rows = append(t.Rows, []string{of, e.Path, e.Value, SourceKind(e.Source), e.Source})
		}
	}
	return t
}

// AssumptionCounts summarises an Assumptions table: per chip, model or
// scenario, how many of its figures are of each kind.
func AssumptionCounts(all *ReportTable) *ReportTable {
	kinds := []string{SourceCited, SourceCalibrated, SourceDerived, SourceAssumed, SourceSet, SourceFile}
	t := &ReportTable{Header: append([]string{"of"}, kinds...)}
	var order []string
	counts := map[string]map[string]int{}
	for _, row := range all.Rows {
		of, kind := row[0], row[3]
		if counts[of] == nil {
			counts[of] = map[string]int{}
			order = append(order, of)
		}
		counts[of][kind]++
	}
	for _, of := range order {
		row := []string{of}
		for _, k := range kinds {
			row = append(row, fmt.Sprint(counts[of][k]))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// ParametersThatMatter lists, for every chip the advice ran, each
// parameter its sensitivity reruns moved with the elasticity of decode
// tokens/s and TTFT, its value and source kind, largest effect first: the
// figures the answer rests on.
func ParametersThatMatter(a *advisor.Advice) *ReportTable {
	t := &ReportTable{Header: []string{"chip", "parameter", "value", "kind", "elasticity of decode tokens/s", "elasticity of TTFT", "source"}}
	type row struct {
		cells []string
		size  float64
	}
	var rows []row
	for _, r := range a.Ranking {
		for _, e := range r.Sensitivity {
			if e.Err != "" {
				continue
			}
			dec, ttft := e.Effect("decode.tokens_per_s"), e.Effect("ttft_s")
			size := 0.0
			cell := func(ef *advisor.Effect) string {
				if ef == nil || ef.Elasticity == nil {
					return "—"
				}
				size = max(size, math.Abs(*ef.Elasticity))
				return numfmt.Value(roundTo(*ef.Elasticity, 2), 0)
			}
			cells := []string{r.SoC, e.Param, numfmt.Value(e.Value, e.Kind), "", cell(dec), cell(ttft), e.Source}
			cells[3] = SourceKind(e.Source)
			rows = append(rows, row{cells, size})
		}
	}
	slices.SortStableFunc(rows, func(x, y row) int { return cmpFloat(y.size, x.size) })
	for _, r := range rows {
		t.Rows = append(t.Rows, r.cells)
	}
	return t
}

// roundTo rounds v to d decimals; a value that rounds to zero is 0, not −0.
func roundTo(v float64, d int) float64 {
	p := math.Pow(10, float64(d))
	r := math.Round(v*p) / p
	if r == 0 {
		return 0
	}
	return r
}
