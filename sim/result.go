package sim

import "github.com/edgetwin/edgetwin/hw/spec"

// Result is what a run predicts. Its JSON form is the contract of
// `simulate --format json`: rates in 0..1 are 0 when there was nothing to
// count; figures a run cannot give yet are null.
type Result struct {
	SoC      string `json:"soc"`
	Model    string `json:"model"`
	Quant    string `json:"quant"`
	KVDtype  string `json:"kv_dtype"`
	Unit     string `json:"unit"`
	Fidelity string `json:"fidelity"`
	Prompt   int    `json:"prompt"`
	Gen      int    `json:"gen"`
	Batch    int    `json:"batch"`

	Prefill Phase       `json:"prefill"`
	Decode  DecodePhase `json:"decode"`
	TTFT    float64     `json:"ttft_s"`

	Memory  Memory  `json:"memory"`
	Compute Compute `json:"compute"`
	Time    Time    `json:"time"`
	Energy  Energy  `json:"energy"`
	Thermal Thermal `json:"thermal"`

	Warnings   []string     `json:"warnings"`
	Provenance []spec.Entry `json:"provenance"`
}

// Phase is prefill or decode totals.
type Phase struct {
	Tokens     int      `json:"tokens"`
	Seconds    float64  `json:"seconds"`
	TokensPerS *float64 `json:"tokens_per_s"`
}

// DecodePhase adds the decode-only rates and the per-token spread.
type DecodePhase struct {
	Phase
	First10sTokensPerS *float64   `json:"first_10s_tokens_per_s"`
	MsPerToken         Percentile `json:"ms_per_token"`
}

// Percentile is the spread of a per-token figure.
type Percentile struct {
	P50 *float64 `json:"p50"`
	P99 *float64 `json:"p99"`
}

// Memory is footprint and traffic.
type Memory struct {
	WeightsBytes float64 `json:"weights_bytes"`
	KVBytes      float64 `json:"kv_bytes"`
	DRAMBytes    float64 `json:"dram_bytes"`
	// DRAMPeak is the DRAM's peak bandwidth, bytes/s.
	DRAMPeak     float64 `json:"dram_peak_bytes_per_s"`
	DRAMBWUtil   float64 `json:"dram_bw_util"`
	L3Bytes      float64 `json:"l3_hit_bytes"`
	L3MissRate   float64 `json:"l3_miss_rate"`
	KVL3MissRate float64 `json:"kv_l3_miss_rate"`
}

// Compute is how well the matrix unit was used.
type Compute struct {
	Dtype      string  `json:"dtype"`
	TOPSEff    float64 `json:"tops_eff"`
	PeakTOPS   float64 `json:"peak_tops"`
	MACUtil    float64 `json:"mac_util"`
	StallMem   float64 `json:"stall_mem"`
	StallIssue float64 `json:"stall_issue"`
}

// Time is where the run's wall time went, in seconds.
type Time struct {
	Total       float64 `json:"total_s"`
	Compute     float64 `json:"compute_s"`
	MemoryStall float64 `json:"memory_stall_s"`
	Dispatch    float64 `json:"dispatch_s"`
	Host        float64 `json:"host_s"` // sampling on the CPU
}

// Energy is filled by the power model (not yet built): null until then.
type Energy struct {
	JoulesPerToken *float64 `json:"joules_per_token"`
	AvgPowerW      *float64 `json:"avg_power_w"`
}

// Thermal is filled by the thermal model (not yet built): null until then.
type Thermal struct {
	PeakC               *float64 `json:"peak_c"`
	SkinPeakC           *float64 `json:"skin_peak_c"`
	ThrottleOnsetS      *float64 `json:"throttle_onset_s"`
	SustainedTokensPerS *float64 `json:"sustained_tokens_per_s"`
}

func ptr(v float64) *float64 { return &v }
