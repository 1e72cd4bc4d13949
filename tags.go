package annals

import "strings"

// RedactTags scrubs each tag with r: a tag is a label clients filter on, but people paste
// anything into one, secrets included, and no read path may return what redaction would mask.
// A redacted tag longer than MaxTagBytes is cut at a character boundary; tags that became equal
// collapse into one; the order is kept. A nil redactor or a nil list returns tags unchanged.
func RedactTags(r Redactor, tags []string) []string {
	out, _ := RedactTagsCount(r, tags)
	return out
}

// RedactTagsCount is RedactTags, also returning the number of replacements made.
func RedactTagsCount(r Redactor, tags []string) ([]string, int) {
	if r == nil || tags == nil {
		return tags, 0
	}
	out := make([]string, 0, len(tags))
	seen := make(map[string]bool, len(tags))
	n := 0
	for _, t := range tags {
		red, k := r.RedactText(t)
		n += k
		if len(red) > MaxTagBytes {
			red = strings.ToValidUTF8(red[:MaxTagBytes], "")
		}
		if red != "" && !seen[red] {
			seen[red] = true
			out = append(out, red)
		}
	}
	return out, n
}
