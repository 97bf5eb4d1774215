package reports

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/edgetwin/edgetwin/advisor"
)

// WriteQuestions prints the answers of `edgetwin advise questions`: a
// table (each question, its answer wrapped to the page and what it rests
// on) or JSON (the list of answers, each with id, question, answer,
// metrics and provenance).
func WriteQuestions(w io.Writer, a *advisor.Answers, f Format) error {
	switch f {
	case JSON:
		return WriteJSON(w, a.Answers)
	case CSV:
		return fmt.Errorf("the answers have no CSV form: use table or json")
	}
	return QuestionsTable(w, a)
}

// questionsWidth is the column the table's answers wrap at.
const questionsWidth = 100

// maxAssumedListed bounds the assumed figures the table names per answer;
// the JSON lists them all.
const maxAssumedListed = 6

// QuestionsTable prints the answers for people.
func QuestionsTable(w io.Writer, a *advisor.Answers) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Review questions for %s (%s), %s %s", a.SoC, a.Name, a.Model, a.Quant)
	if a.Unit != "" {
		fmt.Fprintf(&b, ", run on the %s", a.Unit)
	}
	b.WriteString("\n")
	for _, n := range a.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	for i, q := range a.Answers {
		fmt.Fprintf(&b, "\n%d. %s [%s]\n", i+1, q.Question, q.ID)
		wrapTo(&b, q.Answer, "   ", questionsWidth)
		wrapTo(&b, restsOn(q.Provenance), "   ", questionsWidth)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// restsOn summarises an answer's provenance: how many figures of each
// basis, and the assumed ones by path.
func restsOn(figs []advisor.Figure) string {
	if len(figs) == 0 {
		return "Rests on no spec figure."
	}
	order := []string{advisor.BasisCited, advisor.BasisCalibrated, advisor.BasisSet, advisor.BasisGiven, advisor.BasisAssumed}
	count := map[string]int{}
	var assumed []string
	for _, f := range figs {
		count[f.Basis]++
		if p := listPath(f.Path); f.Basis == advisor.BasisAssumed && !slices.Contains(assumed, p) {
			assumed = append(assumed, p)
		}
	}
	var parts []string
	for _, basis := range order {
		if n := count[basis]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, basis))
		}
	}
	s := fmt.Sprintf("Rests on %d figures: %s", len(figs), strings.Join(parts, ", "))
	if len(assumed) > 0 {
		more := ""
		if len(assumed) > maxAssumedListed {
			more = fmt.Sprintf(" and %d more", len(assumed)-maxAssumedListed)
			assumed = assumed[:maxAssumedListed]
		}
		s += fmt.Sprintf(" (assumed: %s%s)", strings.Join(assumed, ", "), more)
	}
	return s + "."
}

// listPath cuts a path at its first list index, so that the entries of a
// list print once: governor.trips.3.temp is governor.trips.*.
func listPath(path string) string {
	segs := strings.Split(path, ".")
	for i, s := range segs {
		if _, err := strconv.Atoi(s); err == nil {
			return strings.Join(segs[:i], ".") + ".*"
		}
	}
	return path
}

// wrapTo writes text in lines of at most width runes (a longer word
// stands alone), each after indent.
func wrapTo(b *strings.Builder, text, indent string, width int) {
	line := indent
	for _, word := range strings.Fields(text) {
		if line != indent && len([]rune(line))+1+len([]rune(word)) > width {
			b.WriteString(line + "\n")
			line = indent
		}
		if line != indent {
			line += " "
		}
		line += word
	}
	if line != indent {
		b.WriteString(line + "\n")
	}
}
