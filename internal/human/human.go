// Package human formats quantities for people reading a terminal.
package human

import "fmt"

// Bytes renders a size in binary units: 512 B, 1.5 KiB, 12.0 MiB, 3.2 GiB.
func Bytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	default:
		return fmt.Sprintf("%d B", n)
	}
}

// Count renders a count with its noun in the number it takes: 1 chat, 0 chats, 2 chats.
func Count[N ~int | ~int64](n N, one, many string) string {
	return fmt.Sprintf("%d %s", n, Noun(n, one, many))
}

// Noun is one for a count of exactly 1 and many otherwise (for a count printed apart from its
// noun, such as a formatted token count).
func Noun[N ~int | ~int64](n N, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
