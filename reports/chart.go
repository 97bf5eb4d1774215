package reports

import "io"

// Chart is a figure a review bundle can hold: the data behind it as CSV,
// and its drawing as png, svg or pdf. PlotData, BarData, StackData, TurnData,
// ParetoPlot and RooflinePlot are charts.
type Chart interface {
	WriteCSV(w io.Writer) error
	Render(format string) (io.WriterTo, error)
}

var (
	_ Chart = PlotData{}
	_ Chart = BarData{}
	_ Chart = StackData{}
	_ Chart = TurnData{}
	_ Chart = ParetoPlot{}
	_ Chart = (*RooflinePlot)(nil)
)
