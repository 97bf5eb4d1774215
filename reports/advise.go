package reports

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"image/color"
	"io"
	"math"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/edgetwin/edgetwin/advisor"
	"github.com/edgetwin/edgetwin/hw/units"
	"github.com/edgetwin/edgetwin/internal/numfmt"
	"github.com/edgetwin/edgetwin/sim"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// WriteAdvice prints the advice of `edgetwin advise chip` as a table or
// JSON (CSV has no room for it).
func WriteAdvice(w io.Writer, a *advisor.Advice, f Format) error {
	switch f {
	case JSON:
		doc, err := adviceJSON(a)
		if err != nil {
			return err
		}
		return WriteJSON(w, doc)
	case CSV:
		return fmt.Errorf("advice has no CSV form: use table or json")
	}
	return AdviceTable(w, a)
}

// --- JSON -----------------------------------------------------------------

type adviceDoc struct {
	Model        string           `json:"model"`
	Quant        string           `json:"quant"`
	KVDtype      string           `json:"kv_dtype"`
	Fidelity     string           `json:"fidelity"`
	Prompt       int              `json:"prompt"`
	Gen          int              `json:"gen"`
	Batch        int              `json:"batch"`
	Objective    objectiveDoc     `json:"objective"`
	Requirements []requirementDoc `json:"requirements"`
	Ranking      []rowDoc         `json:"ranking"`
	Pareto       paretoDoc        `json:"pareto"`
	Questions    []questionDoc    `json:"vendor_questions"`
	WhatIf       *whatIfDoc       `json:"what_if,omitempty"`
}

type objectiveDoc struct {
	Expr    string `json:"expr"`
	Sense   string `json:"sense"` // minimize | maximize
	Default bool   `json:"default"`
}

type requirementDoc struct {
	Expr    string   `json:"expr"`
	Clauses []string `json:"clauses"`
}

type rowDoc struct {
	Rank            int             `json:"rank"`
	SoC             string          `json:"soc"`
	Name            string          `json:"name"`
	Pass            bool            `json:"pass"`
	Reason          string          `json:"reason,omitempty"`
	Objective       *float64        `json:"objective"`
	ObjectiveNote   string          `json:"objective_note,omitempty"`
	BaselineRank    int             `json:"baseline_rank,omitempty"`
	ObjectiveChange *float64        `json:"objective_change,omitempty"`
	PriceUSD        *float64        `json:"price_usd"`
	Diagnosis       string          `json:"diagnosis"`
	Checks          []checkDoc      `json:"requirements"`
	Sensitivity     []elasticityDoc `json:"sensitivity,omitempty"`
	Metrics         json.RawMessage `json:"metrics"`
}

type checkDoc struct {
	Expr    string      `json:"expr"`
	Pass    bool        `json:"pass"`
	Reason  string      `json:"reason,omitempty"`
	Clauses []clauseDoc `json:"clauses"`
}

type clauseDoc struct {
	Expr     string   `json:"expr"`
	Pass     bool     `json:"pass"`
	Margin   *float64 `json:"margin"`
	MarginOf string   `json:"margin_of,omitempty"`
	Reason   string   `json:"reason,omitempty"`
}

type elasticityDoc struct {
	Param   string      `json:"param"`
	Label   string      `json:"label"`
	Value   float64     `json:"value"`
	Step    float64     `json:"step"`
	Source  string      `json:"source"`
	Assumed bool        `json:"assumed"`
	Effects []effectDoc `json:"effects"`
	Error   string      `json:"error,omitempty"`
}

type effectDoc struct {
	Metric     string   `json:"metric"`
	Base       *float64 `json:"base"`
	New        *float64 `json:"new"`
	Change     *float64 `json:"change"`
	Elasticity *float64 `json:"elasticity"`
}

type paretoDoc struct {
	Cost    string           `json:"cost"`
	Value   string           `json:"value"`
	Note    string           `json:"note"`
	Points  []paretoPointDoc `json:"points"`
	LeftOut []string         `json:"left_out"`
}

