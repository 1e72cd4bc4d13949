package corpus

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// This file writes the words: prose from the Zipf vocabulary, and the technical text (paths,
// identifiers, commands, code, errors, traces, JSON) that coding transcripts are full of.

var (
	repoNames     = strings.Fields("invoicer api shop billing crawler webapp infra pipeline search gateway payments notifier scheduler auth catalog inventory reporting cli sdk docs")
	pkgNames      = strings.Fields("server store auth billing cache config httpapi queue search worker parser metrics client invoice payment cart catalog session report ledger")
	verbs         = strings.Fields("parse load handle fetch build apply validate render compute resolve encode decode sync flush open close merge split format normalize")
	nouns         = strings.Fields("Invoice Total Request Config Session Cart Price Token Batch Entry Report Schema Cursor Index Query User Order Payment Item Rate")
	tagNames      = strings.Fields("bugfix tests refactor ci docs perf ops research q3-plan security flaky release review migration")
	eventChannels = []string{"in/agent/main", "in/webhook/github", "out/notify/slack", "sys/ci/pipeline", "sys/scheduler/tick"}
	products      = []string{"Laptop ASUS Vivobook 15", "Telefon Samsung Galaxy A55", "Monitor LG UltraGear 27", "Casti Sony WH-1000XM5", "Espressor De'Longhi Magnifica", "Aspirator Dyson V12", "SSD Samsung 990 PRO 2TB", "Tableta Lenovo Tab P12"}
)

// word is one word of the Zipf vocabulary.
func (g *gen) word() string { return g.vocab[g.zipf.Uint64()] }

// words appends n vocabulary words, space-separated.
func (g *gen) words(b *strings.Builder, n int) {
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(g.word())
	}
}

// sentences returns n sentences of vocabulary words, some carrying a technical token.
func (g *gen) sentences(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		g.sentence(&b)
	}
	return b.String()
}

func (g *gen) sentence(b *strings.Builder) {
	var s strings.Builder
	g.words(&s, 4+g.r.IntN(9))
	if g.r.IntN(4) == 0 {
		s.WriteByte(' ')
		s.WriteString(g.word())
		s.WriteString(" `")
		s.WriteString(g.ident(langGo))
		s.WriteByte('`')
	}
	s.WriteByte('.')
	out := s.String()
	b.WriteString(strings.ToUpper(out[:1])) // vocabulary words are ASCII
	b.WriteString(out[1:])
}

func (g *gen) phrase(n int) string {
	var b strings.Builder
	g.words(&b, n)
	return b.String()
}

func (g *gen) pick(list []string) string { return list[g.r.IntN(len(list))] }

func (g *gen) pkgName() string {
	if g.r.IntN(10) < 7 {
		return g.pick(pkgNames)
	}
	// A vocabulary word: some chats work in packages no other chat has.
	return g.vocab[200+g.r.IntN(5000)]
}

func (g *gen) branchName() string {
	return g.pick([]string{"main", "fix-", "feat-", "refactor-", "chore-"}) + strings.ReplaceAll(g.phrase(2), " ", "-")
}

// ident is a function name in the style of the language.
func (g *gen) ident(l lang) string {
	v, n := g.pick(verbs), g.pick(nouns)
	if g.r.IntN(4) == 0 {
		w := g.word()
		n = strings.ToUpper(w[:1]) + w[1:]
	}
	switch l {
	case langPython:
		return v + "_" + strings.ToLower(n)
	case langTS:
		return v + n
	}
	if g.r.IntN(2) == 0 {
		return strings.ToUpper(v[:1]) + v[1:] + n
	}
	return v + n
}

func (g *gen) typeName() string {
	return g.pick(nouns) + g.pick([]string{"", "Store", "Service", "Handler", "Client", "Options"})
}

// sourceFile is a path relative to the repository root.
func (g *gen) sourceFile(c *chat, pkg string) string {
	name := pkg
	if g.r.IntN(2) == 0 {
		name = strings.ToLower(g.pick(nouns))
	}
	switch c.lang {
	case langPython:
		if g.r.IntN(4) == 0 {
			return "tests/test_" + name + ".py"
		}
		return c.repo + "/" + pkg + "/" + name + ".py"
	case langTS:
		if g.r.IntN(4) == 0 {
			return "src/" + pkg + "/" + name + ".test.ts"
		}
		return "src/" + pkg + "/" + name + ".ts"
	}
	if g.r.IntN(4) == 0 {
		return "internal/" + pkg + "/" + name + "_test.go"
	}
	return "internal/" + pkg + "/" + name + ".go"
}

