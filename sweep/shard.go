package sweep

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/edgetwin/edgetwin/hw/spec"
)

// Shard is one of Count parts of a sweep: the points whose index in range
// order is Index modulo Count. The zero Shard is the whole sweep.
type Shard struct {
	Index, Count int
}

// Whole reports whether the shard is the whole sweep.
func (sh Shard) Whole() bool { return sh.Count <= 1 }

// String writes the shard as --shard reads it: "2/4".
func (sh Shard) String() string {
	return fmt.Sprintf("%d/%d", sh.Index, max(sh.Count, 1))
}

// Indices lists the shard's points of a sweep of total points, in order.
func (sh Shard) Indices(total int) []int {
	n := max(sh.Count, 1)
	var idx []int
	for i := sh.Index; i < total; i += n {
		idx = append(idx, i)
	}
	return idx
}

// The environment of the batch systems --shard auto reads.
const (
	EnvSlurmTaskID    = "SLURM_ARRAY_TASK_ID"
	EnvSlurmTaskCount = "SLURM_ARRAY_TASK_COUNT"
	EnvSlurmTaskMin   = "SLURM_ARRAY_TASK_MIN"
	EnvJobIndex       = "JOB_COMPLETION_INDEX" // a Kubernetes Indexed Job's
)

const shardForms = "use I/N with 0 ≤ I < N (e.g. 0/4), or auto in a Slurm array (SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_COUNT) or a Kubernetes Indexed Job (JOB_COMPLETION_INDEX, with shards N)"

// ParseShard reads --shard and --shards (0 when not given). "I/N" is
// shard I of N; "auto" takes them from the environment through getenv:
// a Slurm array's task id (less SLURM_ARRAY_TASK_MIN, so --array=1-4
// works too) and task count, or a Kubernetes Indexed Job's
// JOB_COMPLETION_INDEX with N from --shards. "" is the whole sweep.
func ParseShard(text string, shards int, getenv func(string) string) (Shard, error) {
	text = strings.TrimSpace(text)
	if shards != 0 && text != "auto" {
		return Shard{}, spec.FieldErrorf("shards", "%d goes with shard auto (a Kubernetes Indexed Job); with shard I/N the N is given", shards)
	}
	switch text {
	case "":
		return Shard{}, nil
	case "auto":
		return shardFromEnv(shards, getenv)
	}
	is, ns, ok := strings.Cut(text, "/")
	i, errI := strconv.Atoi(strings.TrimSpace(is))
	n, errN := strconv.Atoi(strings.TrimSpace(ns))
	if !ok || errI != nil || errN != nil || n < 1 || i < 0 || i >= n {
		return Shard{}, spec.FieldErrorf("shard", "%q is not allowed: %s", text, shardForms)
	}
	return Shard{Index: i, Count: n}, nil
}

func shardFromEnv(shards int, getenv func(string) string) (Shard, error) {
	if shards < 0 {
		return Shard{}, spec.FieldErrorf("shards", "%d is not allowed: give the number of completions of the Indexed Job, 1 or more", shards)
	}
	id, job := getenv(EnvSlurmTaskID), getenv(EnvJobIndex)
	switch {
	case id != "" && job != "":
		return Shard{}, spec.FieldErrorf("shard", "auto: both %s and %s are set; run under one batch system, or give the shard as I/N", EnvSlurmTaskID, EnvJobIndex)
	case id != "":
		task, err := envInt(getenv, EnvSlurmTaskID, "the array task id, 0 or more")
		if err != nil {
			return Shard{}, err
		}
		n, err := envInt(getenv, EnvSlurmTaskCount, "the number of tasks in the array, 1 or more (sbatch --array=0-N-1 sets it)")
		if err != nil {
			return Shard{}, err
		}
		lo := 0
		if getenv(EnvSlurmTaskMin) != "" {
			if lo, err = envInt(getenv, EnvSlurmTaskMin, "the array's first task id"); err != nil {
				return Shard{}, err
			}
		}
		if shards != 0 && shards != n {
			return Shard{}, spec.FieldErrorf("shard", "auto: shards %d but %s is %d; leave shards out under Slurm", shards, EnvSlurmTaskCount, n)
		}
		if n < 1 || task-lo < 0 || task-lo >= n {
			return Shard{}, spec.FieldErrorf("shard", "auto: %s=%d (less %s=%d) is not a shard of %s=%d: use a contiguous array such as --array=0-%d", EnvSlurmTaskID, task, EnvSlurmTaskMin, lo, EnvSlurmTaskCount, n, max(n-1, 0))
		}
		return Shard{Index: task - lo, Count: n}, nil
	case job != "":
		i, err := envInt(getenv, EnvJobIndex, "the completion index, 0 or more")
		if err != nil {
			return Shard{}, err
		}
		if shards == 0 {
			return Shard{}, spec.FieldErrorf("shard", "auto under a Kubernetes Indexed Job (%s=%d) needs shards N, the Job's completions", EnvJobIndex, i)
		}
		if i < 0 || i >= shards {
			return Shard{}, spec.FieldErrorf("shard", "auto: %s=%d is not below shards %d: shards must equal the Job's completions", EnvJobIndex, i, shards)
		}
		return Shard{Index: i, Count: shards}, nil
	}
	return Shard{}, spec.FieldErrorf("shard", "auto: neither %s (a Slurm array) nor %s (a Kubernetes Indexed Job) is set; %s", EnvSlurmTaskID, EnvJobIndex, shardForms)
}

// envInt reads a whole number from the environment variable name.
func envInt(getenv func(string) string, name, what string) (int, error) {
	s := strings.TrimSpace(getenv(name))
	n, err := strconv.Atoi(s)
	if err != nil {
		if s == "" {
			return 0, spec.FieldErrorf("shard", "auto: %s is not set; it should be %s", name, what)
		}
		return 0, spec.FieldErrorf("shard", "auto: %s=%q is not a whole number; it should be %s", name, s, what)
	}
	return n, nil
}
