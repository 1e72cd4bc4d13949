package importer_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// geminiText renders a Gemini content: a string, or the text of its parts.
func geminiText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	var b strings.Builder
	for _, p := range arr(v) {
		b.WriteString(str(obj(p)["text"]))
	}
	return b.String()
}

// countGemini: the messages of the conversation as it ends (a record written again with the
// same id counts in its last version; $rewindTo removes a message and what follows it), a
// model message with text or thoughts (or without calls) is a message, each toolCalls item a
// call, paired when it holds its result.
func countGemini(tb testing.TB, path string) srcCount {
	var c srcCount
	var recs []map[string]any
	if strings.HasSuffix(path, ".json") {
		data, err := os.ReadFile(path)
		if err != nil {
			tb.Fatal(err)
		}
		var doc map[string]any
		if json.Unmarshal(data, &doc) != nil {
			c.Unreadable++
			return c
		}
		for _, m := range arr(doc["messages"]) {
			recs = append(recs, obj(m))
		}
	} else {
		recs = jsonLines(tb, path, &c)
	}
	var order []string
	byID := map[string]map[string]any{}
	for i, r := range recs {
		if to := str(r["$rewindTo"]); to != "" {
			for j, id := range order {
				if id == to {
					order = order[:j]
					break
				}
			}
			continue
		}
		id := str(r["id"])
		if id == "" || r["type"] == nil {
			if r["type"] != nil {
				id = strings.Repeat("#", i+1)
			} else {
				continue // the metadata line, a $set patch
			}
		}
		if byID[id] == nil {
			order = append(order, id)
		}
		byID[id] = r
	}
	for _, id := range order {
		r := byID[id]
		switch str(r["type"]) {
		case "user":
			// The prompt /init submits (it asks for GEMINI.md) is not the person's.
			if t := strings.TrimSpace(str(r["content"])); !strings.HasPrefix(t, "You are an AI agent that brings the power of Gemini") {
				c.User++
			}
		case "gemini", "model", "assistant":
			tcs := arr(r["toolCalls"])
			thought := false
			for _, th := range arr(r["thoughts"]) {
				thought = thought || str(obj(th)["subject"])+str(obj(th)["description"]) != ""
			}
			if geminiText(r["content"])+geminiText(r["parts"]) != "" || thought || len(tcs) == 0 {
				c.Assistant++
			}
			for _, tc := range tcs {
				c.Tool++
				tco := obj(tc)
				switch st := str(tco["status"]); {
				case len(arr(tco["result"])) > 0, str(tco["resultDisplay"]) != "", st == "success", st == "error", st == "cancelled":
					c.Paired++
				}
			}
		}
	}
	return c
}

// countOpenCode: a storage tree's (or an export's) parts: a text part of a user message is a
// user message, of an assistant message an assistant one (a summary message's text is the
// compaction, not a reply), a reasoning part an assistant message, a tool part a call, paired
// when its state holds an output or an error. A part file that is not JSON is unreadable.
func countOpenCode(tb testing.TB, path string) srcCount {
	var c srcCount
	type msg struct {
		info  map[string]any
		parts []map[string]any
	}
	var msgs []msg
	if fi, err := os.Stat(path); err == nil && !fi.IsDir() {
		data, _ := os.ReadFile(path)
		var doc map[string]any
		_ = json.Unmarshal(data, &doc)
		for _, m := range arr(doc["messages"]) {
			mm := msg{info: obj(obj(m)["info"])}
			for _, p := range arr(obj(m)["parts"]) {
				mm.parts = append(mm.parts, obj(p))
			}
			msgs = append(msgs, mm)
		}
	} else {
		if fi, err := os.Stat(filepath.Join(path, "storage")); err == nil && fi.IsDir() {
			path = filepath.Join(path, "storage")
		}
		infos := map[string]map[string]any{}
		walkJSON(tb, filepath.Join(path, "message"), &c, func(p string, o map[string]any) { infos[str(o["id"])] = o })
		parts := map[string][]map[string]any{}
		walkJSON(tb, filepath.Join(path, "part"), &c, func(p string, o map[string]any) {
			mid := firstOf(str(o["messageID"]), filepath.Base(filepath.Dir(p)))
			parts[mid] = append(parts[mid], o)
		})
		for id, info := range infos {
			msgs = append(msgs, msg{info: info, parts: parts[id]})
		}
	}
	for _, m := range msgs {
		role, summary := str(m.info["role"]), m.info["summary"] == true
		for _, p := range m.parts {
			switch str(p["type"]) {
			case "text":
				switch {
				case role == "user":
					c.User++
				case !summary:
					c.Assistant++
				}
			case "reasoning":
				c.Assistant++
			case "tool":
				c.Tool++
				st := obj(p["state"])
				if st["output"] != nil || st["error"] != nil {
					c.Paired++
				}
			}
		}
	}
	return c
}

func firstOf(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// walkJSON decodes every .json file under dir; one that is not a JSON object is unreadable.
func walkJSON(tb testing.TB, dir string, c *srcCount, fn func(string, map[string]any)) {
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".json") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		var o map[string]any
		if json.Unmarshal(data, &o) != nil {
			c.Unreadable++
			return nil
		}
		fn(p, o)
		return nil
	})
}

