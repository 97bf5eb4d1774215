package cloud

import (
	"embed"
	"strings"

	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/hw/units"
)

//go:embed endpoints/*.yaml
var endpointFiles embed.FS

var endpoints = spec.Catalog{Files: endpointFiles, Dir: "endpoints", Kind: "cloud endpoint"}

// EndpointIDs lists the built-in cloud endpoints, sorted.
func EndpointIDs() []string { return endpoints.IDs() }

// EndpointSource returns the catalog file of id as written, with its
// citations, and whether it exists.
func EndpointSource(id string) ([]byte, bool) { return endpoints.Source(id) }

// Endpoint kinds.
const (
	KindAPI = "api" // a hosted API billed per token
	KindGPU = "gpu" // a self-hosted GPU billed per hour
)

// Endpoint is one way to run the model in the cloud: a hosted API priced
// per million tokens, or a self-hosted GPU priced per hour. The YAML of the
// built-in catalog (advisor/endpoints) and of a profile's own entries is
// exactly this struct.
type Endpoint struct {
	Name  string `yaml:"name" spec:"required"`
	Kind  string `yaml:"kind" spec:"required,oneof=api|gpu"`
	Model string `yaml:"model,omitempty"` // what it serves, for people
	// Price is what an API charges, USD per million tokens.
	Price *TokenPrice `yaml:"price,omitempty"`
	// PricePerHour is what one GPU costs, USD per hour, provisioned
	// around the clock.
	PricePerHour float64 `yaml:"price_per_hour,omitempty" spec:"nonneg"`
	// Throughput is what one GPU serves, all streams together.
	Throughput *GPUThroughput `yaml:"throughput,omitempty"`
	// TTFT is the provider's time to first token, network excluded, for a
	// prompt of TTFTPrompt tokens.
	TTFT units.Seconds `yaml:"ttft" spec:"required"`
	// TTFTPrompt is the prompt length TTFT was measured at (default 1000,
	// the length artificialanalysis.ai measured at until 2025).
	TTFTPrompt int `yaml:"ttft_prompt_tokens,omitempty" spec:"nonneg"`
	// PrefillRate, tokens/s, adds (prompt − TTFTPrompt) / PrefillRate to
	// TTFT for longer prompts; 0 keeps TTFT fixed.
	PrefillRate float64 `yaml:"prefill_tokens_per_s,omitempty" spec:"nonneg"`
	// TokensPerS is the streaming rate of one answer.
	TokensPerS float64 `yaml:"tokens_per_s" spec:"required,positive"`
	// Context is the longest prompt + answer the endpoint takes; 0 is
	// unlimited.
	Context int `yaml:"context,omitempty" spec:"nonneg"`
	// Sources cite each figure, keyed by field path (price covers
	// price.input and price.output).
	Sources map[string]string `yaml:"sources,omitempty"`

	// ID is the catalog id the entry came from, "" for a profile's own.
	ID string `yaml:"-"`
	// Label names the option in a profile: its name there, else the
	// catalog id.
	Label string `yaml:"-"`
}

// TokenPrice is an API's price, USD per million tokens.
type TokenPrice struct {
	Input  float64 `yaml:"input" spec:"required,nonneg"`
	Output float64 `yaml:"output" spec:"required,nonneg"`
}

// GPUThroughput is what one GPU serves per second, all streams together.
type GPUThroughput struct {
	Prefill float64 `yaml:"prefill" spec:"required,positive"` // prompt tokens/s
	Decode  float64 `yaml:"decode" spec:"required,positive"`  // generated tokens/s
}

// defaultTTFTPrompt is the prompt length an endpoint's TTFT is taken at
// when its entry does not say.
const defaultTTFTPrompt = 1000

// figures are the fields of an endpoint that are figures, each of which
// the catalog cites.
func (e *Endpoint) figures() []string {
	f := []string{"ttft", "tokens_per_s"}
	switch e.Kind {
	case KindAPI:
		f = append(f, "price.input", "price.output")
	case KindGPU:
		f = append(f, "price_per_hour", "throughput.prefill", "throughput.decode")
	}
	if e.Context > 0 {
		f = append(f, "context")
	}
	if e.TTFTPrompt > 0 {
		f = append(f, "ttft_prompt_tokens")
	}
	if e.PrefillRate > 0 {
		f = append(f, "prefill_tokens_per_s")
	}
	return f
}

// Source returns the citation of a figure (field path), or "".
func (e *Endpoint) Source(path string) string {
	for p := path; p != ""; {
		if c, ok := e.Sources[p]; ok {
			return c
		}
		i := strings.LastIndexByte(p, '.')
		if i < 0 {
			break
		}
		p = p[:i]
	}
	return ""
}

// LoadEndpoint reads a built-in endpoint by id.
func LoadEndpoint(id string) (*Endpoint, error) {
	data, ok := endpoints.Source(id)
	if !ok {
		return nil, &spec.Error{File: "cloud.catalog", Msg: "no built-in cloud endpoint " + quoted(id) + "; known: " + strings.Join(EndpointIDs(), ", ")}
	}
	file := "endpoints/" + id + ".yaml"
	var e Endpoint
	doc, err := spec.ParseInto(file, data, &e)
	if err != nil {
		return nil, err
	}
	if err := e.check(doc, ""); err != nil {
		return nil, err
	}
	e.ID = id
	return &e, nil
}

// check enforces what the struct tags cannot: the fields each kind needs,
// and none of the other kind's. prefix is the entry's path in doc.
func (e *Endpoint) check(doc *spec.Doc, prefix string) error {
	at := func(field string) string { return joinPath(prefix, field) }
	switch e.Kind {
	case KindAPI:
		if e.Price == nil {
			return doc.Errorf(joinPath(prefix, "kind"), "an api endpoint needs price: {input: USD, output: USD} per million tokens")
		}
		if e.PricePerHour > 0 || e.Throughput != nil {
			f := "price_per_hour"
			if e.Throughput != nil {
				f = "throughput"
			}
			return doc.Errorf(at(f), "%s is for a gpu endpoint; an api endpoint is priced per token (price)", f)
		}
	case KindGPU:
		if e.PricePerHour <= 0 {
			return doc.Errorf(joinPath(prefix, "kind"), "a gpu endpoint needs price_per_hour (USD per GPU-hour, more than 0)")
		}
		if e.Throughput == nil {
			return doc.Errorf(joinPath(prefix, "kind"), "a gpu endpoint needs throughput: {prefill: tokens/s, decode: tokens/s} per GPU, all streams together")
		}
		if e.Price != nil {
			return doc.Errorf(at("price"), "price is for an api endpoint; a gpu endpoint is priced per hour (price_per_hour)")
		}
	}
	return nil
}

func joinPath(prefix, field string) string {
	if prefix == "" {
		return field
	}
	return prefix + "." + field
}

func quoted(s string) string { return "\"" + s + "\"" }
