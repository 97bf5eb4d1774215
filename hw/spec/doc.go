// Package spec reads the small YAML languages of edgetwin (chips, models,
// scenarios, policies) strictly, and says exactly where a file is wrong.
//
// A file goes through three steps, all on the YAML node tree so that every
// value keeps its origin:
//
//	doc, err := spec.Parse("phone.yaml", data)   // syntax, binary files, duplicate keys
//	err = doc.Set("memory.dram.bandwidth", "80 GB/s", &soc, spec.SetOrigin) // overrides
//	doc.Default("memory.l3.ways", "12", "assumed")          // documented defaults
//	err = doc.Decode(&soc)                                  // strict: types, units, required fields
//
// Decode fills a Go struct from its `yaml` tags. Unknown fields, wrong types,
// NaN or infinite numbers and unparsable quantities are errors; fields whose
// type is a [units.Quantity] are parsed with [units.Parse], so "68.3 GB/s" and
// "4 MiB" are read exactly. A `spec` struct tag adds checks:
//
//	Layers int `yaml:"layers" spec:"required,positive"`
//	Kind string `yaml:"kind" spec:"required,oneof=npu|gpu|cpu|dsp"`
//
// Every error is an [*Error] and prints on one line as
//
//	phone.yaml:7:9: field memory.l3.ways: "twelve" is not an integer
//
// It is the one error for bad input across edgetwin, whatever the language
// (chip and model files, records, series, expressions, a run's settings):
// a value given directly rather than in a file is located by its setting
// (Error.Field: "set", "soc", "threads"), which a front end names as its
// user knows it — the CLI by the flag. No package below the CLI names a
// flag.
//
// List entries that have a `name` are addressed by it in paths
// (units.npu.peak.int8), as `--set` and provenance write them.
//
// Provenance walks the tree and reports, for every leaf value, where it came
// from: a citation from the document's own `sources` map, "assumed" for a
// default, SetOrigin ("--set") for an override given directly, or
// file:line.
package spec
