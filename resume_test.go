package annals

import "testing"

func TestShellLineQuotesTheFolder(t *testing.T) {
	for _, c := range []struct {
		h    ResumeHandle
		want string
	}{
		{ResumeHandle{Command: "claude --resume s1", Cwd: "/home/dev/zoo"}, "cd /home/dev/zoo && claude --resume s1"},
		{ResumeHandle{Command: "codex resume s2"}, "codex resume s2"},
		{ResumeHandle{Command: "x", Cwd: "/home/o'neil/my repo"}, `cd '/home/o'\''neil/my repo' && x`},
		{ResumeHandle{Cwd: "/tmp"}, ""},
	} {
		if got := c.h.ShellLine(); got != c.want {
			t.Errorf("ShellLine(%+v) = %q, want %q", c.h, got, c.want)
		}
	}
	if got := ShellWord(""); got != "''" {
		t.Errorf("ShellWord(\"\") = %s", got)
	}
}
