package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// adviseCloud runs `edgetwin advise cloud args...` in-process, with the
// exit codes of run.
func adviseCloud(args ...string) (code int, stdout, stderr string) {
	return edgetwin(append([]string{"advise", "cloud"}, args...)...)
}

// cloudDoc is the part of the JSON the tests read.
type cloudDoc struct {
	Options []struct {
		Name           string   `json:"name"`
		Kind           string   `json:"kind"`
		TTFTP50        *float64 `json:"ttft_p50_s"`
		TTFTP95        *float64 `json:"ttft_p95_s"`
		MonthlyCostUSD *float64 `json:"monthly_cost_usd"`
		PrivacyOK      *bool    `json:"privacy_ok"`
		OfflineOK      *bool    `json:"offline_ok"`
		Feasible       bool     `json:"feasible"`
	} `json:"options"`
	BreakEven struct {
		Against               string   `json:"against"`
		SessionsPerUserPerDay *float64 `json:"sessions_per_user_per_day"`
		Cheaper               string   `json:"cheaper_now"`
	} `json:"break_even"`
	Recommendation string `json:"recommendation"`
	Recommended    string `json:"recommended_option"`
	Reasons        []struct {
		Question string `json:"question"`
		Answer   string `json:"answer"`
	} `json:"reasons"`
}

