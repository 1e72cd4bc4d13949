package corpus

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// gen is the state of one Write.
type gen struct {
	opts     Options
	r        *rand.Rand
	zipf     *rand.Zipf
	vocab    []string
	enc      *json.Encoder
	counts   []int
	planters []*planter
	next     int // global index of the next entry
	clock    time.Time
	stats    Stats
	progress func(int)

	tenants       []string
	users         []string
	usersOfTenant [][]int // indexes into users, per tenant
	agents        []string
}

func newGen(w io.Writer, opts Options) *gen {
	g := &gen{
		opts:   opts,
		r:      newRand(opts.Seed, streamContent),
		vocab:  vocabulary(newRand(opts.Seed, streamVocab)),
		enc:    json.NewEncoder(w),
		counts: entryCounts(opts),
		clock:  opts.Start,
	}
	// Transcripts quote code and shell (<, >, &) verbatim; escaping them as \u003c would make
	// the corpus larger and less like what producers write.
	g.enc.SetEscapeHTML(false)
	g.zipf = rand.NewZipf(g.r, ZipfExponent, 1, uint64(len(g.vocab)-1))
	total := 0
	for _, n := range g.counts {
		total += n
	}
	for _, m := range Markers() {
		if opts.NoMarkers {
			break
		}
		g.planters = append(g.planters, newPlanter(opts.Seed, m, total))
	}
	g.tenants = names(tenantNames, opts.Tenants, "tenant")
	if len(opts.TenantNames) > 0 {
		g.tenants = opts.TenantNames
	}
	g.users = names(userNames, opts.Users, "user")
	g.agents = names(agentNames, opts.Agents, "agent")
	g.usersOfTenant = make([][]int, opts.Tenants)
	for u := range g.users {
		t := u % opts.Tenants
		g.usersOfTenant[t] = append(g.usersOfTenant[t], u)
	}
	g.stats.First = opts.Start
	return g
}

// names returns n ids: the list first, then numbered ones.
func names(list []string, n int, prefix string) []string {
	out := make([]string, n)
	for i := range out {
		if i < len(list) {
			out[i] = list[i]
		} else {
			out[i] = fmt.Sprintf("%s-%d", prefix, i+1)
		}
	}
	return out
}

var (
	tenantNames = []string{"acme", "globex", "initech", "umbrella", "hooli", "wonka", "tyrell", "cyberdyne", "soylent", "stark"}
	userNames   = []string{"dana", "sam", "alex", "maria", "ion", "priya", "chen", "lucas", "amara", "yuki", "omar", "elena", "noah", "ana", "mihai", "zoe"}
	agentNames  = []string{"claude-code", "codex", "gemini-cli", "aider", "ops-agent", "reviewer", "triage-bot", "coder"}
)

// sourceOf is the source attribute each agent's importer would set.
func sourceOf(agent string) string {
	switch agent {
	case "claude-code", "codex", "gemini-cli", "aider":
		return agent
	}
	return "my-runtime"
}

type model struct {
	name          string
	inUSD, outUSD float64 // per million tokens
}

var models = []model{
	{"claude-sonnet-4-5", 3, 15},
	{"gpt-4.1", 2, 8},
	{"gemini-2.5-pro", 1.25, 10},
	{"o4-mini", 1.1, 4.4},
	{"claude-opus-4-1", 15, 75},
	{"qwen3-coder", 0.4, 1.6},
}

// skewed picks an index in [0, n) with weight 1/(i+1): the first tenants and agents are the
// big ones, as in any real deployment.
func (g *gen) skewed(n int) int {
	h := 0.0
	for i := range n {
		h += 1 / float64(i+1)
	}
	x := g.r.Float64() * h
	for i := range n {
		if x -= 1 / float64(i+1); x < 0 {
			return i
		}
	}
	return n - 1
}