func (g *gen) file(c *chat) string { return c.files[g.r.IntN(len(c.files))] }

func (g *gen) line() int { return 1 + g.r.IntN(400) }

// fileLine is path:line, the way people and compilers point at code.
func (g *gen) fileLine(c *chat) string { return fmt.Sprintf("%s:%d", g.file(c), g.line()) }

func (g *gen) testName() string {
	id := g.ident(langGo)
	return "Test" + strings.ToUpper(id[:1]) + id[1:]
}

func (g *gen) testCommand(c *chat) string {
	switch c.lang {
	case langPython:
		return "pytest -x " + g.pick([]string{"tests/", "tests/test_" + g.pick(c.pkgs) + ".py"})
	case langTS:
		return g.pick([]string{"npm test", "npx vitest run src/" + g.pick(c.pkgs), "npx tsc --noEmit"})
	}
	return g.pick([]string{"go test ./...", "go test ./internal/" + g.pick(c.pkgs) + "/...", "go vet ./...", "go build ./..."})
}

func (g *gen) url() string {
	switch g.r.IntN(5) {
	case 0, 1:
		slug := strings.ToLower(strings.ReplaceAll(g.pick(products), " ", "-"))
		return fmt.Sprintf("https://emag.ro/%s/pd/D%07X/", slug, g.r.IntN(1<<28))
	case 2:
		return fmt.Sprintf("https://pkg.go.dev/%s", g.pick([]string{"net/http", "database/sql", "context", "encoding/json", "modernc.org/sqlite", "golang.org/x/sync/errgroup"}))
	case 3:
		return fmt.Sprintf("https://github.com/%s/%s/issues/%d", g.pick(tenantNames), g.pick(repoNames), 1+g.r.IntN(4000))
	}
	return fmt.Sprintf("https://stackoverflow.com/questions/%d/%s", 10000000+g.r.IntN(70000000), strings.ReplaceAll(g.phrase(4), " ", "-"))
}

func (g *gen) title(c *chat) string {
	switch g.r.IntN(6) {
	case 0:
		return "Fix failing " + g.testName()
	case 1:
		return fmt.Sprintf("Add --%s flag to %s", g.word(), g.pick(c.pkgs))
	case 2:
		return fmt.Sprintf("Why does %s return nil", g.ident(c.lang))
	case 3:
		return "Refactor " + g.file(c)
	case 4:
		return "Compare prices on emag.ro"
	}
	t := g.phrase(3 + g.r.IntN(4))
	return strings.ToUpper(t[:1]) + t[1:]
}

func (g *gen) tags(c *chat) []string {
	n := g.r.IntN(4)
	var out []string
	if n > 0 && g.r.IntN(2) == 0 {
		out = append(out, []string{"go", "python", "typescript"}[c.lang])
	}
	for len(out) < n {
		t := g.pick(tagNames)
		dup := false
		for _, o := range out {
			dup = dup || o == t
		}
		if !dup {
			out = append(out, t)
		}
	}
	return out
}

func (g *gen) systemNote(c *chat) string {
	return fmt.Sprintf("Working directory: %s/src/%s\nGit branch: %s\nPlatform: linux\nThe agent %s may read and edit files in the working directory and run shell commands after approval.",
		c.home, c.repo, c.branch, c.agent)
}

func (g *gen) compaction(c *chat) string {
	return "Conversation compacted to save context. Summary so far: " + g.sentences(3+g.r.IntN(3))
}