type paretoPointDoc struct {
	SoC     string  `json:"soc"`
	Cost    float64 `json:"price_usd"`
	Value   float64 `json:"tokens_per_s"`
	Pass    bool    `json:"pass"`
	OnFront bool    `json:"on_front"`
}

type questionDoc struct {
	Question    string            `json:"question"`
	Measurement string            `json:"measurement"`
	Param       string            `json:"param"`
	Chips       []questionChipDoc `json:"chips"`
}

type questionChipDoc struct {
	SoC        string  `json:"soc"`
	Path       string  `json:"path"`
	Value      string  `json:"value"`
	Source     string  `json:"source"`
	Metric     string  `json:"metric"`
	Elasticity float64 `json:"elasticity"`
}

type whatIfDoc struct {
	Sets    []string `json:"sets"`
	Ranking []rowDoc `json:"ranking"`
}

func adviceJSON(a *advisor.Advice) (*adviceDoc, error) {
	d := &adviceDoc{
		Model: a.Model, Quant: a.Quant, KVDtype: a.KVDtype, Fidelity: a.Fidelity,
		Prompt: a.Prompt, Gen: a.Gen, Batch: a.Batch,
		Objective:    objectiveDoc{Expr: a.Objective.Expr, Sense: sense(a.Objective), Default: a.Objective.Default},
		Requirements: []requirementDoc{},
		Questions:    []questionDoc{},
	}
	for _, r := range a.Requirements {
		d.Requirements = append(d.Requirements, requirementDoc{Expr: r.Expr, Clauses: r.Clauses})
	}
	var err error
	if d.Ranking, err = rowDocs(a, a.Ranking); err != nil {
		return nil, err
	}
	d.Pareto = paretoDoc{Cost: a.Pareto.CostKey, Value: a.Pareto.ValueKey, Note: a.Pareto.Note,
		Points: []paretoPointDoc{}, LeftOut: []string{}}
	for _, p := range a.Pareto.Points {
		d.Pareto.Points = append(d.Pareto.Points, paretoPointDoc{SoC: p.SoC, Cost: p.Cost, Value: p.Value, Pass: p.Pass, OnFront: p.OnFront})
	}
	d.Pareto.LeftOut = append(d.Pareto.LeftOut, a.Pareto.Left...)
	for _, q := range a.VendorQuestions {
		qd := questionDoc{Question: q.Question, Measurement: q.Measurement, Param: q.Param}
		for _, c := range q.Chips {
			qd.Chips = append(qd.Chips, questionChipDoc{SoC: c.SoC, Path: c.Path, Value: c.Value, Source: c.Source, Metric: c.Metric, Elasticity: c.Elasticity})
		}
		d.Questions = append(d.Questions, qd)
	}
	if a.WhatIf != nil {
		rows, err := rowDocs(a, a.WhatIf.Ranking)
		if err != nil {
			return nil, err
		}
		d.WhatIf = &whatIfDoc{Sets: a.WhatIf.Sets, Ranking: rows}
	}
	return d, nil
}

func sense(o advisor.Objective) string {
	if o.Maximize {
		return "maximize"
	}
	return "minimize"
}

