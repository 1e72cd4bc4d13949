package human

import "testing"

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{512: "512 B", 1536: "1.5 KiB", 12 << 20: "12.0 MiB", 3435973836: "3.2 GiB"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestCount(t *testing.T) {
	for n, want := range map[int64]string{0: "0 chats", 1: "1 chat", 2: "2 chats", -1: "-1 chats"} {
		if got := Count(n, "chat", "chats"); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
}
