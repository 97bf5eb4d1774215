package sweep

import (
	"bytes"
	"errors"
	"io"
	"os"
	"regexp"
	"strconv"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestKubernetesManifest holds the shipped Indexed Job to what sharding
// needs, since kubectl's client dry run cannot check it without an API
// server: a batch/v1 Job in Indexed mode whose pods each run one shard
// (--shard auto --shards N with N its completions, the index from the
// environment), never restart in place, and write to the claim the file
// also declares; and its shard environment parses to shard i of N.
func TestKubernetesManifest(t *testing.T) {
	data, err := os.ReadFile("../examples/sweep/k8s-indexed-job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	type container struct {
		Args         []string `yaml:"args"`
		VolumeMounts []struct {
			Name string `yaml:"name"`
		} `yaml:"volumeMounts"`
	}
	type doc struct {
		APIVersion string `yaml:"apiVersion"`
		Kind       string `yaml:"kind"`
		Metadata   struct {
			Name string `yaml:"name"`
		} `yaml:"metadata"`
		Spec struct {
			CompletionMode string `yaml:"completionMode"`
			Completions    int    `yaml:"completions"`
			Parallelism    int    `yaml:"parallelism"`
			Template       struct {
				Spec struct {
					RestartPolicy string      `yaml:"restartPolicy"`
					Containers    []container `yaml:"containers"`
					Volumes       []struct {
						Name string `yaml:"name"`
						PVC  struct {
							ClaimName string `yaml:"claimName"`
						} `yaml:"persistentVolumeClaim"`
					} `yaml:"volumes"`
				} `yaml:"spec"`
			} `yaml:"template"`
		} `yaml:"spec"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var job *doc
	claims := map[string]bool{}
	for {
		var d doc
		if err := dec.Decode(&d); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		switch d.Kind {
		case "Job":
			job = &d
		case "PersistentVolumeClaim":
			claims[d.Metadata.Name] = true
		}
	}
	if job == nil || job.APIVersion != "batch/v1" || job.Spec.CompletionMode != "Indexed" {
		t.Fatalf("no batch/v1 Job in Indexed mode: %+v", job)
	}
	n := job.Spec.Completions
	if n < 2 || job.Spec.Parallelism < 1 || job.Spec.Parallelism > n || job.Spec.Template.Spec.RestartPolicy != "Never" {
		t.Errorf("completions %d, parallelism %d, restartPolicy %q", n, job.Spec.Parallelism, job.Spec.Template.Spec.RestartPolicy)
	}
	cs := job.Spec.Template.Spec.Containers
	if len(cs) != 1 || len(cs[0].Args) != 1 {
		t.Fatalf("want one container with one shell line, got %+v", cs)
	}
	line := cs[0].Args[0]
	m := regexp.MustCompile(`--shard auto --shards (\d+)`).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("the pod's command runs no --shard auto --shards N: %s", line)
	}
	if shards, _ := strconv.Atoi(m[1]); shards != n {
		t.Errorf("--shards %d but completions %d: pods would skip or repeat points", shards, n)
	}
	vols := job.Spec.Template.Spec.Volumes
	if len(vols) != 1 || !claims[vols[0].PVC.ClaimName] || len(cs[0].VolumeMounts) != 1 || cs[0].VolumeMounts[0].Name != vols[0].Name {
		t.Errorf("the parts volume is not the claim the file declares: volumes %+v, claims %v", vols, claims)
	}
	for i := range n {
		env := map[string]string{"JOB_COMPLETION_INDEX": strconv.Itoa(i)}
		sh, err := ParseShard("auto", n, func(k string) string { return env[k] })
		if err != nil || sh.Index != i || sh.Count != n {
			t.Errorf("pod %d: shard %+v, %v", i, sh, err)
		}
	}
}
