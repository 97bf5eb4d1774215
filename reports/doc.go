// Package reports turns simulation results into what people read: the
// table an architect reads first, JSON for scripts, CSV for spreadsheets,
// and (as the capabilities land) plots, review bundles and timelines.
//
// Every writer is deterministic: the same result prints the same bytes.
package reports
