package suggest

import (
	"slices"
	"strings"
)

// Closest returns up to n of known nearest to name, best first: a path
// that ends with name as whole segments, then one with a segment that
// starts with or contains name, then by edit distance. After the best,
// only names about as near (two steps) and within half of name's length
// follow, so a hint is one best guess rather than a list of strangers.
// Ties keep known's order.
func Closest(name string, known []string, n int) []string {
	if n <= 0 || len(known) == 0 {
		return nil
	}
	type scored struct {
		k string
		s int
	}
	all := make([]scored, len(known))
	for i, k := range known {
		all[i] = scored{k, score(name, k)}
	}
	slices.SortStableFunc(all, func(a, b scored) int { return a.s - b.s })
	out := []string{all[0].k}
	limit := min(all[0].s+2, 3+len(name)/2)
	for _, c := range all[1:] {
		if len(out) == n || c.s > limit {
			break
		}
		out = append(out, c.k)
	}
	return out
}

// score is how far known name k is from the typed name: 0 when k ends
// with it as whole path segments, 1 when a segment of k starts with it, 2
// when a segment contains it, else 3 + the edit distance.
func score(name, k string) int {
	switch {
	case k == name || strings.HasSuffix(k, "."+name):
		return 0
	case name == "":
		return 3 + len(k)
	}
	for _, seg := range strings.Split(k, ".") {
		if strings.HasPrefix(seg, name) {
			return 1
		}
	}
	for _, seg := range strings.Split(k, ".") {
		if strings.Contains(seg, name) {
			return 2
		}
	}
	return 3 + Distance(name, k)
}

// Distance is the Levenshtein edit distance between a and b, in runes.
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
