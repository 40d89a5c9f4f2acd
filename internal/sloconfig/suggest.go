package sloconfig

import "strings"

// closestName returns the known name nearest to name by edit distance
// (ignoring case), or "" when none is close enough to be a plausible typo.
func closestName(name string, known []string) string {
	best, bestDist := "", -1
	lower := strings.ToLower(name)
	for _, k := range known {
		d := editDistance(lower, strings.ToLower(k))
		if bestDist < 0 || d < bestDist {
			best, bestDist = k, d
		}
	}
	// Allow about a third of the name to differ; beyond that the
	// suggestion would be noise.
	if bestDist < 0 || bestDist > max(2, len(name)/3) {
		return ""
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, over bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
