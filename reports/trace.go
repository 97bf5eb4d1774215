package reports

import (
	"encoding/json"

	"github.com/edgetwin/edgetwin/internal/atomicfile"
	"github.com/edgetwin/edgetwin/sim"
)

// WriteTrace writes a run's timeline as Chrome/Perfetto trace-event JSON
// (open it at ui.perfetto.dev or chrome://tracing), atomically: a failure
// never leaves half a file.
func WriteTrace(path string, t *sim.Trace) error {
	data, err := json.Marshal(t)
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, data)
}
