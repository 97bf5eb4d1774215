package sim

import (
	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/workloads"
)

// Result is what a run predicts. Its JSON form is the contract of
// `simulate --format json`: rates in 0..1 are 0 when there was nothing to
// count; figures a run cannot give yet are null.
type Result struct {
	SoC   string `json:"soc"`
	Model string `json:"model"`
	Quant string `json:"quant"`
	// Runtime is the id (or file) of the software stack that ran, or
	// "none" when no runtime profile applied; Threads the CPU threads
	// asked for (0: the runtime's default).
	Runtime string `json:"runtime"`
	Threads int    `json:"threads,omitempty"`
	// RuntimeBasis says what the runtime's figures rest on (the records
	// and chips of their fit, or that no measurement backs them).
	RuntimeBasis string `json:"runtime_basis,omitempty"`
	// RuntimeMeasured is true when measurements back the runtime's
	// figures (its profile gives fitted shares of the peak); false when
	// the chip's own, mostly assumed, figures stood for the stack.
	RuntimeMeasured bool   `json:"runtime_measured"`
	KVDtype         string `json:"kv_dtype"`
	Unit            string `json:"unit"`
	Policy          string `json:"policy"`
	Fidelity        string `json:"fidelity"`
	Prompt          int    `json:"prompt"`
	Depth           int    `json:"depth,omitempty"` // tokens in the KV cache before the prompt
	Gen             int    `json:"gen"`
	Batch           int    `json:"batch"`
	Scenario        string `json:"scenario"`
	// Requests is how many requests ran: 1, or the session's count.
	Requests int `json:"requests"`

	Prefill PrefillPhase `json:"prefill"`
	Decode  DecodePhase  `json:"decode"`
	TTFT    float64      `json:"ttft_s"`
	// ColdStartS is what loading the model costs before the first token:
	// its weights read from storage and the unit's runtime initialised;
	// TTFTColdS is the first token's time after a cold start.
	ColdStartS float64 `json:"cold_start_s"`
	TTFTColdS  float64 `json:"ttft_cold_s"`
	// Turns are a scenario's requests as the user sees them, stage by
	// stage; TurnLatency summarises them.
	Turns []Turn `json:"turns,omitempty"`
	// Quality is what the weight format costs in quality, where a figure
	// is published (quality.ppl_delta is null where none is).
	Quality workloads.Quality `json:"quality"`
	// Speculative is what speculative decoding did, when the run had a
	// draft model.
	Speculative *Speculative `json:"speculative,omitempty"`
	// Schedule is what the scheduling policy did, when the run had one.
	Schedule *ScheduleResult `json:"schedule,omitempty"`
	// Serve is what the unit did with a serve scenario's requests.
	Serve       *ServeResult `json:"serve,omitempty"`
	TurnLatency *TurnLatency `json:"turn_latency,omitempty"`

	Memory  Memory  `json:"memory"`
	Compute Compute `json:"compute"`
	Time    Time    `json:"time"`
	Energy  Energy  `json:"energy"`
	Thermal Thermal `json:"thermal"`

	// Fallbacks lists the operators the CPU ran instead of the unit (the
	// unit does not support them, or their blocks are placed on the CPU)
	// and what running them there cost; Boundaries the hand-offs between
	// the two that it took.
	Fallbacks  []Fallback `json:"fallbacks"`
	Boundaries []Boundary `json:"boundaries,omitempty"`
	// CPULayers are the blocks placed on the CPU (Config.CPULayers), as
	// ranges; "" when none is.
	CPULayers string `json:"cpu_layers,omitempty"`
	// CompiledBatch is the batch the passes computed when the runtime's
	// graphs take only some batch sizes and Batch is not one of them (0
	// otherwise): CompiledBatch − Batch sequences of padding.
	CompiledBatch int `json:"compiled_batch,omitempty"`
	// KVBlock is the tokens of a block of the runtime's paged KV cache; 0
	// for a contiguous one.
	KVBlock int `json:"kv_block,omitempty"`
	// CPURuntime is the runtime whose figures the CPU ran the model's
	// operators at beside the unit; "" when none applied (the chip's own
	// figures) or the CPU ran none.
	CPURuntime string `json:"cpu_runtime,omitempty"`
	// LayersOn are the blocks a third unit ran (Config.LayersOn), as
	// "gpu=0-13", and LayersOnRuntime the runtime whose figures it ran
	// them at.
	LayersOn        string `json:"layers_on,omitempty"`
	LayersOnRuntime string `json:"layers_on_runtime,omitempty"`
	// Units are the profiler counters of each unit that did work.
	Units []UnitCounters `json:"units"`
	// Health flags the matrix unit's counters against the usual thresholds.
	Health []Health `json:"health"`
	// Bandwidth is the DRAM and L3 utilisation of each pass, over time.
	Bandwidth []BandwidthSample `json:"bandwidth"`

	Warnings   []string     `json:"warnings"`
	Provenance []spec.Entry `json:"provenance"`
}