func (g *gen) write(progress func(int)) error {
	g.progress = progress
	for k, n := range g.counts {
		if err := g.chat(k, n); err != nil {
			return err
		}
	}
	if progress != nil && g.stats.Entries%progressEvery != 0 {
		progress(g.stats.Entries)
	}
	return nil
}

// chat is the state of the chat being written.
type chat struct {
	id, tenant, user, agent string
	lang                    lang
	org, repo, home, branch string
	module                  string
	pkgs                    []string
	files                   []string
	model                   model

	n       int // entries planned
	entries int // entries written
	msg     int // message counter, for source ids
	runs    int
	src     string // the source id tool calls of the current assistant message carry
	web     bool   // the current request is about a web page
	failed  bool   // the last tool call failed
	corrID  string // the call id of the last tool call, which an event refers to

	ctxTokens     int64 // the context the model reads on its next call
	runIn, runOut int64 // the current run's tokens
}

type lang int

const (
	langGo lang = iota
	langPython
	langTS
)

func (g *gen) chat(k, n int) error {
	c := g.newChat(k, n)
	rec := chatRecord{
		Type:      "chat",
		ID:        c.id,
		TenantID:  c.tenant,
		UserID:    c.user,
		AgentID:   c.agent,
		CreatedAt: stamp(g.clock),
	}
	rec.Attributes = attrs{{"source", sourceOf(c.agent)}, {"repository", "github.com/" + c.org + "/" + c.repo}}
	if g.r.IntN(3) > 0 {
		rec.Attributes = append(rec.Attributes, [2]string{"cwd", c.home + "/src/" + c.repo})
	}
	if g.r.IntN(2) == 0 {
		rec.Attributes = append(rec.Attributes, [2]string{"git_branch", c.branch})
	}
	if g.r.IntN(100) < 85 {
		rec.Title = g.title(c)
	}
	if g.r.IntN(100) < 15 {
		rec.Description = g.sentences(1 + g.r.IntN(2))
	}
	rec.Tags = g.tags(c)
	if g.r.IntN(100) == 0 {
		g.stats.Pinned = append(g.stats.Pinned, c.id)
	}
	if err := g.encode(&rec); err != nil {
		return err
	}
	g.stats.Chats++

	if n >= 3 && g.r.IntN(100) < 15 {
		if err := g.emit(c, &entryRecord{Kind: "system", Text: g.systemNote(c)}); err != nil {
			return err
		}
	}
	for c.entries < c.n {
		if err := g.turn(c); err != nil {
			return err
		}
	}
	// The next chat starts a while after this one ends: minutes to hours.
	g.clock = g.clock.Add(time.Duration(60+g.r.ExpFloat64()*3600) * time.Second)
	return nil
}

func (g *gen) newChat(k, n int) *chat {
	// A bijective mix of the index makes ids unique, and look like the random session ids
	// agents use.
	c := &chat{id: fmt.Sprintf("c-%016x", mix(g.opts.Seed^0x9e3779b97f4a7c15+uint64(k))), n: n}
	t := g.skewed(len(g.tenants))
	c.tenant = g.tenants[t]
	c.org = c.tenant
	if us := g.usersOfTenant[t]; len(us) > 0 && g.r.IntN(100) < 95 {
		c.user = g.users[us[g.r.IntN(len(us))]]
	}
	c.agent = g.agents[g.skewed(len(g.agents))]
	who := c.user
	if who == "" {
		who = "runner"
	}
	c.home = "/home/" + who
	c.repo = repoNames[g.r.IntN(len(repoNames))]
	c.model = models[g.skewed(len(models))]
	switch x := g.r.IntN(100); {
	case x < 55:
		c.lang = langGo
	case x < 85:
		c.lang = langPython
	default:
		c.lang = langTS
	}
	c.branch = g.branchName()
	c.module = "github.com/" + c.org + "/" + c.repo
	for range 3 + g.r.IntN(4) {
		c.pkgs = append(c.pkgs, g.pkgName())
	}
	for _, p := range c.pkgs {
		for range 1 + g.r.IntN(2) {
			c.files = append(c.files, g.sourceFile(c, p))
		}
	}
	return c
}