func (g *gen) userPrompt(c *chat) string {
	var s string
	switch x := g.r.IntN(100); {
	case c.web:
		s = fmt.Sprintf("Check the price of the %s on emag.ro and compare it with last week; tell me if %s.", g.pick(products), g.phrase(4))
	case x < 18:
		s = fmt.Sprintf("`%s` fails on main since the %s change. Can you fix %s without changing what the test expects?", g.testCommand(c), g.word(), g.testName())
	case x < 30:
		s = fmt.Sprintf("Add a --%s flag to %s that %s.", g.word(), g.pick(c.pkgs), g.phrase(5+g.r.IntN(6)))
	case x < 42:
		s = fmt.Sprintf("Why does %s in %s return an empty %s when the %s is %s? I expected %s.", g.ident(c.lang), g.file(c), g.word(), g.word(), g.word(), g.phrase(4))
	case x < 52:
		s = fmt.Sprintf("Can you explain how %s works in %s? %s", g.ident(c.lang), g.fileLine(c), g.sentences(1))
	case x < 60:
		s = fmt.Sprintf("Refactor %s so that %s. Keep the public API unchanged.", g.file(c), g.phrase(6))
	case x < 66:
		s = fmt.Sprintf("%s is slow with %d rows, can you find out why and make it faster?", g.ident(c.lang), 1000*(1+g.r.IntN(500)))
	case x < 72:
		s = fmt.Sprintf("Review the diff on branch %s and point out anything risky.", c.branch)
	case x < 80:
		s = fmt.Sprintf("I get this when I run `%s`:\n\n```\n%s\n```\n\nWhat does it mean?", g.testCommand(c), g.failure(c, false))
	case x < 90:
		s = g.pick([]string{"ok, go ahead", "yes please", "that works, thanks.", "no, keep the old behaviour for now", "looks good, commit it", "can you also add a test?"})
		if g.r.IntN(2) == 0 {
			s += " " + g.sentences(1)
		}
	default:
		s = strings.TrimSuffix(g.sentences(1+g.r.IntN(3)), ".") + "?"
	}
	if g.r.IntN(3) == 0 {
		s += " " + g.sentences(1+g.r.IntN(2))
	}
	return s
}

func (g *gen) think(c *chat) string {
	var s string
	switch g.r.IntN(6) {
	case 0:
		s = "I'll start by running the tests to see the exact failure."
	case 1:
		s = fmt.Sprintf("Let me read %s first.", g.file(c))
	case 2:
		s = fmt.Sprintf("The error comes from %s, where %s.", g.fileLine(c), g.phrase(6))
	case 3:
		s = fmt.Sprintf("Now I'll update %s to %s.", g.ident(c.lang), g.phrase(5))
	case 4:
		s = fmt.Sprintf("I'll search for callers of %s.", g.ident(c.lang))
	default:
		s = g.sentences(1)
	}
	if g.r.IntN(2) == 0 {
		s += " " + g.sentences(1)
	}
	return s
}

func (g *gen) answer(c *chat) string {
	var b strings.Builder
	switch g.r.IntN(4) {
	case 0:
		fmt.Fprintf(&b, "Fixed: %s now %s, and `%s` passes.", g.ident(c.lang), g.phrase(5), g.testCommand(c))
	case 1:
		fmt.Fprintf(&b, "The cause is in %s: %s.", g.fileLine(c), g.phrase(8))
	case 2:
		b.WriteString("Summary of the change:")
		for range 2 + g.r.IntN(3) {
			fmt.Fprintf(&b, "\n- %s: %s", g.file(c), g.phrase(4+g.r.IntN(5)))
		}
	default:
		b.WriteString(g.sentences(1))
	}
	if g.r.IntN(2) == 0 {
		b.WriteByte(' ')
		b.WriteString(g.sentences(1 + g.r.IntN(2)))
	}
	if g.r.IntN(8) == 0 {
		b.WriteString("\n\n```")
		b.WriteString([]string{"go", "python", "ts"}[c.lang])
		b.WriteByte('\n')
		b.WriteString(g.code(c, 3+g.r.IntN(6)))
		b.WriteString("```")
	}
	return b.String()
}

func (g *gen) event(c *chat) string {
	switch g.r.IntN(3) {
	case 0:
		return fmt.Sprintf("ci: pipeline %d for %s %s at stage test", 1000+g.r.IntN(9000), c.branch, g.pick([]string{"passed", "failed"}))
	case 1:
		return fmt.Sprintf("webhook: pull request #%d opened on %s/%s", 1+g.r.IntN(900), c.org, c.repo)
	}
	return fmt.Sprintf("notify: posted a summary to #%s", g.pick([]string{"eng", "ops", "alerts", "team-" + c.repo}))
}