// rowDocs writes the rows; metrics are the simulate result exactly as
// simulate prints it, or, for a chip that did not run, the same keys with
// null figures and the error (as compare writes such a chip).
func rowDocs(a *advisor.Advice, rows []advisor.Row) ([]rowDoc, error) {
	var template []byte
	for _, r := range rows {
		if r.Result != nil {
			data, err := json.Marshal(r.Result)
			if err != nil {
				return nil, err
			}
			template = data
			break
		}
	}
	if template == nil {
		c := &Compare{Model: a.Model, Quant: a.Quant, KVDtype: a.KVDtype, Fidelity: a.Fidelity, Prompt: a.Prompt, Gen: a.Gen, Batch: a.Batch}
		data, err := json.Marshal(c.emptyResult())
		if err != nil {
			return nil, err
		}
		template = data
	}
	out := []rowDoc{}
	for _, r := range rows {
		rd := rowDoc{
			Rank: r.Rank, SoC: r.SoC, Name: r.Name, Pass: r.Pass, Reason: r.Reason,
			Objective: r.Objective, ObjectiveNote: r.ObjectiveNote,
			BaselineRank: r.BaselineRank, ObjectiveChange: r.ObjectiveChange,
			Diagnosis: r.Diagnosis, Checks: []checkDoc{},
		}
		if r.PriceUSD > 0 {
			rd.PriceUSD = ptrTo(r.PriceUSD)
		}
		for _, c := range r.Checks {
			cd := checkDoc{Expr: c.Requirement, Pass: c.Pass, Reason: c.Reason, Clauses: []clauseDoc{}}
			for _, cl := range c.Clauses {
				cd.Clauses = append(cd.Clauses, clauseDoc{Expr: cl.Expr, Pass: cl.Pass, Margin: cl.Margin, MarginOf: cl.Key, Reason: cl.Reason})
			}
			rd.Checks = append(rd.Checks, cd)
		}
		for _, e := range r.Sensitivity {
			ed := elasticityDoc{Param: e.Param, Label: e.Label, Value: e.Value, Step: e.Step, Source: e.Source, Assumed: e.Assumed, Effects: []effectDoc{}, Error: e.Err}
			for _, ef := range e.Effects {
				ed.Effects = append(ed.Effects, effectDoc{Metric: ef.Metric, Base: ef.Base, New: ef.New, Change: ef.Change, Elasticity: ef.Elasticity})
			}
			rd.Sensitivity = append(rd.Sensitivity, ed)
		}
		var err error
		if r.Result != nil {
			rd.Metrics, err = json.Marshal(r.Result)
		} else {
			rd.Metrics, err = nullRow(template, r.SoC, r.Err)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, rd)
	}
	return out, nil
}

// --- table ----------------------------------------------------------------

// AdviceTable prints the advice for people: the workload and what is
// asked, the ranking with each requirement clause's ✓/✗ and margin and the
// objective, each chip's diagnosis (and why it fails), the elasticities,
// the Pareto front, the vendor questions and the what-if ranking.
func AdviceTable(w io.Writer, a *advisor.Advice) error {
	fmt.Fprintf(w, "%s %s — prompt %d · generate %d · batch %d · KV cache %s · %s fidelity — %d candidates\n",
		a.Model, a.Quant, a.Prompt, a.Gen, a.Batch, a.KVDtype, a.Fidelity, len(a.Ranking))
	obj := sense(a.Objective) + " " + a.Objective.Expr
	if a.Objective.Default {
		obj += " (the default)"
	}
	fmt.Fprintf(w, "Objective: %s\n", obj)
	labels := clauseLabels(a.Requirements)
	if len(a.Requirements) == 0 {
		fmt.Fprintln(w, "Requirements: none")
	} else {
		fmt.Fprintln(w, "Requirements:")
		k := 0
		for _, r := range a.Requirements {
			for _, c := range r.Clauses {
				fmt.Fprintf(w, "  %-5s %s\n", labels[k], c)
				k++
			}
		}
	}
	fmt.Fprintln(w)
	if err := rankingTable(w, a, a.Ranking, labels, false); err != nil {
		return err
	}

	fmt.Fprintln(w)
	fmt.Fprintln(w, "Diagnosis:")
	width := 0
	for _, r := range a.Ranking {
		width = max(width, utf8.RuneCountInString(r.SoC))
	}
	for _, r := range a.Ranking {
		fmt.Fprintf(w, "  %2d  %s  %s\n", r.Rank, pad(r.SoC, width), r.Diagnosis)
		if !r.Pass && r.Err == "" && r.Reason != "" {
			fmt.Fprintf(w, "      %s  fails: %s\n", pad("", width), r.Reason)
		}
	}

	if err := sensitivityTable(w, a.Ranking); err != nil {
		return err
	}
	if err := thermalSensitivityTable(w, a.Ranking); err != nil {
		return err
	}
	paretoText(w, a.Pareto)
	questionsText(w, a.VendorQuestions)
	if a.WhatIf != nil {
		fmt.Fprintln(w)
		fmt.Fprintf(w, "What if %s (every candidate rerun; baseline rank in brackets):\n", strings.Join(a.WhatIf.Sets, ", "))
		if err := rankingTable(w, a, a.WhatIf.Ranking, labels, true); err != nil {
			return err
		}
	}
	return nil
}