// Turn is one request of a scenario as the user sees it.
type Turn struct {
	Turn int `json:"turn"` // from 1
	// StartS is the run time the user sent the message.
	StartS float64 `json:"start_s"`
	// Context is the tokens in the context when the turn began (after any
	// truncation or reset); Prompt the tokens prefilled (the message, and
	// the system prompt when the conversation starts); Answer the tokens
	// generated.
	Context int  `json:"context"`
	Prompt  int  `json:"prompt"`
	Answer  int  `json:"answer"`
	Cold    bool `json:"cold"`
	// Truncated, Reset, Compressed or Summarized says what the context
	// limit did before the turn.
	Truncated  bool `json:"truncated,omitempty"`
	Reset      bool `json:"reset,omitempty"`
	Compressed bool `json:"compressed,omitempty"`
	Summarized bool `json:"summarized,omitempty"`
	// Stages are where the turn's time went, in order: load (cold turns),
	// compress or summarize (where the context limit did so), allocate
	// (a fresh context's KV cache allocated on demand), the input stages,
	// prefill, sample (the first token), decode, the
	// token stages summed over the answer, the output stages.
	Stages []StageTime `json:"stages"`
	// TTFTS is from the message sent to the first token on screen; TotalS
	// to the answer complete.
	TTFTS  float64 `json:"ttft_s"`
	TotalS float64 `json:"total_s"`
	// Speculative says the turn decoded speculatively; WithinBudget,
	// under a schedule with a budget, whether TotalS kept to it.
	Speculative  bool  `json:"speculative,omitempty"`
	WithinBudget *bool `json:"within_budget,omitempty"`
}

// ServeResult is what the unit did with the requests of a serve scenario;
// each request served is also a turn (its stages: queue, prefill, decode).
type ServeResult struct {
	// Mode is the batching: serial (one request at a time: no batching,
	// or a batch of 1), continuous or static; MaxBatch the most sequences
	// decoded together.
	Mode     string  `json:"mode"`
	MaxBatch int     `json:"max_batch"`
	RatePerS float64 `json:"rate_per_s"` // the scenario's arrivals a second
	// Arrived, Served and Unserved count the requests: unserved ones were
	// still waiting or decoding when serving stopped, as long again as the
	// arrivals lasted after they stopped.
	Arrived  int `json:"arrived"`
	Served   int `json:"served"`
	Unserved int `json:"unserved"`
	// MeanBatch is the sequences a decode step made a token for, averaged
	// over decode time; BusyShare the share of the run the unit had a
	// request to work on.
	MeanBatch float64 `json:"mean_batch"`
	BusyShare float64 `json:"busy_share"`
	// QueueS is the time the served requests waited before their prefill.
	QueueS Percentile `json:"queue_s"`
}

// StageTime is one stage of a turn and its time.
type StageTime struct {
	Name    string  `json:"name"`
	Seconds float64 `json:"seconds"`
}

// TurnLatency is the spread of user-visible latency over a scenario's
// warm turns (cold ones excluded).
type TurnLatency struct {
	TTFTP50  float64 `json:"ttft_p50_s"`
	TTFTP95  float64 `json:"ttft_p95_s"`
	TotalP50 float64 `json:"total_p50_s"`
	TotalP95 float64 `json:"total_p95_s"`
}