// tool makes one tool call with its arguments, result and outcome, and its metadata.
func (g *gen) tool(c *chat) (*toolRecord, json.RawMessage) {
	t := &toolRecord{CallID: g.callID(), Outcome: "succeeded"}
	c.corrID = t.CallID
	var meta json.RawMessage
	x := g.r.IntN(100)
	if c.web && x < 60 {
		x = 100 // WebFetch
	}
	switch {
	case x < 28:
		t.Name = "Bash"
		cmd, result, exit := g.bash(c)
		t.Arguments = jsonObj("command", cmd, "description", g.phrase(3+g.r.IntN(4)), "timeout", 120000)
		t.Result = result
		if exit != 0 {
			t.Outcome = "failed"
		}
		meta = jsonObj("exit_code", exit, "duration_ms", 40+g.r.IntN(30000))
	case x < 53:
		t.Name = "Read"
		path := g.file(c)
		off := g.r.IntN(300)
		n := 4 + g.r.IntN(14)
		if g.r.IntN(100) < 3 {
			n = 60 + g.r.IntN(140) // a whole file: the occasional large result
		}
		t.Arguments = jsonObj("file_path", c.home+"/src/"+c.repo+"/"+path, "offset", off+1, "limit", n)
		if g.r.IntN(100) < 2 {
			t.Result, t.Outcome = "File does not exist.", "failed"
		} else {
			t.Result = g.numbered(c, off+1, n)
		}
	case x < 68:
		t.Name = "Edit"
		path := c.home + "/src/" + c.repo + "/" + g.file(c)
		t.Arguments = jsonObj("file_path", path, "old_string", g.code(c, 1+g.r.IntN(4)), "new_string", g.code(c, 1+g.r.IntN(5)))
		if g.r.IntN(100) < 6 {
			t.Result, t.Outcome = "String to replace not found in file.\nString: "+g.code(c, 1), "failed"
		} else {
			t.Result = "The file " + path + " has been updated."
		}
	case x < 80:
		t.Name = "Grep"
		pat := g.ident(c.lang)
		t.Arguments = jsonObj("pattern", pat, "path", g.pick([]string{".", "internal/", "src/", c.repo + "/"}), "output_mode", "content", "-n", true)
		t.Result = g.grep(c, pat)
	case x < 85:
		t.Name = "Write"
		path := c.home + "/src/" + c.repo + "/" + g.file(c)
		t.Arguments = jsonObj("file_path", path, "content", g.code(c, 5+g.r.IntN(15)))
		t.Result = "File created successfully at: " + path
	case x < 91:
		t.Name = "Glob"
		t.Arguments = jsonObj("pattern", g.pick([]string{"**/*_test.go", "**/*.py", "src/**/*.ts", "internal/**/*.go"}))
		var b strings.Builder
		for i := range 2 + g.r.IntN(7) {
			if i > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(g.file(c))
		}
		t.Result = b.String()
	default:
		t.Name = "WebFetch"
		u := g.url()
		t.Arguments = jsonObj("url", u, "prompt", "Extract "+g.phrase(4))
		t.Result, t.Outcome = g.fetch(u)
	}
	switch x := g.r.IntN(1000); {
	case x < 5:
		t.Result, t.Outcome = "The user doesn't want to proceed with this tool use. The tool use was rejected.", "blocked"
	case x < 8:
		t.Result, t.Outcome = "Interrupted by user", "cancelled"
	}
	c.failed = t.Outcome == "failed"
	return t, meta
}

func (g *gen) callID() string {
	const digits = "0123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
	b := []byte("toolu_01")
	for range 22 {
		b = append(b, digits[g.r.IntN(len(digits))])
	}
	return string(b)
}

// bash returns a command, its output and its exit status.
func (g *gen) bash(c *chat) (string, string, int) {
	switch x := g.r.IntN(100); {
	case x < 45:
		cmd := g.testCommand(c)
		build := strings.HasPrefix(cmd, "go build") || strings.HasPrefix(cmd, "go vet") || strings.HasPrefix(cmd, "npx tsc")
		switch {
		case g.r.IntN(100) < 40:
			return cmd, g.failure(c, build), 1 + g.r.IntN(2)
		case build:
			return cmd, "", 0 // a clean build prints nothing
		}
		return cmd, g.testPass(c), 0
	case x < 60:
		return "git status", fmt.Sprintf("On branch %s\nChanges not staged for commit:\n  (use \"git add <file>...\" to update what will be committed)\n\tmodified:   %s\n\tmodified:   %s\n\nno changes added to commit (use \"git add\" and/or \"git commit -a\")", c.branch, g.file(c), g.file(c)), 0
	case x < 70:
		var b strings.Builder
		b.WriteString(" ")
		for i := range 2 + g.r.IntN(5) {
			if i > 0 {
				b.WriteByte('\n')
			}
			fmt.Fprintf(&b, "%s | %d %s", g.file(c), 1+g.r.IntN(80), strings.Repeat("+", 1+g.r.IntN(20))+strings.Repeat("-", g.r.IntN(10)))
		}
		return "git diff --stat", b.String(), 0
	case x < 80:
		u := g.url()
		res, outcome := g.fetch(u)
		exit := 0
		if outcome != "succeeded" {
			exit = 22
		}
		return "curl -sS " + u + " | head -c 4000", res, exit
	case x < 90:
		var b strings.Builder
		b.WriteString("total 48")
		for range 3 + g.r.IntN(8) {
			fmt.Fprintf(&b, "\n-rw-r--r-- 1 %s %s %6d Mar 14 10:02 %s", "dev", "dev", 200+g.r.IntN(40000), g.pick(c.files))
		}
		return "ls -la " + g.pick(c.pkgs), b.String(), 0
	}
	return "rg -n '" + g.ident(c.lang) + "'", g.grep(c, g.ident(c.lang)), 0
}

