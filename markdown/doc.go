// Package markdown renders a chat as a portable Markdown document and parses that document
// back, so that an export can be read by people (pasted into a doc, a PR or a wiki) and
// re-imported by annals without losing anything.
//
// # Layout
//
// A document is written for people first:
//
//	<!-- annals:chat {...} -->
//	# Fix the flaky test
//
//	- **Chat:** `c1` · **Tenant:** `acme` · **User:** `ana` · **Agent:** `coder`
//	- **Created:** 2026-03-14T10:02:00Z · **Last activity:** 2026-03-14T10:09:30Z · **Status:** completed
//	- **Tags:** `ci`, `flaky`
//	- **Attributes:** `source` = `claude-code`
//	- **Totals:** 3 entries · 1 run · 1,200 input / 310 output tokens · $0.0123
//
//	<description>
//
//	## Summary
//
//	<summary>
//
//	## Runs
//
//	<!-- annals:run {...} -->
//
//	| Run | Status | Model | Started | Ended | Tokens | Cost |
//	...
//
//	## Transcript
//
//	<!-- annals:entry {...} -->
//	### 1 · User · 2026-03-14 10:02:11 UTC
//
//	Why does TestFoo fail?
//
//	<!-- annals:entry {...} -->
//	### 2 · Tool `Bash` · ✗ failed · 2026-03-14 10:02:15 UTC
//	*run `r1` · call `toolu_1`*
//
//	**Arguments**
//	```json
//	{
//	  "command": "go test ./..."
//	}
//	```
//
//	**Result**
//	```text
//	FAIL
//	```
//
//	<!-- annals:end {"entries":2} -->
//
// Messages (user, assistant, system and event text, the chat's description and summary) are
// written as Markdown, because that is what they usually are. Reasoning, tool arguments and
// tool results are written in fenced code blocks whose fence is longer than any backtick run
// in the content, so no content can close its fence early.
//
// A message is written inside a ````markdown fence instead when writing it raw could change how
// a CommonMark renderer reads the rest of the document: a code fence it leaves open, an HTML
// block of the kinds that only end at a marker (<script, <pre, <style, <textarea, <!--, <?,
// <!X, <![CDATA[), or a fence line mixed with an HTML block. The check is conservative: when in
// doubt, the message is fenced. The rest of the document therefore always renders as written,
// whatever a chat contains.
//
// # Round trip
//
// Every chat, run and entry has a one-line HTML comment (invisible when rendered) carrying, as
// JSON, the fields that the readable part does not show exactly: ids, seq, kind,
// run id, source ids, channel, correlation id, time (RFC 3339 with nanoseconds and the original
// offset), tool name, call id and outcome, token counts, metadata, the chat's metadata and
// totals, and the byte length of each content part. Parse reads each part by its length, never
// by looking for a delimiter, so content that contains fences, headings or a forged
// "<!-- annals:entry" line cannot confuse it. Headings, metadata lines and the runs table are for
// people only: Parse skips them.
//
// Runs are carried by one <!-- annals:run {...} --> line each, all of them together under the
// "## Runs" heading, then a blank line, then the table (a comment line between rows would end
// a GFM table). The comment holds the run's id, status, model, start and end (RFC 3339 with
// nanoseconds and the original offset), token counts and cost (the shortest decimal that reads
// back as the same float64), and its chat id only when it differs from the chat's. Parse reads
// the runs from these lines and checks that the table has as many rows, so a run line deleted
// by hand is an error, not a lost run. Exports written before the run lines existed have the
// table alone: they still parse, chat and entries exactly, with no runs, because the table
// rounds times to the second and costs to four decimals and cannot give a run back exactly.
// An older parser skips the run lines like any display line and reads the rest as before.
//
// The comment JSON can never end its comment early: '<' and '>' are escaped as \u003c and
// \u003e, and a '-' followed by another '-' as \u002d. Outside JSON strings none of these
// characters can appear except a lone '-' of a negative number, so neither "-->" nor "--" nor
// "<!--" occurs inside a comment.
//
// Tool arguments in compact JSON (what Go, JavaScript and most producers write) are shown
// indented, and Parse compacts them back; the renderer checks that compacting restores the
// original bytes exactly and otherwise shows the arguments exactly as written. Metadata lives
// only in the comment, as a JSON string holding its exact bytes (base64 when it is not valid
// UTF-8), because it is usually machine noise that people do not need to read.
//
// The last line, <!-- annals:end {"entries":N} -->, lets Parse tell a complete export from a
// truncated one.
//
// What does not round-trip: strings carried in comment JSON that are not valid UTF-8 (ids,
// channel, title, tags, attribute values, run status and model), where JSON replaces invalid
// bytes with U+FFFD, and a run cost of -0, which is written as no cost and reads back as 0. The
// Validate methods of annals.Chat, annals.Entry and annals.Run refuse invalid UTF-8, so a
// stored chat always round-trips. Content parts are copied byte for byte,
// whatever they contain.
//
// The document is byte-exact: converting its line endings (for example to CRLF) or editing
// inside a message changes the byte lengths, and Parse then reports the first place where the
// document no longer matches instead of returning altered content. Parse checks the document's
// structure, not the domain rules: a caller that stores what it parsed validates the chat and
// entries like any other write.
package markdown