// countChatGPT: every node of every conversation's mapping with something said (a message
// whose parts hold text), by author role; an assistant message addressed to a tool is a call,
// paired when the tool's message answers it.
func countChatGPT(tb testing.TB, path string) srcCount {
	var c srcCount
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var convs []map[string]any
	if json.Unmarshal(data, &convs) != nil {
		var one map[string]any
		if json.Unmarshal(data, &one) != nil {
			c.Unreadable++
			return c
		}
		convs = []map[string]any{one}
	}
	for _, conv := range convs {
		mapping := obj(conv["mapping"])
		for _, n := range mapping {
			m := obj(obj(n)["message"])
			if m == nil {
				continue
			}
			content := obj(m["content"])
			said := strings.TrimSpace(str(content["text"])) != "" || len(arr(content["thoughts"])) > 0
			for _, p := range arr(content["parts"]) {
				said = said || obj(p) != nil || strings.TrimSpace(str(p)) != ""
			}
			role, recipient := str(obj(m["author"])["role"]), str(m["recipient"])
			parent := obj(obj(mapping[str(obj(n)["parent"])])["message"])
			answers := str(obj(parent["author"])["role"]) == "assistant" && str(parent["recipient"]) != "" && str(parent["recipient"]) != "all"
			switch {
			case role == "assistant" && recipient != "" && recipient != "all":
				c.Tool++
			case role == "tool":
				// A tool's message answers the call before it; one that answers none is a
				// tool's output on its own.
				if !answers {
					c.Tool++
				}
				c.Paired++
			case str(content["content_type"]) == "reasoning_recap":
				// A recap ends the reasoning of the thoughts before it, or of the reply after
				// it; with neither it holds reasoning of its own.
				if str(parent["content_type"]) != "thoughts" && str(obj(parent["content"])["content_type"]) != "thoughts" && !ccgRepliedTo(mapping, n) {
					c.Assistant++
				}
			case !said:
			case role == "user":
				c.User++
			case role == "assistant":
				c.Assistant++
			}
		}
	}
	return c
}

// countAider: Aider's history is Markdown: a "#### " line is the person's, a "> " line Aider's
// own output, anything else the model's reply (a code fence in a reply is the reply's whatever
// its lines start with); consecutive lines of one kind (blank lines between them included) are
// one message. Only the person's and the model's are counted.
func countAider(tb testing.TB, path string) srcCount {
	var c srcCount
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	kind, fence, said := "", false, false
	end := func() {
		if said {
			switch kind {
			case "user":
				c.User++
			case "reply":
				c.Assistant++
			}
		}
		kind, fence, said = "", false, false
	}
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimRight(line, " \t\r")
		k := "reply"
		switch {
		case strings.HasPrefix(line, "# aider chat started at "):
			end()
			continue
		case kind == "reply" && fence:
		case strings.HasPrefix(line, "####"):
			k = "user"
		case line == ">" || strings.HasPrefix(line, "> "):
			k = "output"
		case strings.TrimSpace(line) == "":
			if kind == "" {
				continue
			}
			k = kind
		}
		if k != kind {
			end()
			kind = k
		}
		text := strings.TrimSpace(strings.TrimPrefix(line, "####"))
		said = said || text != ""
		if k == "reply" && strings.HasPrefix(strings.TrimSpace(line), "```") {
			fence = !fence
		}
	}
	end()
	return c
}

// countAnnalsExport: the entries of an annals export by kind, from the JSON's entries or the
// Markdown's <!-- annals:entry --> comments; a tool call is paired when it has an outcome or
// a result.
func countAnnalsExport(tb testing.TB, path string) srcCount {
	var c srcCount
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var entries []map[string]any
	if strings.HasSuffix(path, ".json") {
		var view map[string]any
		if json.Unmarshal(data, &view) != nil {
			c.Unreadable++
		}
		for _, e := range arr(view["entries"]) {
			entries = append(entries, obj(e))
		}
	} else {
		for _, line := range strings.Split(string(data), "\n") {
			if rest, ok := strings.CutPrefix(line, "<!-- annals:entry "); ok {
				var e map[string]any
				if json.Unmarshal([]byte(strings.TrimSuffix(rest, " -->")), &e) == nil {
					entries = append(entries, e)
				}
			}
		}
	}
	for _, e := range entries {
		switch str(e["kind"]) {
		case "user":
			c.User++
		case "assistant":
			c.Assistant++
		case "tool":
			c.Tool++
			if t := obj(e["tool"]); str(t["outcome"]) != "" || str(t["result"]) != "" || t["result_bytes"] != nil {
				c.Paired++
			}
		}
	}
	return c
}

// countClaudeCodeWeb: a web session's loglines counted as the lines of a local session.
func countClaudeCodeWeb(tb testing.TB, path string) srcCount {
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var doc struct {
		Loglines []json.RawMessage `json:"loglines"`
	}
	if json.Unmarshal(data, &doc) != nil {
		return srcCount{Unreadable: 1}
	}
	var b bytes.Buffer
	for _, l := range doc.Loglines {
		_ = json.Compact(&b, l)
		b.WriteByte('\n')
	}
	tmp := filepath.Join(tb.TempDir(), "web.jsonl")
	if err := os.WriteFile(tmp, b.Bytes(), 0o600); err != nil {
		tb.Fatal(err)
	}
	return countClaudeCode(tb, tmp)
}

// ccgRepliedTo reports whether a ChatGPT node has a child that is an assistant reply to all
// with something to say.
func ccgRepliedTo(mapping map[string]any, n any) bool {
	for _, ch := range arr(obj(n)["children"]) {
		m := obj(obj(mapping[str(ch)])["message"])
		if str(obj(m["author"])["role"]) != "assistant" || (str(m["recipient"]) != "" && str(m["recipient"]) != "all") {
			continue
		}
		for _, p := range arr(obj(m["content"])["parts"]) {
			if obj(p) != nil || strings.TrimSpace(str(p)) != "" {
				return true
			}
		}
	}
	return false
}