// Phase is prefill or decode totals.
type Phase struct {
	Tokens     int      `json:"tokens"`
	Seconds    float64  `json:"seconds"`
	TokensPerS *float64 `json:"tokens_per_s"`
}

// DecodePhase adds the decode-only rates and the per-token spread.
// PrefillPhase is the prefill and what a compiled graph wasted on it.
type PrefillPhase struct {
	Phase
	// PaddedTokens are the tokens past the prompts a fixed-length prefill
	// graph computed (Genie's 128-token prompt processor runs a 130-token
	// prompt as 256).
	PaddedTokens int `json:"padded_tokens"`
}

type DecodePhase struct {
	Phase
	First10sTokensPerS *float64   `json:"first_10s_tokens_per_s"`
	MsPerToken         Percentile `json:"ms_per_token"`
	// Spread says where the per-token latency's variance comes from.
	Spread Spread `json:"spread"`
}

// Spread splits the variance of the decode steps' times (the matrix
// unit's part; the pipeline stages of each token add a constant) by
// least-squares fits of step time on the context and on the clock setting
// the governor left: the share each explains (their Shapley values, as
// the two are correlated) and what neither does — MoE routing, fallbacks,
// the cache's state.
type Spread struct {
	StdMs        float64 `json:"std_ms"`
	ContextShare float64 `json:"context_share"`
	ClockShare   float64 `json:"clock_share"`
	OtherShare   float64 `json:"other_share"`
}

// Percentile is the spread of a per-token figure.
type Percentile struct {
	P50 *float64 `json:"p50"`
	P99 *float64 `json:"p99"`
}

// FlashFFNMemory is what a run with sparse FFN loading keeps on storage
// and reads of it: StoredBytes of FFN weights stay there, a decode token
// reads FreshBytesPerToken of them in reads of ReadBytes (one neuron's
// rows) at ReadRate.
type FlashFFNMemory struct {
	StoredBytes        float64 `json:"stored_bytes"`
	FreshBytesPerToken float64 `json:"fresh_bytes_per_token"`
	ReadBytes          float64 `json:"read_bytes"`
	ReadRate           float64 `json:"read_rate_bytes_per_s"`
}

// Memory is footprint, traffic and hit rates at every level.
type Memory struct {
	WeightsBytes float64 `json:"weights_bytes"`
	KVBytes      float64 `json:"kv_bytes"`
	// KVResidentBytes is the part of the KV cache the policy keeps in SRAM.
	KVResidentBytes float64 `json:"kv_resident_bytes"`
	// AppBudget is the DRAM the app may hold; PagedWeightsBytes the
	// weights past it that stay on storage and page in as each pass reads
	// them (a runtime that maps its weights), and StorageBytes all that
	// was read from storage (the model's load on a cold start included).
	AppBudget         float64 `json:"app_budget_bytes"`
	PagedWeightsBytes float64 `json:"paged_weights_bytes"`
	StorageBytes      float64 `json:"storage_bytes"`
	// FlashFFN is the sparse FFN loading of a runtime with flash_ffn; nil
	// for any other.
	FlashFFN *FlashFFNMemory `json:"flash_ffn,omitempty"`
	// SwappedKVBytes is the most of the KV cache that sat in swap at
	// once, past the budget beside the weights, and SwapOnsetS when it
	// first did (null: never).
	SwappedKVBytes float64  `json:"swapped_kv_bytes"`
	SwapOnsetS     *float64 `json:"swap_onset_s"`
	SRAMBytes      float64  `json:"sram_bytes"` // read by the unit from its SRAM
	L3Bytes        float64  `json:"l3_hit_bytes"`
	DRAMBytes      float64  `json:"dram_bytes"`
	// DRAMPeak is the DRAM's peak bandwidth, bytes/s.
	DRAMPeak       float64    `json:"dram_peak_bytes_per_s"`
	DRAMBWUtil     float64    `json:"dram_bw_util"`
	L3MissRate     float64    `json:"l3_miss_rate"`
	KVL3MissRate   float64    `json:"kv_l3_miss_rate"`
	L3MissRateOf   ClassRates `json:"l3_miss_rate_by_class"`
	L3AccessBytes  float64    `json:"l3_access_bytes"`
	L3Replacement  string     `json:"l3_replacement"`
	L3BlockBytes   float64    `json:"l3_block_bytes"` // the granularity the L3 was simulated at
	DMABuffers     int        `json:"dma_buffers"`    // tiles in SRAM at once: 2 is double buffering
	TileBytes      float64    `json:"tile_bytes"`
	RowMissPenalty float64    `json:"dram_random_penalty"`
	// Prefill and Decode split the traffic and miss rates by phase: the
	// decode figures are the steady state a long conversation sees.
	Prefill PhaseMemory `json:"prefill"`
	Decode  PhaseMemory `json:"decode"`
}

