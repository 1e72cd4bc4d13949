package importer_test

import (
	"database/sql"
	"encoding/json"
	"testing"
)

// countLLM: an llm logs.db, read with its documented schema (simonw/llm docs/logging.md). Each
// thread is the chain of messages from its tip to its root (a fork repeats what it shares with
// the thread it forked), each part of a message one message of its role (text), or the
// assistant's (reasoning), or a call (tool_call) paired by a tool_result part naming its
// tool_call_id. Conversations that are not threads are their responses: a prompt is the
// user's, a response text the assistant's, each tool_calls row a call paired by the
// tool_results row naming it.
func countLLM(tb testing.TB, path string) srcCount {
	var c srcCount
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	threads := map[string]bool{}
	open := map[string]int{}
	pair := func(id string) {
		if open[id] > 0 {
			open[id]--
		} else {
			c.Tool++
		}
		c.Paired++
	}
	if rows, err := db.Query(`SELECT id, tip_message_hash FROM threads`); err == nil {
		var tips [][2]string
		for rows.Next() {
			var id, tip string
			_ = rows.Scan(&id, &tip)
			tips = append(tips, [2]string{id, tip})
		}
		rows.Close()
		for _, t := range tips {
			threads[t[0]] = true
			for _, h := range llmChain(tb, db, t[1]) {
				llmParts(tb, db, h, &c, open, pair)
			}
		}
	}
	rows, err := db.Query(`SELECT id, COALESCE(conversation_id, ''), COALESCE(prompt, ''), COALESCE(response, '') FROM responses ORDER BY datetime_utc, id`)
	if err != nil {
		tb.Fatal(err)
	}
	var resp []string
	for rows.Next() {
		var id, conv, prompt, response string
		_ = rows.Scan(&id, &conv, &prompt, &response)
		if threads[conv] || threads[id] {
			continue
		}
		resp = append(resp, id)
		if prompt != "" {
			c.User++
		}
		if response != "" {
			c.Assistant++
		}
	}
	rows.Close()
	for _, id := range resp {
		// A response carries the results of earlier calls (its prompt sent them), then its own
		// calls.
		for k, q := range []string{`SELECT tool_call_id FROM tool_results WHERE response_id = ?`, `SELECT tool_call_id FROM tool_calls WHERE response_id = ?`} {
			r, err := db.Query(q, id)
			if err != nil {
				tb.Fatal(err)
			}
			for r.Next() {
				var call string
				_ = r.Scan(&call)
				if k == 1 {
					c.Tool++
					open[call]++
				} else {
					pair(call)
				}
			}
			r.Close()
		}
	}
	return c
}

// llmChain returns the message hashes from the root to tip.
func llmChain(tb testing.TB, db *sql.DB, tip string) []string {
	var chain []string
	for h := tip; h != ""; {
		chain = append([]string{h}, chain...)
		var parent sql.NullString
		if err := db.QueryRow(`SELECT parent_hash FROM messages WHERE hash = ?`, h).Scan(&parent); err != nil {
			tb.Fatal(err)
		}
		h = parent.String
	}
	return chain
}

func llmParts(tb testing.TB, db *sql.DB, hash string, c *srcCount, open map[string]int, pair func(string)) {
	var role string
	if err := db.QueryRow(`SELECT role FROM messages WHERE hash = ?`, hash).Scan(&role); err != nil {
		tb.Fatal(err)
	}
	rows, err := db.Query(`SELECT type, COALESCE(payload, '') FROM parts WHERE message_hash = ? ORDER BY position`, hash)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var typ, payload string
		_ = rows.Scan(&typ, &payload)
		var p map[string]any
		_ = json.Unmarshal([]byte(payload), &p)
		switch typ {
		case "text":
			switch role {
			case "user":
				c.User++
			case "assistant":
				c.Assistant++
			}
		case "reasoning":
			c.Assistant++
		case "tool_call":
			c.Tool++
			open[str(p["tool_call_id"])]++
		case "tool_result":
			pair(str(p["tool_call_id"]))
		}
	}
}