func (g *gen) testPass(c *chat) string {
	var b strings.Builder
	switch c.lang {
	case langPython:
		fmt.Fprintf(&b, "============================= test session starts ==============================\ncollected %d items\n\n", 5+g.r.IntN(200))
		fmt.Fprintf(&b, "tests/test_%s.py %s [100%%]\n\n============================== %d passed in %.2fs ===============================", g.pick(c.pkgs), strings.Repeat(".", 3+g.r.IntN(30)), 5+g.r.IntN(200), g.r.Float64()*9)
	case langTS:
		fmt.Fprintf(&b, " ✓ src/%s/%s.test.ts (%d tests) %dms\n\n Test Files  %d passed\n      Tests  %d passed", g.pick(c.pkgs), strings.ToLower(g.pick(nouns)), 2+g.r.IntN(20), 5+g.r.IntN(900), 1+g.r.IntN(30), 5+g.r.IntN(300))
	default:
		for i, p := range c.pkgs {
			if i > 0 {
				b.WriteByte('\n')
			}
			fmt.Fprintf(&b, "ok  \t%s/internal/%s\t%.3fs", c.module, p, g.r.Float64()*3)
		}
	}
	if g.r.IntN(100) < 2 { // a verbose run: a large result
		for range 60 + g.r.IntN(100) {
			fmt.Fprintf(&b, "\n=== RUN   %s/%s\n--- PASS: %s/%s (0.%02ds)", g.testName(), g.word(), g.testName(), g.word(), g.r.IntN(100))
		}
	}
	return b.String()
}

