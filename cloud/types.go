package cloud

// Advice is what `edgetwin advise cloud` found for a profile.
type Advice struct {
	Profile *Profile
	// SessionsPerMonth is users × sessions per user per day × days.
	SessionsPerMonth float64
	// Samples sessions were drawn (task, device, network state, RTT,
	// jitter) with Seed for the latency percentiles; costs, energy and
	// availability are exact expectations.
	Samples int
	Seed    uint64
	// Options are the device (when the profile has one) and then the
	// cloud options in the profile's order.
	Options []Option
	// DeviceRuns are the simulator's figures for every fleet device and
	// task.
	DeviceRuns []DeviceRun
	BreakEven  BreakEven
	// Hybrid is the best plan that splits the sessions between the device
	// and one cloud option; nil when the profile lacks either side.
	Hybrid *HybridPlan
	// Recommendation is device, cloud or hybrid; Recommended names the
	// option (the hybrid's name is "hybrid").
	Recommendation string
	Recommended    string
	Reasons        []Reason
}

// Recommendations.
const (
	RecommendDevice = "device"
	RecommendCloud  = "cloud"
	RecommendHybrid = "hybrid"
)

// KindDevice is the kind of the device option (the others are the
// endpoint kinds, api and gpu, and hybrid).
const (
	KindDevice = "device"
	KindHybrid = "hybrid"
)

// Option is one way to serve the sessions, with what users see, what
// it costs and whether it meets the profile.
type Option struct {
	Name     string
	Kind     string    // device, api, gpu or hybrid
	Endpoint *Endpoint // nil for the device and a hybrid
	// Runs is false when the option cannot serve the workload at all (the
	// model does not fit the device, every prompt is beyond the
	// endpoint's context); Err says why.
	Runs bool
	Err  string
	// TTFTP50 and TTFTP95 are the user-visible time to first token over
	// the sessions served, network included; nil when none is.
	TTFTP50, TTFTP95 *float64
	// TokensPerS is the streaming rate: answer tokens over decode time of
	// all served sessions.
	TokensPerS *float64
	// MonthlyCostUSD is the device share amortised over the fleet, plus
	// what the cloud bills for the sessions it serves.
	MonthlyCostUSD    float64
	CostPerSessionUSD float64
	// EnergyPerSessionJ is what a session takes from the device's battery
	// (the model's run, or the modem for a cloud session), fleet-weighted.
	EnergyPerSessionJ float64
	// BatteryPerDay is the share of a full charge a user's sessions take
	// in a day on BatteryDevice, the fleet device it is highest on.
	BatteryPerDay float64
	BatteryDevice string
	// Availability is the share of sessions served.
	Availability float64
	OfflineOK    bool // it serves sessions with no network
	PrivacyOK    bool // no data leaves the device, or the profile allows it
	LatencyOK    bool
	// Feasible is true when it runs, is private enough, available
	// enough and meets the latency targets; Problems say what fails.
	Feasible bool
	Problems []string
	// GPUs is the number of self-hosted GPUs provisioned.
	GPUs int
	// CloudShare is the share of sessions the cloud serves.
	CloudShare float64
}

// DeviceRun is one simulation: a fleet device running one task.
type DeviceRun struct {
	Device, Chip, Task string
	Prompt, Answer     int
	TTFT               float64 // s
	TokensPerS         float64 // decode
	EnergyJ            float64 // prefill and decode
	WeightsBytes       float64
	PagedBytes         float64 // of the weights, left on storage and paged in every pass
	DRAMBytes          float64 // the chip's capacity
	Err                string  // the model does not fit
}

// BreakEven is the volume at which the device's amortised share costs as
// much as the cloud: above it the device is cheaper.
type BreakEven struct {
	// DeviceUSDPerUserMonth is the fleet-weighted price × feature share /
	// amortisation months.
	DeviceUSDPerUserMonth float64
	// Against is the cloud option compared: the recommended one when the
	// cloud is recommended, else the cheapest at the profile's volume.
	Against string
	// SessionsPerUserPerDay is the break-even volume against Against; nil
	// when the cloud never costs as much as the device.
	SessionsPerUserPerDay *float64
	Current               float64 // the profile's sessions per user per day
	// Cheaper is device or cloud at the profile's volume.
	Cheaper string
	Note    string // why there is no break-even
	Options []OptionBreakEven
}

// OptionBreakEven is the break-even volume against one cloud option.
type OptionBreakEven struct {
	Name                  string
	CloudUSDPerUserMonth  float64 // at the profile's volume
	SessionsPerUserPerDay *float64
}

// HybridPlan routes each session to the device or to one cloud option by
// its task (prompt length) and the network state: the tasks in CloudTasks
// go to the cloud when online (weak links too unless WeakToDevice), the
// rest, and everything offline, run on the device.
type HybridPlan struct {
	Option       Option
	Cloud        string
	CloudTasks   []string
	WeakToDevice bool
	Rule         string
	// Wins is true when the plan is the recommendation: it meets the
	// targets and costs less than every pure option that does.
	Wins bool
	// Tried counts the plans evaluated.
	Tried int
}

// Reason is the answer to one of the five questions architects ask.
type Reason struct {
	Question string // latency, privacy, cost, network, model size
	Answer   string
}