// clauseLabels names each requirement clause: R1, R2 for single-clause
// requirements, R1a, R1b for the clauses of a compound one.
func clauseLabels(reqs []advisor.RequirementText) []string {
	var out []string
	for i, r := range reqs {
		if len(r.Clauses) == 1 {
			out = append(out, fmt.Sprintf("R%d", i+1))
			continue
		}
		for j := range r.Clauses {
			out = append(out, fmt.Sprintf("R%d%c", i+1, 'a'+j%26))
		}
	}
	return out
}

func rankingTable(w io.Writer, a *advisor.Advice, rows []advisor.Row, labels []string, whatIf bool) error {
	objHeader := a.Objective.Expr
	if utf8.RuneCountInString(objHeader) > 24 {
		objHeader = "objective"
	}
	header := []string{"rank", "chip", "runtime", "pass"}
	header = append(header, labels...)
	header = append(header, objHeader)
	if whatIf {
		header = append(header, "change")
	}
	cells := [][]string{header}
	unmeasured := false
	for _, r := range rows {
		rank := fmt.Sprint(r.Rank)
		if whatIf && r.BaselineRank > 0 {
			rank = fmt.Sprintf("%d (%d)", r.Rank, r.BaselineRank)
		}
		rt := "—"
		if res := r.Result; res != nil {
			rt = res.Runtime
			if res.Quant != a.Quant {
				rt += " " + res.Quant // the runtime's own quantisation
			}
			if !res.RuntimeMeasured && res.Runtime != sim.NoRuntime {
				rt += "*"
				unmeasured = true
			}
		}
		row := []string{rank, r.SoC, rt, tick(r.Pass)}
		for _, c := range r.Checks {
			for _, cl := range c.Clauses {
				row = append(row, clauseCell(a, cl))
			}
		}
		row = append(row, objectiveCell(a, a.Objective.Expr, r.Objective))
		if whatIf {
			ch := "—"
			if r.ObjectiveChange != nil {
				ch = signed(a, *r.ObjectiveChange, a.Objective.Expr)
			}
			row = append(row, ch)
		}
		cells = append(cells, row)
	}
	// Chip names, runtimes and checks read left-aligned, numbers right-aligned.
	left := map[int]bool{1: true, 2: true, 3: true}
	for k := range labels {
		left[4+k] = true
	}
	if err := writeCells(w, cells, left); err != nil {
		return err
	}
	if unmeasured {
		_, err := fmt.Fprintln(w, "  * no measurement backs this runtime's figures: the chip's own, mostly assumed, figures stand for it (see edgetwin catalog show RUNTIME)")
		return err
	}
	return nil
}

