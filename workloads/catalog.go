package workloads

import "embed"

// ModelFiles holds the model catalog: one YAML file per model,
// models/<id>.yaml, each a Model with a sources map citing every figure.
// The strict YAML loader lives in hw/spec; this package only ships the data.
//
//go:embed models/*.yaml
var ModelFiles embed.FS
