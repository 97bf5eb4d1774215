package runtimes

import "sync"

var (
	cacheMu sync.Mutex
	cached  = map[string]*Profile{}
)

// loadCached loads a catalog profile once; profiles are read-only after
// loading, so every caller shares one.
func loadCached(id string) (*Profile, error) {
	cacheMu.Lock()
	defer cacheMu.Unlock()
	if p, ok := cached[id]; ok {
		return p, nil
	}
	p, err := Load(id)
	if err != nil {
		return nil, err
	}
	cached[id] = p
	return p, nil
}
