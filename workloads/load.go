package workloads

import (
	"github.com/edgetwin/edgetwin/hw/spec"
)

// DefaultModel is the model simulate uses when none is named: the 7B Llama
// of the llama.cpp benchmarks.
const DefaultModel = "llama-2-7b"

// Spec is a loaded model: the architecture, where it came from, and the
// provenance of each of its figures (paths prefixed "model.").
type Spec struct {
	Model
	ID         string
	Provenance []spec.Entry
}

var models = spec.Catalog{Files: ModelFiles, Dir: "models", Kind: "model", Field: "model"}

// ModelIDs lists the catalog's model ids, sorted.
func ModelIDs() []string { return models.IDs() }

// ModelSource returns the catalog file of id as written, and whether it exists.
func ModelSource(id string) ([]byte, bool) { return models.Source(id) }

// LoadModel loads a catalog model by id, a model YAML file, or a Hugging
// Face config.json (recognised by content). Overrides address model fields
// without the "model." prefix.
func LoadModel(ref string, sets []spec.Override) (*Spec, error) {
	file, data, isID, err := models.Open(ref)
	if err != nil {
		return nil, err
	}
	if !isID && IsHFConfig(data) {
		if len(sets) > 0 {
			return nil, &spec.Error{Field: "set", Path: "model." + sets[0].Path, Msg: "a config.json model cannot be overridden; convert it to a model YAML file first"}
		}
		m, err := ParseHFConfig(file, data)
		if err != nil {
			return nil, err
		}
		return &Spec{Model: m, ID: file, Provenance: []spec.Entry{{Path: "model", Value: m.Name, Source: file}}}, nil
	}
	s, err := DecodeModel(file, data, sets)
	if err == nil && isID {
		s.ID = ref
	}
	return s, err
}

// DecodeModel reads a model YAML file strictly and validates it.
func DecodeModel(file string, data []byte, sets []spec.Override) (*Spec, error) {
	doc, err := spec.Parse(file, data)
	if err != nil {
		return nil, err
	}
	if err := doc.Apply(sets, &Model{}); err != nil {
		return nil, err
	}
	// The one optional field a model file may leave out; head_dim, when
	// absent, is hidden / heads (HeadDimension), not an assumption.
	if err := doc.Default("ffn_kind", FFNGated, &Model{}, "assumed"); err != nil {
		return nil, err
	}
	var m Model
	if err := doc.Decode(&m); err != nil {
		return nil, err
	}
	if err := m.Validate(); err != nil {
		if fe, ok := err.(*spec.Error); ok && fe.File == "" {
			return nil, doc.Errorf(fe.Path, "%s", fe.Msg)
		}
		return nil, &spec.Error{File: file, Msg: err.Error()}
	}
	return &Spec{Model: m, ID: file, Provenance: doc.Provenance("model", m.Sources)}, nil
}