func cloudJSON(t *testing.T, args ...string) (cloudDoc, string) {
	t.Helper()
	code, out, errs := adviseCloud(append([]string{"--format", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var d cloudDoc
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return d, out
}

var (
	offlineAssistant = filepath.Join("..", "..", "examples", "cloud", "offline-assistant.yaml")
	summariser       = filepath.Join("..", "..", "examples", "cloud", "summariser.yaml")
)

// TestCloudExamplesDisagree: the two shipped profiles reach opposite
// recommendations, each with its numbers, and the JSON has the keys
// CONTRACT.md promises.
func TestCloudExamplesDisagree(t *testing.T) {
	for _, tc := range []struct {
		file, want string
	}{
		{offlineAssistant, "device"},
		{summariser, "cloud"},
	} {
		t.Run(filepath.Base(tc.file), func(t *testing.T) {
			d, out := cloudJSON(t, "--profile", tc.file)
			if d.Recommendation != tc.want {
				t.Fatalf("recommendation %q, want %q\n%s", d.Recommendation, tc.want, out)
			}
			var raw map[string]any
			if err := json.Unmarshal([]byte(out), &raw); err != nil {
				t.Fatal(err)
			}
			for _, k := range []string{"options", "break_even", "recommendation", "reasons"} {
				if _, ok := raw[k]; !ok {
					t.Errorf("JSON lacks %s", k)
				}
			}
			if len(d.Options) < 2 {
				t.Fatalf("%d options", len(d.Options))
			}
			for _, o := range d.Options {
				if o.Name == "" || o.TTFTP50 == nil || o.TTFTP95 == nil || o.MonthlyCostUSD == nil || o.PrivacyOK == nil || o.OfflineOK == nil {
					t.Errorf("option %+v lacks a contract key", o)
				}
				if *o.TTFTP95 < *o.TTFTP50 {
					t.Errorf("%s: p95 %g below p50 %g", o.Name, *o.TTFTP95, *o.TTFTP50)
				}
			}
			questions := map[string]bool{}
			for _, r := range d.Reasons {
				questions[r.Question] = true
				if !strings.ContainsAny(r.Answer, "0123456789") {
					t.Errorf("the %s reason has no number: %s", r.Question, r.Answer)
				}
			}
			for _, q := range []string{"latency", "privacy", "cost", "network", "model size"} {
				if !questions[q] {
					t.Errorf("no %s reason", q)
				}
			}
			if d.BreakEven.SessionsPerUserPerDay == nil || d.BreakEven.Against == "" {
				t.Errorf("no break-even: %+v", d.BreakEven)
			}
		})
	}
}

// TestCloudOfflineAssistantIsPrivate: data that may not leave the device
// rules out every cloud option, whatever it costs.
func TestCloudOfflineAssistantIsPrivate(t *testing.T) {
	d, _ := cloudJSON(t, "--profile", offlineAssistant)
	for _, o := range d.Options {
		cloud := o.Kind != "device"
		if cloud == *o.PrivacyOK || cloud == *o.OfflineOK {
			t.Errorf("%s: privacy_ok %v offline_ok %v", o.Name, *o.PrivacyOK, *o.OfflineOK)
		}
		if cloud && o.Feasible {
			t.Errorf("%s is feasible although data may not leave the device", o.Name)
		}
	}
}

// TestCloudSeed: the same seed gives the same bytes; --seed changes the
// sampled percentiles but not the costs.
func TestCloudSeed(t *testing.T) {
	_, a := cloudJSON(t, "--profile", offlineAssistant)
	_, b := cloudJSON(t, "--profile", offlineAssistant)
	if a != b {
		t.Fatal("two runs differ")
	}
	da, _ := cloudJSON(t, "--profile", offlineAssistant)
	dc, c := cloudJSON(t, "--profile", offlineAssistant, "--seed", "7")
	if c == a {
		t.Error("--seed 7 changed nothing")
	}
	for i := range da.Options {
		if *da.Options[i].MonthlyCostUSD != *dc.Options[i].MonthlyCostUSD {
			t.Errorf("%s: the seed moved the cost", da.Options[i].Name)
		}
	}
}

func TestCloudTable(t *testing.T) {
	code, out, errs := adviseCloud("--profile", summariser)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"Recommendation: CLOUD", "Break-even:", "Hybrid:", "Sources of the cloud figures:", "artificialanalysis.ai"} {
		if !strings.Contains(out, want) {
			t.Errorf("the table lacks %q:\n%s", want, out)
		}
	}
}

// TestCloudBadProfiles: inconsistent profiles fail with exit 2 and a
// message that names the file, the line and the problem.
func TestCloudBadProfiles(t *testing.T) {
	base, err := os.ReadFile(offlineAssistant)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, tc := range []struct {
		name     string
		old, new string // replaced in the offline assistant
		want     []string
	}{
		{"unknown field", "users: 20000", "users: 20000\nusres: 3", []string{":8:", "unknown field \"usres\""}},
		{"missing field", "users: 20000\n", "", []string{"users", "missing required field"}},
		{"p95 below p50", "ttft_p95: 1.5 s", "ttft_p95: 300 ms", []string{":13:", "targets.ttft_p95", "below ttft_p50"}},
		{"share above one", "offline_share: 25%", "offline_share: 125%", []string{"network.offline_share", "between 0 and 100%"}},
		{"weak and offline above one", "offline_share: 25%", "offline_share: 85%", []string{"network.weak.share", "more than 100%"}},
		{"rtt p95 below p50", "rtt: {p50: 80 ms, p95: 400 ms}", "rtt: {p50: 80 ms, p95: 40 ms}", []string{"network.rtt.p95", "below p50"}},
		{"prompt beyond context", "prompt_tokens: 350", "prompt_tokens: 200000", []string{":9:", "prompt_tokens", "beyond Llama 3.2 3B's context of 131072"}},
		{"fleet shares", "share: 30%", "share: 20%", []string{"device.fleet", "add up to 90%"}},
		{"unknown chip", "chip: snapdragon-8-gen2", "chip: snapdragon-9", []string{"device.fleet.tablet.chip", "snapdragon-9"}},
		{"unknown endpoint", "catalog: gemini-1.5-flash", "catalog: gemini-9", []string{"catalog", "gemini-9", "gpt-4o-mini"}},
		{"misspelt section", "\ndevice:\n", "\ndevices:\n", []string{"unknown field \"devices\"", "allowed here"}},
		{"bad quantity", "battery: 30 Wh", "battery: 30 V", []string{"device.fleet.tablet.battery", "energy"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := strings.Replace(string(base), tc.old, tc.new, 1)
			if text == string(base) {
				t.Fatalf("%q is not in the example", tc.old)
			}
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".yaml")
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			code, _, errs := adviseCloud("--profile", path)
			if code != exitBadInput {
				t.Fatalf("exit %d, want 2: %s", code, errs)
			}
			if !strings.Contains(errs, path) {
				t.Errorf("the message does not name the file: %s", errs)
			}
			for _, w := range tc.want {
				if !strings.Contains(errs, w) {
					t.Errorf("the message lacks %q: %s", w, errs)
				}
			}
		})
	}
}

// TestCloudNoDeviceNoCloud: a profile with neither side has nothing to
// compare.
func TestCloudNoDeviceNoCloud(t *testing.T) {
	path := filepath.Join(t.TempDir(), "empty.yaml")
	text := "name: nothing\nusers: 10\nsessions_per_user_per_day: 1\nprompt_tokens: 10\nanswer_tokens: 10\ntargets: {}\ndata_may_leave_device: true\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := adviseCloud("--profile", path)
	if code != exitBadInput || !strings.Contains(errs, "no device and no cloud option") {
		t.Fatalf("exit %d: %s", code, errs)
	}
}

func TestCloudFlags(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"--profile", offlineAssistant, "--format", "csv"},
		{"--profile", "no/such/profile.yaml"},
		{"--profile", offlineAssistant, "--seed", "0"},
	} {
		if code, _, errs := adviseCloud(args...); code != exitBadInput {
			t.Errorf("%v: exit %d, want 2: %s", args, code, errs)
		}
	}
}