// failure is the output of a failed build or test, in the chat's language: compiler errors
// when build is set, else a failed assertion, a compiler error or a stack trace.
func (g *gen) failure(c *chat, build bool) string {
	var b strings.Builder
	file := g.file(c)
	switch c.lang {
	case langPython:
		if build || g.r.IntN(2) == 0 {
			b.WriteString("Traceback (most recent call last):\n")
			for range 2 + g.r.IntN(4) {
				fmt.Fprintf(&b, "  File \"%s/src/%s/%s\", line %d, in %s\n    %s\n", c.home, c.repo, g.file(c), g.line(), g.ident(langPython), g.codeLine(langPython))
			}
			b.WriteString(g.pick([]string{
				"KeyError: 'user_id'",
				"TypeError: unsupported operand type(s) for +: 'int' and 'NoneType'",
				"ValueError: invalid literal for int() with base 10: '" + g.word() + "'",
				"AttributeError: 'NoneType' object has no attribute '" + g.word() + "'",
				"ModuleNotFoundError: No module named '" + g.word() + "'",
			}))
			return b.String()
		}
		fmt.Fprintf(&b, "FAILED %s::test_%s - AssertionError: assert %d == %d\n", file, g.ident(langPython), g.r.IntN(100), g.r.IntN(100))
		fmt.Fprintf(&b, "=========================== short test summary info ============================\n%d failed, %d passed in %.2fs", 1+g.r.IntN(3), g.r.IntN(200), g.r.Float64()*9)
		return b.String()
	case langTS:
		for range 1 + g.r.IntN(4) {
			fmt.Fprintf(&b, "%s(%d,%d): error TS%d: Property '%s' does not exist on type '%s'.\n", file, g.line(), 1+g.r.IntN(40), 2300+g.r.IntN(100), g.word(), g.typeName())
		}
		fmt.Fprintf(&b, "\nFound %d errors in %d files.", 1+g.r.IntN(9), 1+g.r.IntN(3))
		return b.String()
	}
	kind := g.r.IntN(3)
	if build {
		kind = 0
	}
	switch kind {
	case 0: // compiler errors
		fmt.Fprintf(&b, "# %s/internal/%s\n", c.module, g.pick(c.pkgs))
		for range 1 + g.r.IntN(4) {
			fmt.Fprintf(&b, "%s:%d:%d: %s\n", file, g.line(), 1+g.r.IntN(60), g.pick([]string{
				"undefined: " + g.ident(langGo),
				"declared and not used: " + g.word(),
				"missing return",
				"too many arguments in call to " + g.ident(langGo),
				"cannot use " + g.word() + " (variable of type int) as string value in argument to " + g.ident(langGo),
			}))
		}
		b.WriteString("FAIL\t" + c.module + " [build failed]")
	case 1: // a failed assertion
		test := g.testName()
		fmt.Fprintf(&b, "--- FAIL: %s (0.00s)\n    %s: got %d, want %d\nFAIL\nFAIL\t%s/internal/%s\t0.%03ds\nFAIL", test, g.fileLine(c), g.r.IntN(1000), g.r.IntN(1000), c.module, g.pick(c.pkgs), g.r.IntN(1000))
	default: // a panic
		fmt.Fprintf(&b, "%s\n[signal SIGSEGV: segmentation violation code=0x1 addr=0x18 pc=0x%x]\n\ngoroutine %d [running]:\n",
			g.pick([]string{"panic: runtime error: invalid memory address or nil pointer dereference", "panic: assignment to entry in nil map", "panic: runtime error: index out of range [3] with length 3", "panic: send on closed channel"}),
			0x400000+g.r.IntN(0x200000), 1+g.r.IntN(40))
		for range 2 + g.r.IntN(5) {
			pkg := g.pick(c.pkgs)
			fmt.Fprintf(&b, "%s/internal/%s.(*%s).%s(0x%x, {0x%x, 0x%x})\n\t%s/src/%s/internal/%s/%s.go:%d +0x%x\n",
				c.module, pkg, g.typeName(), g.ident(langGo), 0xc000010000+g.r.IntN(0xffff), 0xc000100000+g.r.IntN(0xfffff), g.r.IntN(64),
				c.home, c.repo, pkg, strings.ToLower(g.pick(nouns)), g.line(), g.r.IntN(0x400))
		}
		fmt.Fprintf(&b, "main.main()\n\t%s/src/%s/cmd/%s/main.go:%d +0x%x\nexit status 2", c.home, c.repo, c.repo, g.line(), g.r.IntN(0x400))
	}
	return b.String()
}

// codeLine is one plausible line of source in language l.
func (g *gen) codeLine(l lang) string {
	switch l {
	case langPython:
		switch g.r.IntN(8) {
		case 0:
			return fmt.Sprintf("def %s(self, %s, %s=None):", g.ident(l), g.word(), g.word())
		case 1:
			return fmt.Sprintf("    if %s is None:", g.word())
		case 2:
			return fmt.Sprintf("        raise ValueError(f\"%s: {%s!r}\")", g.phrase(3), g.word())
		case 3:
			return fmt.Sprintf("    return self.%s(%s)", g.ident(l), g.word())
		case 4:
			return fmt.Sprintf("    for %s in %s.%s():", g.word(), g.word(), g.ident(l))
		case 5:
			return fmt.Sprintf("    # %s", g.phrase(4+g.r.IntN(6)))
		case 6:
			return fmt.Sprintf("    %s = await self.client.get(%q, timeout=%d)", g.word(), "/v1/"+g.word(), 5+g.r.IntN(60))
		}
		return fmt.Sprintf("from %s import %s", g.pick(pkgNames), g.ident(l))
	case langTS:
		switch g.r.IntN(7) {
		case 0:
			return fmt.Sprintf("export async function %s(%s: string): Promise<%s> {", g.ident(l), g.word(), g.typeName())
		case 1:
			return fmt.Sprintf("  const %s = await %s(%s);", g.word(), g.ident(l), g.word())
		case 2:
			return fmt.Sprintf("  if (!%s) throw new Error('%s');", g.word(), g.phrase(3))
		case 3:
			return fmt.Sprintf("  return %s.map((x) => x.%s);", g.word(), g.word())
		case 4:
			return fmt.Sprintf("  // %s", g.phrase(4+g.r.IntN(6)))
		case 5:
			return "}"
		}
		return fmt.Sprintf("import { %s } from './%s';", g.ident(l), g.pick(pkgNames))
	}
	switch g.r.IntN(10) {
	case 0:
		return fmt.Sprintf("func (s *%s) %s(ctx context.Context, %s string) (*%s, error) {", g.typeName(), g.ident(l), g.word(), g.typeName())
	case 1:
		return "\tif err != nil {"
	case 2:
		return fmt.Sprintf("\t\treturn nil, fmt.Errorf(\"%s: %%w\", err)", g.phrase(2))
	case 3:
		return "\t}"
	case 4:
		return fmt.Sprintf("\t%s, err := s.%s.%s(ctx, %s)", g.word(), g.word(), g.ident(l), g.word())
	case 5:
		return fmt.Sprintf("\tfor _, %s := range %s {", g.word(), g.word())
	case 6:
		return fmt.Sprintf("\t// %s", g.phrase(4+g.r.IntN(8)))
	case 7:
		return fmt.Sprintf("\t%s := make(map[string]int, len(%s))", g.word(), g.word())
	case 8:
		return fmt.Sprintf("\treturn %s, nil", g.word())
	}
	return "}"
}

