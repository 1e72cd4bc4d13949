// Package textcut cuts text by characters (Unicode code points), never inside one: the unit in
// which the reference systems count their caps and previews.
package textcut

// First returns s cut to its first n code points (all of s when it has no more).
func First(s string, n int) string {
	i := 0
	for k := range s {
		if i == n {
			return s[:k]
		}
		i++
	}
	return s
}