// mix is the splitmix64 finalizer: a bijection on uint64.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

type step int

const (
	stepUser step = iota
	stepThink
	stepTool
	stepEvent
	stepAnswer
	stepCompact
)

// turn writes one user request and the agent's work on it, as one run.
func (g *gen) turn(c *chat) error {
	plan := []step{stepUser}
	if c.entries > 150 && g.r.IntN(100) < 5 {
		plan = []step{stepCompact, stepUser}
	}
	tools := 0
	for tools < 14 && g.r.Float64() < 0.72 {
		tools++
	}
	for range tools {
		if g.r.IntN(100) < 35 {
			plan = append(plan, stepThink)
		}
		plan = append(plan, stepTool)
		if g.r.IntN(100) < 2 {
			plan = append(plan, stepEvent)
		}
	}
	plan = append(plan, stepAnswer)
	cut := false
	if rest := c.n - c.entries; len(plan) > rest {
		// The chat's length is drawn apart from its turns, so its last turn rarely fits. Most
		// sessions end with an answer: shorten the turn and keep its answer; about one in six
		// stops mid-turn, as a live or abandoned session does.
		if rest >= 2 && g.r.IntN(6) > 0 {
			plan = append(plan[:rest-1], stepAnswer)
		} else {
			plan, cut = plan[:rest], true
		}
	}

	c.runs++
	c.runIn, c.runOut = 0, 0
	c.src = ""
	c.web = g.r.IntN(100) < 6
	runID := fmt.Sprintf("%s-run-%d", c.id, c.runs)
	if c.entries > 0 {
		// The person reads the answer and types the next request.
		g.clock = g.clock.Add(time.Duration(10+g.r.ExpFloat64()*180) * time.Second)
	}
	if err := g.encode(&runRecord{Type: "run", ChatID: c.id, ID: runID, Status: "running", Model: c.model.name, StartedAt: stamp(g.clock)}); err != nil {
		return err
	}
	g.stats.Runs++

	for _, s := range plan {
		e := &entryRecord{RunID: runID}
		switch s {
		case stepCompact:
			e.Kind, e.Text = "system", g.compaction(c)
			c.ctxTokens = 20000
		case stepUser:
			c.msg++
			e.Kind, e.Text = "user", g.userPrompt(c)
			e.SourceIDs = []string{fmt.Sprintf("u-%02d", c.msg)}
		case stepThink, stepAnswer:
			g.clock = g.clock.Add(time.Duration(2+g.r.IntN(25)) * time.Second)
			c.msg++
			c.src = fmt.Sprintf("a-%02d", c.msg)
			e.Kind = "assistant"
			e.SourceIDs = []string{c.src}
			if s == stepThink {
				e.Text = g.think(c)
			} else {
				e.Text = g.answer(c)
			}
			if g.r.IntN(100) < 30 {
				e.Reasoning = g.sentences(1 + g.r.IntN(3))
			}
			g.spend(c, len(e.Text)+len(e.Reasoning))
		case stepTool:
			g.clock = g.clock.Add(time.Duration(1+g.r.IntN(15)) * time.Second)
			if c.src == "" {
				c.msg++
				c.src = fmt.Sprintf("a-%02d", c.msg)
			}
			e.Kind = "tool"
			e.SourceIDs = []string{c.src}
			e.Tool, e.Metadata = g.tool(c)
			e.CorrelationID = e.Tool.CallID
			g.stats.ToolCalls++
			if e.Tool.Outcome == "failed" {
				g.stats.FailedToolCalls++
			}
			g.spend(c, len(e.Tool.Arguments)+len(e.Tool.Result))
		case stepEvent:
			g.clock = g.clock.Add(time.Duration(1+g.r.IntN(5)) * time.Second)
			e.Kind, e.Channel, e.Text = "event", eventChannels[g.r.IntN(len(eventChannels))], g.event(c)
			e.CorrelationID = c.corrID
		}
		if err := g.emit(c, e); err != nil {
			return err
		}
	}

	status := "completed"
	switch {
	case cut:
		// The capture ends inside this turn: the agent is still working, waits for the person,
		// or was stopped.
		status = []string{"running", "awaiting_input", "cancelled"}[g.r.IntN(3)]
	case c.failed && g.r.IntN(100) < 30:
		status = "failed"
	case g.r.IntN(100) < 2:
		status = "failed"
	}
	if status == "running" {
		return nil // a live run has no end line yet
	}
	cost := float64(c.runIn)*c.model.inUSD/1e6 + float64(c.runOut)*c.model.outUSD/1e6
	return g.encode(&runRecord{
		Type: "run", ChatID: c.id, ID: runID, Status: status, Model: c.model.name,
		EndedAt: stamp(g.clock), InputTokens: c.runIn, OutputTokens: c.runOut,
		CostUSD: math.Round(cost*1e6) / 1e6,
	})
}

