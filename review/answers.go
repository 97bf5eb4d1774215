package review

import (
	"fmt"
	"strings"

	"github.com/edgetwin/edgetwin/advisor"
	"github.com/edgetwin/edgetwin/internal/numfmt"
	"github.com/edgetwin/edgetwin/reports"
)

// answers is the table of the review's questions: those asked by id
// answered per model from the advice, the others listed for the reader.
func (p *Plan) answers() reports.Section {
	t := &reports.ReportTable{Header: []string{"question", "for", "answer"}}
	for i := range p.file.Questions {
		id, text := p.file.Question(i)
		if id == "" {
			t.Rows = append(t.Rows, []string{text, "—", "Not answered automatically (edgetwin answers the ids " + strings.Join(QuestionIDs(), ", ") + "): read it against the figures and tables of this report."})
			continue
		}
		for j, a := range p.advice {
			t.Rows = append(t.Rows, []string{text, p.workloadName(j, true), p.answer(id, a)})
		}
	}
	return reports.Section{
		ID: "answers", Title: "Answers to the review's questions", Table: t,
		Text: []string{"Questions asked by id are answered from the runs below, per model; others are listed for the review to answer from the figures and tables."},
	}
}

// answer answers the question id from advice a. The ranking questions
// (best-chip, requirements) are the review's own; the others are the
// advisor's answers: its diagnosis, its throttle answer and its vendor
// questions.
func (p *Plan) answer(id string, a *advisor.Advice) string {
	switch id {
	case "best-chip":
		return bestChip(a)
	case "requirements":
		return requirementsAnswer(a)
	case "bottleneck":
		var ds []string
		for _, r := range a.Ranking {
			ds = append(ds, r.SoC+": "+r.Diagnosis+".")
		}
		return strings.Join(ds, " ")
	case "throttle":
		return p.throttleAnswer(a)
	case "vendor-questions":
		if a != p.advice[0] {
			return "Asked for the first model only: the sensitivity reruns behind the questions run for it alone, to keep the report quick."
		}
		var qs []string
		for k, q := range a.VendorQuestions {
			qs = append(qs, fmt.Sprintf("%d. %s (measure: %s)", k+1, q.Question, q.Measurement))
		}
		if len(qs) == 0 {
			return "None: no assumed figure moves the ranking much."
		}
		return strings.Join(qs, " ")
	}
	panic("review: no answer for question id " + id)
}

func bestChip(a *advisor.Advice) string {
	if len(a.Ranking) == 0 {
		return "No chip ran."
	}
	top := a.Ranking[0]
	obj := a.Objective.Expr + " " + objectiveText(top.Objective)
	if top.Pass {
		return fmt.Sprintf("%s: of the chips that meet every requirement, it has %s (%s).", top.SoC, objectiveWord(a), obj)
	}
	return fmt.Sprintf("None meets every requirement; the closest is %s, which fails: %s.", top.SoC, top.Reason)
}

func requirementsAnswer(a *advisor.Advice) string {
	var pass []string
	for _, r := range a.Ranking {
		if r.Pass {
			pass = append(pass, r.SoC)
		}
	}
	verb := "meet"
	if len(pass) == 1 {
		verb = "meets"
	}
	s := fmt.Sprintf("%d of %d chips %s every requirement", len(pass), len(a.Ranking), verb)
	if len(pass) > 0 {
		s += ": " + strings.Join(pass, ", ")
	}
	return s + ". Margins are in the requirements table."
}

func objectiveWord(a *advisor.Advice) string {
	if a.Objective.Maximize {
		return "the highest " + a.Objective.Expr
	}
	return "the lowest " + a.Objective.Expr
}

func objectiveText(v *float64) string {
	if v == nil {
		return "has no figure"
	}
	return "= " + numfmt.Value(*v, 0)
}

// throttleAnswer is the advisor's throttle answer (advisor.Throttling)
// for each chip's run under the review's first scenario.
func (p *Plan) throttleAnswer(a *advisor.Advice) string {
	if len(p.file.Scenarios) == 0 {
		return "The review runs no scenario, so nothing runs long enough to heat up; add {scenario: sustained, duration: 2m}."
	}
	var out []string
	for i, chip := range p.chipIDs {
		if r := p.adviceResult(a, i); r != nil {
			out = append(out, chip+": "+advisor.Throttling(p.chips[i], r)+".")
		}
	}
	if len(out) == 0 {
		return "No chip ran."
	}
	return strings.Join(out, " ")
}