// code is n lines of source, each ending in a newline.
func (g *gen) code(c *chat, n int) string {
	var b strings.Builder
	for range n {
		b.WriteString(g.codeLine(c.lang))
		b.WriteByte('\n')
	}
	return b.String()
}

// numbered is a file excerpt as a Read tool shows it: line numbers, a tab, the line.
func (g *gen) numbered(c *chat, from, n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%6d\t%s", from+i, g.codeLine(c.lang))
	}
	return b.String()
}

func (g *gen) grep(c *chat, pat string) string {
	if g.r.IntN(5) == 0 {
		return "No matches found"
	}
	var b strings.Builder
	for i := range 1 + g.r.IntN(6) {
		if i > 0 {
			b.WriteByte('\n')
		}
		line := g.codeLine(c.lang)
		if g.r.IntN(2) == 0 {
			line += " // " + pat
		}
		fmt.Fprintf(&b, "%s:%s", g.fileLine(c), line)
	}
	return b.String()
}

// fetch is what a web fetch returns: a page's text, a JSON document, or an HTTP error.
func (g *gen) fetch(u string) (string, string) {
	switch x := g.r.IntN(100); {
	case x < 8:
		return fmt.Sprintf("Request failed with status code %d", g.pick2(404, 503)), "failed"
	case x < 12:
		return "Error: timeout of 30000ms exceeded while fetching " + u, "failed"
	case x < 40 && strings.Contains(u, "emag.ro"):
		return g.productJSON(), "succeeded"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", strings.ToUpper(g.phrase(4)))
	b.WriteString(g.sentences(2 + g.r.IntN(4)))
	if g.r.IntN(20) == 0 { // a long page
		for range 10 + g.r.IntN(20) {
			b.WriteString("\n\n")
			b.WriteString(g.sentences(3 + g.r.IntN(5)))
		}
	}
	return b.String(), "succeeded"
}

func (g *gen) pick2(a, b int) int {
	if g.r.IntN(2) == 0 {
		return a
	}
	return b
}

// productJSON is a product document like a shop API returns, a few KB with its reviews.
func (g *gen) productJSON() string {
	type review struct {
		User  string `json:"user"`
		Stars int    `json:"stars"`
		Text  string `json:"text"`
	}
	reviews := make([]review, 1+g.r.IntN(8))
	for i := range reviews {
		reviews[i] = review{User: g.pick(userNames), Stars: 1 + g.r.IntN(5), Text: g.sentences(1 + g.r.IntN(3))}
	}
	doc := jsonObj(
		"id", 100000+g.r.IntN(900000),
		"name", g.pick(products),
		"price", jsonObj("amount", float64(10000+g.r.IntN(900000))/100, "currency", "RON"),
		"stock", g.pick([]string{"in_stock", "limited", "out_of_stock"}),
		"rating", float64(10+g.r.IntN(41))/10,
		"seller", g.pick([]string{"eMAG", "Marketplace " + g.word()}),
		"reviews", json.RawMessage(jsonValue(reviews)),
	)
	var out bytes.Buffer
	if err := json.Indent(&out, doc, "", "  "); err != nil {
		return string(doc)
	}
	return out.String()
}