// PhaseMemory is the memory behaviour of one phase.
type PhaseMemory struct {
	DRAMBytes    float64 `json:"dram_bytes"`
	L3MissRate   float64 `json:"l3_miss_rate"`
	KVL3MissRate float64 `json:"kv_l3_miss_rate"`
}

// ClassRates is a rate per tensor class.
type ClassRates struct {
	Weights     float64 `json:"weights"`
	FFN         float64 `json:"ffn"`
	Experts     float64 `json:"experts"`
	KV          float64 `json:"kv"`
	Activations float64 `json:"activations"`
}

// Compute is how well the matrix unit was used.
type Compute struct {
	Dtype      string  `json:"dtype"`
	TOPSEff    float64 `json:"tops_eff"`
	PeakTOPS   float64 `json:"peak_tops"`
	MACUtil    float64 `json:"mac_util"`
	StallMem   float64 `json:"stall_mem"`
	StallIssue float64 `json:"stall_issue"`
	// StallFallback is the share of time the unit waited for operators it
	// handed to the CPU.
	StallFallback float64 `json:"stall_fallback"`
}

// Time is where the run's wall time went, in seconds.
type Time struct {
	Total        float64 `json:"total_s"`
	Compute      float64 `json:"compute_s"`
	MemoryStall  float64 `json:"memory_stall_s"`
	Dispatch     float64 `json:"dispatch_s"`
	Fallback     float64 `json:"fallback_s"`
	Host         float64 `json:"host_s"` // sampling on the CPU
	BankConflict float64 `json:"bank_conflict_s"`
	// Paging is the time passes waited for weights paged in from storage
	// and for KV cache pages back from swap.
	Paging float64 `json:"paging_s"`
}

// Fallback is one kind of operator that ran on the CPU: how often, and
// the time the CPU took for its weights, KV cache and compute (the
// hand-offs around it are its boundaries').
type Fallback struct {
	Op      string  `json:"op"`
	Unit    string  `json:"unit"`
	Count   int     `json:"count"`
	Seconds float64 `json:"seconds"`
}

// Boundary is the hand-offs of a run in one direction between the unit
// and the CPU: how many, the activation bytes they copied, and the time
// they took, synchronisation and copies through DRAM.
type Boundary struct {
	From      string  `json:"from"`
	To        string  `json:"to"`
	Count     int     `json:"count"`
	CopyBytes float64 `json:"copy_bytes"`
	Seconds   float64 `json:"seconds"`
}

// UnitCounters are what an NPU profiler shows for one unit: the fraction
// of its cycles spent computing at full rate, stalled on memory, stalled
// on issue (dispatch), and waiting for fallbacks.
type UnitCounters struct {
	Name          string  `json:"name"`
	Kind          string  `json:"kind"`
	BusyS         float64 `json:"busy_s"`
	MACUtil       float64 `json:"mac_util"`
	StallMem      float64 `json:"stall_mem"`
	StallIssue    float64 `json:"stall_issue"`
	StallFallback float64 `json:"stall_fallback"`
}

// Health is one counter checked against its usual threshold.
type Health struct {
	Counter   string  `json:"counter"`
	Value     float64 `json:"value"`
	Threshold string  `json:"threshold"`
	OK        bool    `json:"ok"`
}

