package sweep

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/edgetwin/edgetwin/hw/spec"
)

func env(kv ...string) func(string) string {
	return func(name string) string {
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i] == name {
				return kv[i+1]
			}
		}
		return ""
	}
}

func TestParseShard(t *testing.T) {
	for _, tc := range []struct {
		spec   string
		shards int
		env    func(string) string
		want   Shard
	}{
		{"", 0, env(), Shard{}},
		{"0/1", 0, env(), Shard{0, 1}},
		{"3/4", 0, env(), Shard{3, 4}},
		{" 1 / 2 ", 0, env(), Shard{1, 2}},
		{"auto", 0, env("SLURM_ARRAY_TASK_ID", "2", "SLURM_ARRAY_TASK_COUNT", "4"), Shard{2, 4}},
		{"auto", 4, env("SLURM_ARRAY_TASK_ID", "2", "SLURM_ARRAY_TASK_COUNT", "4"), Shard{2, 4}},
		// --array=1-4: ids 1..4, the shard is the id less the first.
		{"auto", 0, env("SLURM_ARRAY_TASK_ID", "4", "SLURM_ARRAY_TASK_COUNT", "4", "SLURM_ARRAY_TASK_MIN", "1"), Shard{3, 4}},
		{"auto", 3, env("JOB_COMPLETION_INDEX", "0"), Shard{0, 3}},
		{"auto", 3, env("JOB_COMPLETION_INDEX", "2"), Shard{2, 3}},
	} {
		got, err := ParseShard(tc.spec, tc.shards, tc.env)
		if err != nil || got != tc.want {
			t.Errorf("ParseShard(%q, %d) = %v, %v; want %v", tc.spec, tc.shards, got, err, tc.want)
		}
	}
}

func TestParseShardErrors(t *testing.T) {
	for _, tc := range []struct {
		spec   string
		shards int
		env    func(string) string
		want   string
	}{
		{"4/4", 0, env(), `shard "4/4" is not allowed: use I/N with 0 ≤ I < N`},
		{"-1/4", 0, env(), "is not allowed"},
		{"0/0", 0, env(), "is not allowed"},
		{"1", 0, env(), "is not allowed"},
		{"a/b", 0, env(), "is not allowed"},
		{"0/2", 2, env(), "shards 2 goes with shard auto"},
		{"auto", 0, env(), "neither SLURM_ARRAY_TASK_ID (a Slurm array) nor JOB_COMPLETION_INDEX"},
		{"auto", 0, env("SLURM_ARRAY_TASK_ID", "1"), "SLURM_ARRAY_TASK_COUNT is not set"},
		{"auto", 0, env("SLURM_ARRAY_TASK_ID", "one", "SLURM_ARRAY_TASK_COUNT", "4"), `SLURM_ARRAY_TASK_ID="one" is not a whole number`},
		{"auto", 0, env("SLURM_ARRAY_TASK_ID", "4", "SLURM_ARRAY_TASK_COUNT", "4"), "is not a shard of SLURM_ARRAY_TASK_COUNT=4: use a contiguous array such as --array=0-3"},
		{"auto", 0, env("SLURM_ARRAY_TASK_ID", "6", "SLURM_ARRAY_TASK_COUNT", "4", "SLURM_ARRAY_TASK_MIN", "0"), "not a shard"},
		{"auto", 2, env("SLURM_ARRAY_TASK_ID", "1", "SLURM_ARRAY_TASK_COUNT", "4"), "shards 2 but SLURM_ARRAY_TASK_COUNT is 4; leave shards out"},
		{"auto", 0, env("JOB_COMPLETION_INDEX", "1"), "needs shards N"},
		{"auto", 2, env("JOB_COMPLETION_INDEX", "2"), "JOB_COMPLETION_INDEX=2 is not below shards 2"},
		{"auto", 2, env("JOB_COMPLETION_INDEX", "x"), `JOB_COMPLETION_INDEX="x" is not a whole number`},
		{"auto", -1, env("JOB_COMPLETION_INDEX", "0"), "shards -1 is not allowed"},
		{"auto", 2, env("JOB_COMPLETION_INDEX", "0", "SLURM_ARRAY_TASK_ID", "0"), "both SLURM_ARRAY_TASK_ID and JOB_COMPLETION_INDEX are set"},
	} {
		_, err := ParseShard(tc.spec, tc.shards, tc.env)
		var ie *spec.Error
		if err == nil || !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseShard(%q, %d): %v; want an input error saying %q", tc.spec, tc.shards, err, tc.want)
		}
	}
}

// TestShardIndices: the shards of a sweep hold every point once.
func TestShardIndices(t *testing.T) {
	var all []int
	for i := range 4 {
		all = append(all, Shard{i, 4}.Indices(10)...)
	}
	slices.Sort(all)
	if want := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}; !slices.Equal(all, want) {
		t.Errorf("4 shards of 10 points hold %v", all)
	}
	if got := (Shard{3, 4}).Indices(10); !slices.Equal(got, []int{3, 7}) {
		t.Errorf("shard 3/4 of 10: %v", got)
	}
	if got := (Shard{5, 8}).Indices(3); len(got) != 0 {
		t.Errorf("shard 5/8 of 3 points: %v, want none", got)
	}
	if got := (Shard{}).Indices(3); !slices.Equal(got, []int{0, 1, 2}) {
		t.Errorf("the whole sweep: %v", got)
	}
}
