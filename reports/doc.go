// Package reports turns simulation results into what people read: the
// table an architect reads first, JSON for scripts, CSV for spreadsheets,
// gonum/plot figures, timelines, and review reports.
//
// A figure is a Chart: its data (PlotData, BarData, StackData, TurnData,
// RooflinePlot, ParetoPlot), which prints as CSV, kept apart from its
// drawing (Render: png, svg or pdf), so tests and scripts read the data
// and golden files hold the data and the SVG's structure, not pixels.
//
// A review report is a Bundle of sections — text, a Chart or a
// ReportTable each — that package review lays out from a review file and
// WriteBundle writes as one folder: index.html with the figures embedded,
// report.md, every figure as SVG, PNG and CSV. The folder is built beside its destination and
// renamed into place, so a report is never half-written.
//
// Every writer is deterministic: the same result prints the same bytes.
package reports
