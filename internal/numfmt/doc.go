// Package numfmt prints plain figures for people: about three
// significant digits, thousands separators, dollars. Quantities with a
// unit are hw/units' (Format, Approx); these are the numbers without one
// that the advisor's answers and the device-or-cloud comparison print.
package numfmt
