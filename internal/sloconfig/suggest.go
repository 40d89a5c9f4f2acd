package sloconfig

import "strings"

// closestName returns the known name nearest to name by edit distance
// (ignoring case), or "" when none is close enough to be a plausible typo.
// The cost is bounded: names that cannot be within the allowed distance
// (a third of the name) by length alone are not compared, so a hostile
// 20 MiB field name costs no more than a short one.
func closestName(name string, known []string) string {
	// Allow about a third of the name to differ; beyond that the
	// suggestion would be noise.
	allowed := max(2, len(name)/3)
	best, bestDist := "", allowed+1
	lower := strings.ToLower(name)
	for _, k := range known {
		if abs(len(name)-len(k)) > allowed {
			continue // the distance is at least the difference in length
		}
		if d := editDistance(lower, strings.ToLower(k)); d < bestDist {
			best, bestDist = k, d
		}
	}
	return best
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
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

// Closest is closestName for the parsers outside the engine, so that their
// did-you-mean hints (a strategy's query template) read alike.
func Closest(name string, known []string) string { return closestName(name, known) }