// BandwidthSample is the utilisation of one pass (the prefill, or one
// decode step) of the run, or, in a run of more passes than a result
// reports (maxBandwidthSamples), the average over consecutive passes.
type BandwidthSample struct {
	// Pass names the pass, or the first and last of them ("decode 64 …
	// decode 127").
	Pass   string  `json:"pass"`
	StartS float64 `json:"start_s"`
	// Seconds is the passes' time, not counting the time between them.
	Seconds  float64 `json:"seconds"`
	DRAMUtil float64 `json:"dram_util"`
	L3Util   float64 `json:"l3_util"`
	// Passes is how many passes the sample averages, when more than one.
	Passes int `json:"passes,omitempty"`
}

// Energy is what the run cost in joules and watts. Units run at their
// nominal clock and voltage and leak as at their reference temperature
// until the thermal model sets clocks and temperatures.
type Energy struct {
	// JoulesPerToken is the energy of a generated token (the decode's
	// total over its tokens), or of a prompt token when nothing was
	// generated.
	JoulesPerToken *float64 `json:"joules_per_token"`
	AvgPowerW      *float64 `json:"avg_power_w"`
	PeakPowerW     float64  `json:"peak_power_w"` // the highest average of any pass
	// PMICLimitW is the chip's supply limit (hw.SoC.PMICLimit), when it
	// gives one; OverPMICS the seconds of the run whose stretches drew
	// more, averaged over each stretch (a pass, a stage, a pause).
	PMICLimitW            float64     `json:"pmic_limit_w,omitempty"`
	OverPMICS             float64     `json:"over_pmic_s,omitempty"`
	TotalJ                float64     `json:"total_j"`
	PrefillJ              float64     `json:"prefill_j"`
	DecodeJ               float64     `json:"decode_j"`
	PrefillJoulesPerToken *float64    `json:"prefill_joules_per_token"`
	DecodeJoulesPerToken  *float64    `json:"decode_joules_per_token"`
	Parts                 EnergyParts `json:"parts"`
}

// EnergyParts is where the energy went, in joules.
type EnergyParts struct {
	Compute float64 `json:"compute_j"` // the matrix unit's operations
	Host    float64 `json:"host_j"`    // the CPU: sampling, fallbacks, dispatch and pipeline stages
	SRAM    float64 `json:"sram_j"`
	L3      float64 `json:"l3_j"`
	DRAM    float64 `json:"dram_j"`
	Storage float64 `json:"storage_j"` // reading the weights on a cold start
	Static  float64 `json:"static_j"`  // leakage of every unit and the DRAM background
	// SelfRefresh is the DRAM holding its contents while the SoC rests,
	// its units power-gated; IdleFloor the always-on domain throughout.
	SelfRefresh float64 `json:"dram_self_refresh_j"`
	IdleFloor   float64 `json:"idle_floor_j"`
	// Display is the device's display while the scenario keeps it on.
	Display float64 `json:"display_j"`
}

// Thermal is what heat did over the run: the hottest junction and skin
// temperatures, when the governor first lowered a clock (null if never),
// and the decode rate over the last minute of runs of two minutes or more.
type Thermal struct {
	// Package is the thermal package that heated the run (the one the chip
	// names, else phone), Device its description ("fan-cooled dev board",
	// or the chip file's own network), AmbientC the ambient temperature and
	// AmbientAssumed whether that figure is assumed.
	Package             string   `json:"package"`
	Device              string   `json:"device"`
	AmbientC            float64  `json:"ambient_c"`
	AmbientAssumed      bool     `json:"ambient_assumed"`
	PeakC               *float64 `json:"peak_c"`
	SkinPeakC           *float64 `json:"skin_peak_c"`
	ThrottleOnsetS      *float64 `json:"throttle_onset_s"`
	SustainedTokensPerS *float64 `json:"sustained_tokens_per_s"`
	// FinalClocks is each unit's clock at the end of the run.
	FinalClocks []UnitClock `json:"final_clocks"`
}

// UnitClock is a unit's clock.
type UnitClock struct {
	Unit string  `json:"unit"`
	Hz   float64 `json:"hz"`
}

func ptr(v float64) *float64 { return &v }
