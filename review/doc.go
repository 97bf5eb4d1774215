// Package review is edgetwin's design review. Parse checks a review file
// (YAML, strict: unknown fields, repeated keys and bad values are errors
// at file:line, hw/spec's error) into a File: the chips, the models, the
// single-prompt workload, the scenarios, the overrides for every run, the
// requirements and objective, the questions and the contexts of the
// decode-rate figure.
package review
