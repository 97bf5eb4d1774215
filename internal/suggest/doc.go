// Package suggest is edgetwin's one "did you mean": given a name a user
// typed and the names that exist (result key paths, chip fields, flags),
// it returns the few nearest. Dotted paths match by segment, so l3_miss
// finds memory.l3_miss_rate and tokens_per_s finds decode.tokens_per_s;
// other names by edit distance. Every command and package that rejects an
// unknown name suggests through it, so one spelling gets one hint.
package suggest
