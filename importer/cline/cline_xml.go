package cline

import (
	"encoding/json"
	"regexp"
	"strings"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
)

// Cline and the versions of its forks that describe tools to the model in the system prompt
// (rather than through the API's tools) get each call back as XML in the reply text:
//
//	<read_file>
//	<path>src/otter.go</path>
//	</read_file>
//
// and send its result as text at the start of the next user message:
// "[read_file for 'src/otter.go'] Result:" followed by the output. The reply's calls become tool
// entries (the XML's parameters as JSON arguments) and each result lands on its call, as for
// the API's own tool_use and tool_result blocks.

// clineTool reports whether name is one of the tools of Cline, Roo Code and Kilo Code whose
// calls are XML in a reply.
func clineTool(name string) bool {
	switch name {
	case "read_file", "write_to_file", "replace_in_file", "apply_diff", "insert_content", "search_and_replace",
		"execute_command", "search_files", "list_files", "list_code_definition_names", "codebase_search",
		"browser_action", "use_mcp_tool", "access_mcp_resource", "ask_followup_question", "attempt_completion",
		"new_task", "plan_mode_respond", "switch_mode", "update_todo_list", "fetch_instructions", "new_rule",
		"report_bug", "condense", "web_fetch", "load_mcp_documentation":
		return true
	}
	return false
}

// clineResultRE is the head of a tool's text result; compiled once, never changed.
var clineResultRE = regexp.MustCompile(`^\[([a-z_]+)(?: for '(?s:.*?)')?\] Result:`)

// clineElements returns the top-level elements <name>...</name> of s, in order, with where
// each starts and ends. Go's regexps cannot match a closing tag to its opening one, so the
// elements are found by hand: an opening tag, then the first closing tag of the same name.
func clineElements(s string) (elems []clineElement) {
	for i := 0; i < len(s); {
		lt := strings.IndexByte(s[i:], '<')
		if lt < 0 {
			break
		}
		start := i + lt
		end := start + 1
		for end < len(s) && (s[end] == '_' || (s[end] >= 'a' && s[end] <= 'z')) {
			end++
		}
		if end == start+1 || end >= len(s) || s[end] != '>' {
			i = start + 1
			continue
		}
		name := s[start+1 : end]
		closeAt := strings.Index(s[end+1:], "</"+name+">")
		if closeAt < 0 {
			i = end + 1
			continue
		}
		inner := s[end+1 : end+1+closeAt]
		stop := end + 1 + closeAt + len(name) + 3
		elems = append(elems, clineElement{name: name, inner: inner, start: start, end: stop})
		i = stop
	}
	return elems
}

// clineElement is one element of a reply's text.
type clineElement struct {
	name, inner string
	start, end  int
}

// clineXMLCalls splits a reply's text into its prose and its XML tool calls. An element is a
// call when its tag is a known tool; everything else (a <thinking> block among them) stays
// text.
func clineXMLCalls(text string) (prose string, calls []*annals.ToolCall) {
	var kept []string
	last := 0
	for _, el := range clineElements(text) {
		if !clineTool(el.name) {
			continue
		}
		kept = append(kept, text[last:el.start])
		last = el.end
		args := map[string]string{}
		for _, p := range clineElements(el.inner) {
			args[p.name] = strings.TrimSpace(p.inner)
		}
		b, _ := json.Marshal(args)
		calls = append(calls, &annals.ToolCall{Name: el.name, Arguments: b})
	}
	kept = append(kept, text[last:])
	return strings.TrimSpace(strings.Join(kept, "")), calls
}

// clineToolEntries turns the XML calls of assistant text entries into tool entries right after
// them (an entry left without text is replaced by its first call) and queues them, in order,
// for their results.
func clineToolEntries(ents []*annals.Entry, queue *[]*annals.Entry) []*annals.Entry {
	var out []*annals.Entry
	for _, e := range ents {
		if e.Kind == annals.KindTool && e.Tool != nil && e.Tool.Result == "" {
			// A native tool_use: Cline 3.x answers it with a text result too.
			*queue = append(*queue, e)
		}
		if e.Kind != annals.KindAssistant || e.Text == "" {
			out = append(out, e)
			continue
		}
		prose, calls := clineXMLCalls(e.Text)
		if len(calls) == 0 {
			out = append(out, e)
			continue
		}
		if prose != "" || e.Reasoning != "" {
			e.Text = prose
			out = append(out, e)
		}
		for i, c := range calls {
			id := reader.EntryID(e.ID+"/call", i)
			if prose == "" && e.Reasoning == "" && i == 0 {
				id = e.ID
			}
			t := &annals.Entry{ID: id, Kind: annals.KindTool, Time: e.Time, Tool: c}
			out = append(out, t)
			*queue = append(*queue, t)
		}
	}
	return out
}

// clineXMLResults finds the text results of XML calls in a user message's entries: a block
// "[tool ...] Result:" and the blocks after it (up to the injected environment details) are
// the output of the oldest queued call of that tool. Those blocks make no entry of their own.
func clineXMLResults(ents []*annals.Entry, queue *[]*annals.Entry) []*annals.Entry {
	var out []*annals.Entry
	var call *annals.Entry
	for _, e := range ents {
		text := strings.TrimSpace(e.Text)
		if e.Kind == annals.KindUser {
			if m := clineResultRE.FindStringSubmatch(text); m != nil {
				call = clineTakeCall(queue, m[1])
				if call != nil {
					call.Tool.Result = strings.TrimSpace(text[len(m[0]):])
					call.Tool.Outcome = clineOutcome(call.Tool.Result)
					continue
				}
			} else if call != nil {
				call.Tool.Result = strings.TrimSpace(call.Tool.Result + "\n" + text)
				call.Tool.Outcome = clineOutcome(call.Tool.Result)
				continue
			}
		}
		call = nil
		out = append(out, e)
	}
	return out
}

// clineTakeCall removes and returns the oldest queued call of the tool still without a result
// (a native call may have had its tool_result block instead).
func clineTakeCall(queue *[]*annals.Entry, tool string) *annals.Entry {
	for i, c := range *queue {
		if c.Tool.Name == tool && c.Tool.Result == "" {
			*queue = append((*queue)[:i], (*queue)[i+1:]...)
			return c
		}
	}
	return nil
}

// clineOutcome reads a result the extension wrote: a refusal is blocked, an error failed.
func clineOutcome(result string) annals.Outcome {
	switch {
	case strings.Contains(result, "The user denied this operation"):
		return annals.OutcomeBlocked
	case strings.HasPrefix(result, "The tool execution failed"), strings.HasPrefix(result, "Error"):
		return annals.OutcomeFailed
	}
	return annals.OutcomeSucceeded
}