// writeCells prints rows of cells in columns two spaces apart, the left
// columns padded on the right and the others on the left.
func writeCells(w io.Writer, cells [][]string, left map[int]bool) error {
	widths := map[int]int{}
	for _, row := range cells {
		for i, c := range row {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	for _, row := range cells {
		for i, c := range row {
			if left[i] && i < len(row)-1 {
				c = pad(c, widths[i])
			}
			fmt.Fprintf(tw, "%s\t", c)
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

func pad(s string, width int) string {
	return s + strings.Repeat(" ", max(0, width-utf8.RuneCountInString(s)))
}

func tick(ok bool) string {
	if ok {
		return "✓"
	}
	return "✗"
}

// clauseCell is "✓ +330 ms", "✗ −2.1", or "✗ null" for a clause on a null
// metric.
func clauseCell(a *advisor.Advice, c advisor.ClauseCheck) string {
	switch {
	case c.Margin != nil:
		return tick(c.Pass) + " " + signed(a, *c.Margin, c.Key)
	case c.Reason != "" && strings.Contains(c.Reason, "did not run"):
		return tick(c.Pass) + " no run"
	case c.Reason != "" && strings.Contains(c.Reason, "null"):
		return tick(c.Pass) + " null"
	case c.Reason != "" && strings.Contains(c.Reason, "spec does not have"):
		return tick(c.Pass) + " n/a"
	}
	return tick(c.Pass)
}

// keyKind is the dimension of a value read at key: a chip spec path's
// from the spec's field type, a result key's as MetricKind guesses it.
func keyKind(a *advisor.Advice, key string) units.Kind {
	if strings.HasPrefix(key, "chip.") {
		return a.Kinds[key]
	}
	return sim.KeyKind(key)
}

// signed prints a difference in the unit of key, with its sign.
func signed(a *advisor.Advice, v float64, key string) string {
	sign := "+"
	switch {
	case v < 0:
		sign = "−"
	case v == 0:
		sign = "±"
	}
	m := math.Abs(v)
	if key == "chip.price_usd" {
		return sign + "$" + numfmt.Value(m, 0)
	}
	if k := keyKind(a, key); k != 0 && m != 0 {
		return sign + units.Approx(m, k)
	}
	return sign + numfmt.Value(m, 0)
}

func objectiveCell(a *advisor.Advice, key string, v *float64) string {
	if v == nil {
		return "—"
	}
	if key == "chip.price_usd" {
		return "$" + numfmt.Value(*v, 0)
	}
	if k := keyKind(a, key); k != 0 {
		return units.Approx(*v, k)
	}
	return numfmt.Value(*v, 0)
}

// sensitivityColumns are the parameters the elasticity table shows, in
// order, with their headers.
var sensitivityColumns = []struct {
	header string
	match  func(path string) bool
}{
	{"DRAM BW", func(p string) bool { return p == "memory.dram.bandwidth" }},
	{"DRAM seq eff", func(p string) bool { return p == "memory.dram.seq_efficiency" }},
	{"DRAM random", func(p string) bool { return p == "memory.dram.random_penalty" }},
	{"L3 size", func(p string) bool { return p == "memory.l3.size" }},
	{"L3 BW", func(p string) bool { return p == "memory.l3.bandwidth" }},
	{"unit peak", func(p string) bool { return strings.HasPrefix(p, "units.") && strings.Contains(p, ".peak.") }},
	{"dispatch", func(p string) bool { return strings.HasPrefix(p, "units.") && strings.HasSuffix(p, ".dispatch") }},
	{"DMA set-up", func(p string) bool { return p == "dma.setup" }},
}

// sensitivityTable prints, per chip that ran, the elasticity of decode
// tokens/s and of TTFT to each parameter: "0.85/−0.02", * for an assumed
// figure.
func sensitivityTable(w io.Writer, rows []advisor.Row) error {
	some := false
	for _, r := range rows {
		some = some || len(r.Sensitivity) > 0
	}
	if !some {
		return nil
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Sensitivity: elasticity of decode tokens/s / of TTFT to each parameter (* an assumed figure):")
	header := []string{"", "chip"}
	for _, c := range sensitivityColumns {
		header = append(header, c.header)
	}
	cells := [][]string{header}
	for _, r := range rows {
		if len(r.Sensitivity) == 0 {
			continue
		}
		row := []string{fmt.Sprint(r.Rank), r.SoC}
		for _, c := range sensitivityColumns {
			cell := "—"
			for _, e := range r.Sensitivity {
				if !c.match(e.Param) {
					continue
				}
				cell = elasticityCell(e)
			}
			row = append(row, cell)
		}
		cells = append(cells, row)
	}
	return writeCells(w, cells, map[int]bool{1: true})
}

// thermalColumns are the heat figures the thermal elasticity table
// shows, when the advice reran any.
var thermalColumns = []struct {
	header string
	match  func(path string) bool
}{
	{"skin R", func(p string) bool { return p == "thermal.nodes.skin.to_ambient" }},
	{"board R", func(p string) bool { return p == "thermal.nodes.board.to_ambient" }},
	{"skin trip", func(p string) bool {
		return p == "governor.skin.limit" || strings.HasPrefix(p, "governor.trips.") && strings.HasSuffix(p, ".temp")
	}},
	{"active power", func(p string) bool { return strings.HasPrefix(p, "units.") && strings.HasSuffix(p, ".active_power") }},
}

// thermalSensitivityTable prints, per chip with thermal reruns, the
// elasticity of the sustained tokens/s and of the skin's rise above
// ambient to each heat figure.
func thermalSensitivityTable(w io.Writer, rows []advisor.Row) error {
	header := []string{"", "chip"}
	for _, c := range thermalColumns {
		header = append(header, c.header)
	}
	cells := [][]string{header}
	for _, r := range rows {
		row := []string{fmt.Sprint(r.Rank), r.SoC}
		some := false
		for _, c := range thermalColumns {
			cell := "—"
			for _, e := range r.Sensitivity {
				if c.match(e.Param) {
					cell, some = metricCell(e, "thermal.sustained_tokens_per_s", "thermal.skin_peak_c"), true
				}
			}
			row = append(row, cell)
		}
		if some {
			cells = append(cells, row)
		}
	}
	if len(cells) == 1 {
		return nil
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Thermal sensitivity: elasticity of sustained tokens/s / of the skin's rise above ambient (* an assumed figure):")
	return writeCells(w, cells, map[int]bool{1: true})
}

func elasticityCell(e advisor.Elasticity) string {
	return metricCell(e, "decode.tokens_per_s", "ttft_s")
}

// metricCell prints the elasticities of two metrics to one parameter,
// "0.85/−0.02", with * for an assumed figure.
func metricCell(e advisor.Elasticity, first, second string) string {
	if e.Err != "" {
		return "error"
	}
	el := func(m string) string {
		ef := e.Effect(m)
		if ef == nil || ef.Elasticity == nil {
			return "—"
		}
		v := *ef.Elasticity
		if math.Abs(v) < 0.005 {
			return "0"
		}
		return strings.Replace(fmt.Sprintf("%.2f", v), "-", "−", 1)
	}
	cell := el(first) + "/" + el(second)
	if e.Assumed {
		cell += "*"
	}
	return cell
}

func paretoText(w io.Writer, p advisor.Pareto) {
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Pareto front, price against %s (%s):\n", p.ValueKey, p.Note)
	var front []advisor.ParetoPoint
	for _, pt := range p.Points {
		if pt.OnFront {
			front = append(front, pt)
		}
	}
	if len(front) == 0 {
		fmt.Fprintln(w, "  no chip has both a price and a decode rate")
	} else {
		var cw, sw, vw int
		for _, pt := range front {
			cw = max(cw, len("$"+numfmt.Value(pt.Cost, 0)))
			sw = max(sw, utf8.RuneCountInString(pt.SoC))
			vw = max(vw, len(fmt.Sprintf("%.1f", pt.Value)))
		}
		for _, pt := range front {
			fmt.Fprintf(w, "  %*s  %s  %*.1f tokens/s  %s\n", cw, "$"+numfmt.Value(pt.Cost, 0), pad(pt.SoC, sw), vw, pt.Value, passWord(pt.Pass))
		}
		if n := len(p.Points) - len(front); n > 0 {
			fmt.Fprintf(w, "  %d more %s dominated: as dear or dearer, and no faster\n", n, plural(n, "chip is", "chips are"))
		}
	}
	if len(p.Left) > 0 {
		fmt.Fprintf(w, "  left out: %s\n", strings.Join(p.Left, ", "))
	}
}

func passWord(ok bool) string {
	if ok {
		return "passes"
	}
	return "fails a requirement"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func questionsText(w io.Writer, qs []advisor.Question) {
	fmt.Fprintln(w)
	if len(qs) == 0 {
		fmt.Fprintln(w, "Vendor questions: none — no assumed figure moves decode tokens/s or TTFT by more than 0.1× its own change")
		return
	}
	fmt.Fprintln(w, "Vendor questions (assumed figures the ranking hinges on, most influential first):")
	for i, q := range qs {
		fmt.Fprintf(w, "  %d. %s\n", i+1, q.Question)
		fmt.Fprintf(w, "     measure: %s\n", q.Measurement)
		fmt.Fprintf(w, "     for: %s\n", questionChips(q.Chips))
	}
}

// questionChips lists the chips a question applies to, those with the same
// assumed figure and metric together: "seed-a, seed-c
// (memory.dram.seq_efficiency = 70%; elasticity of decode tokens/s 0.97
// to 0.98)".
func questionChips(chips []advisor.QuestionChip) string {
	type group struct {
		key    string
		socs   []string
		lo, hi float64
	}
	var groups []*group
	for _, c := range chips {
		key := fmt.Sprintf("%s = %s; elasticity of %s", c.Path, c.Value, metricName(c.Metric))
		var g *group
		for _, x := range groups {
			if x.key == key {
				g = x
			}
		}
		if g == nil {
			g = &group{key: key, lo: c.Elasticity, hi: c.Elasticity}
			groups = append(groups, g)
		}
		g.socs = append(g.socs, c.SoC)
		g.lo, g.hi = math.Min(g.lo, c.Elasticity), math.Max(g.hi, c.Elasticity)
	}
	num := func(v float64) string { return strings.Replace(fmt.Sprintf("%.2f", v), "-", "−", 1) }
	var parts []string
	for _, g := range groups {
		el := num(g.lo)
		if num(g.lo) != num(g.hi) {
			el += " to " + num(g.hi)
		}
		parts = append(parts, fmt.Sprintf("%s (%s %s)", strings.Join(g.socs, ", "), g.key, el))
	}
	return strings.Join(parts, "; ")
}

func metricName(m string) string {
	switch m {
	case "decode.tokens_per_s":
		return "decode tokens/s"
	case "ttft_s":
		return "TTFT"
	case "thermal.sustained_tokens_per_s":
		return "sustained tokens/s"
	}
	return m
}

// --- Pareto figure ----------------------------------------------------------

// ParetoPlot is what the Pareto figure shows: every chip with a price and
// a decode rate, the front connected.
type ParetoPlot struct {
	Title  string
	XLabel string
	YLabel string
	Points []advisor.ParetoPoint
}

// ParetoPlotData lays the advice's Pareto plane out for plotting.
func ParetoPlotData(a *advisor.Advice) ParetoPlot {
	return ParetoPlot{
		Title:  fmt.Sprintf("Pareto front: price against %s tokens/s — %s %s, prompt %d · generate %d", strings.TrimSuffix(paretoAxis(a.Pareto.ValueKey), " (tokens/s)"), a.Model, a.Quant, a.Prompt, a.Gen),
		XLabel: "price (USD)",
		YLabel: paretoAxis(a.Pareto.ValueKey),
		Points: a.Pareto.Points,
	}
}

// paretoAxis labels the throughput axis.
func paretoAxis(key string) string {
	if key == "thermal.sustained_tokens_per_s" {
		return "sustained decode (tokens/s)"
	}
	return "decode (tokens/s)"
}

// WriteCSV prints the plotted points: chip, price, rate, pass, on_front.
func (p ParetoPlot) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"chip", p.XLabel, p.YLabel, "pass", "on_front"}); err != nil {
		return err
	}
	for _, pt := range p.Points {
		if err := cw.Write([]string{pt.SoC, jsonNumber(pt.Cost), jsonNumber(pt.Value), fmt.Sprint(pt.Pass), fmt.Sprint(pt.OnFront)}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// paretoGrey draws the chips off the front.
var paretoGrey = color.Gray{Y: 140}

// Plot draws the plane: the front as a line through its chips by price,
// chips that pass as filled circles (in colour on the front, grey off
// it), chips that fail a requirement as crosses, each labelled.
func (p ParetoPlot) Plot() (*plot.Plot, error) {
	pl := plot.New()
	style(pl)
	pl.X.Label.Text, pl.Y.Label.Text = p.XLabel, p.YLabel
	var front plotter.XYs
	var xmax, ymax float64
	for _, pt := range p.Points {
		if pt.OnFront {
			front = append(front, plotter.XY{X: pt.Cost, Y: pt.Value})
		}
		xmax, ymax = math.Max(xmax, pt.Cost), math.Max(ymax, pt.Value)
	}
	leg := &pl.Legend
	leg.TextStyle.Font = sans(tickSize)
	leg.Top, leg.Left = false, false // lower right, where the cheap slow chips are not
	leg.XOffs, leg.YOffs = -vg.Points(8), vg.Points(8)
	leg.ThumbnailWidth = vg.Points(30)
	leg.Padding = vg.Points(4)
	if len(front) > 1 {
		line, err := plotter.NewLine(front)
		if err != nil {
			return nil, err
		}
		line.LineStyle = lineStyle(0)
		pl.Add(line)
		leg.Add("Pareto front", line)
	}
	groups := []struct {
		name  string
		keep  func(advisor.ParetoPoint) bool
		glyph draw.GlyphStyle
	}{
		{"passes, on the front", func(pt advisor.ParetoPoint) bool { return pt.Pass && pt.OnFront }, glyphStyle(0)},
		{"passes, dominated", func(pt advisor.ParetoPoint) bool { return pt.Pass && !pt.OnFront },
			draw.GlyphStyle{Color: paretoGrey, Radius: vg.Points(glyphRadius), Shape: draw.CircleGlyph{}}},
		{"fails a requirement", func(pt advisor.ParetoPoint) bool { return !pt.Pass },
			draw.GlyphStyle{Color: plotutil.DarkColors[1], Radius: vg.Points(glyphRadius + 1), Shape: draw.CrossGlyph{}}},
	}
	for _, g := range groups {
		var xys plotter.XYs
		for _, pt := range p.Points {
			if g.keep(pt) {
				xys = append(xys, plotter.XY{X: pt.Cost, Y: pt.Value})
			}
		}
		if len(xys) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(xys)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle = g.glyph
		pl.Add(sc)
		leg.Add(g.name, sc)
	}
	if len(p.Points) > 0 {
		var labels plotter.XYLabels
		for _, pt := range p.Points {
			labels.XYs = append(labels.XYs, plotter.XY{X: pt.Cost, Y: pt.Value})
			labels.Labels = append(labels.Labels, pt.SoC)
		}
		if err := addLabels(pl, labels, vg.Points(6)); err != nil {
			return nil, err
		}
	}
	// From zero, with room on the right for the last label.
	pl.X.Min, pl.Y.Min = 0, 0
	pl.X.Max = math.Max(1, xmax*1.3)
	pl.Y.Max = math.Max(1, ymax*1.1)
	return pl, nil
}

// paretoHeight is the figure's height: one panel, square-ish.
const paretoHeight = 6 * vg.Inch

// Size is the Pareto figure's width and height.
func (p ParetoPlot) Size() (w, h vg.Length) { return figureWidth, paretoHeight }

// Render draws the Pareto figure as png, svg or pdf.
func (p ParetoPlot) Render(format string) (io.WriterTo, error) {
	pl, err := p.Plot()
	if err != nil {
		return nil, err
	}
	w, h := p.Size()
	return renderTitled(format, w, h, p.Title, func(dc draw.Canvas) {
		pl.Draw(draw.Crop(dc, vg.Points(6), -vg.Points(18), vg.Points(6), -vg.Points(6)))
	})
}

// Save writes the Pareto figure to path, in the format its extension
// names, atomically (see SaveFigure).
func (p ParetoPlot) Save(path string) error { return saveRendered(path, p.Render) }
