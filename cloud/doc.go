// Package cloud answers "on the device or in the cloud?" for a deployment
// profile (YAML: users, sessions, prompt and answer sizes, latency
// targets, privacy, network conditions, the device fleet and the cloud
// options, some from an embedded catalog of endpoints in endpoints/ whose
// every figure names its source and date).
//
// Advise runs every fleet device on every task in the simulator (on
// internal/pool) and gives, per option, the user-visible TTFT p50/p95
// (network round trips drawn from a lognormal fitted to the profile, with
// a fixed seed), streaming rate, monthly cost, energy per session and
// battery share per day, availability offline and privacy; the break-even
// volume; a hybrid plan when it wins; and a recommendation with reasons on
// latency, privacy, cost, network and model size.
//
// Which chip to buy is package advisor's question; this one takes the
// chips as given. It knows nothing of flags or output formats:
// cmd/edgetwin loads the profile and reports prints the Advice.
package cloud