// spend accounts one model call: it reads the whole context and writes content bytes (about
// four bytes a token).
func (g *gen) spend(c *chat, content int) {
	out := int64(content/4 + 20 + g.r.IntN(40))
	c.runIn += c.ctxTokens + 1800 // the system prompt and tool definitions
	c.runOut += out
	c.ctxTokens = min(c.ctxTokens+out, 180000)
}

// emit numbers an entry, stamps it, plants the marker terms that fall on it and writes it.
func (g *gen) emit(c *chat, e *entryRecord) error {
	c.entries++
	e.Type, e.ChatID, e.ID, e.Time = "entry", c.id, "e"+strconv.Itoa(c.entries), stamp(g.clock)
	for _, p := range g.planters {
		if p.hit(g.next) {
			plant(p, e)
		}
	}
	g.next++
	if err := g.encode(e); err != nil {
		return err
	}
	g.stats.Entries++
	g.stats.Last = g.clock
	if g.progress != nil && g.stats.Entries%progressEvery == 0 {
		g.progress(g.stats.Entries)
	}
	return nil
}

func (g *gen) encode(v any) error {
	if err := g.enc.Encode(v); err != nil {
		return err
	}
	g.stats.Lines++
	return nil
}

// plant inserts the term as a word of the entry's main text: its text, else its tool result.
// The position comes from the marker's own stream, so planting never shifts the content.
func plant(p *planter, e *entryRecord) {
	dst := &e.Text
	if e.Text == "" && e.Tool != nil {
		dst = &e.Tool.Result
	}
	s := *dst
	if s == "" {
		*dst = p.term
		return
	}
	// Insert before a space, so the term is a token of its own for any tokenizer.
	i := p.r.IntN(len(s))
	if j := strings.IndexByte(s[i:], ' '); j >= 0 {
		i += j
		*dst = s[:i] + " " + p.term + s[i:]
		return
	}
	*dst = s + " " + p.term
}

// jsonObj builds a JSON object with keys in the order given: k1, v1, k2, v2, ...
func jsonObj(kv ...any) json.RawMessage {
	var b strings.Builder
	b.WriteByte('{')
	for i := 0; i+1 < len(kv); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(jsonValue(kv[i]))
		b.WriteByte(':')
		b.Write(jsonValue(kv[i+1]))
	}
	b.WriteByte('}')
	return json.RawMessage(b.String())
}

// jsonValue encodes v without HTML escaping; a json.RawMessage is taken as it is.
func jsonValue(v any) []byte {
	if raw, ok := v.(json.RawMessage); ok {
		return raw
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("corpus: encoding %T: %v", v, err)) // only the generator's own values get here
	}
	return []byte(strings.TrimSuffix(b.String(), "\n"))
}
