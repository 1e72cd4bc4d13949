package replicate

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/annals-dev/annals"
)

// Store is what the push worker needs of the host's database.
type Store interface {
	annals.HostStore
	annals.Outbox
	annals.PushStateStore
	// snapshotReader reads the chats of the lanes (verify compares and repairs them).
	snapshotReader
}

// Defaults of Config.
const (
	DefaultMaxOps     = 500
	DefaultMaxBytes   = 4 << 20
	DefaultMinBackoff = time.Second
	DefaultMaxBackoff = 5 * time.Minute
	DefaultPoll       = time.Second
	DefaultTimeout    = time.Minute
	// DefaultLanes is how many lanes a pass pushes at once.
	DefaultLanes = 4
	// maxRetryAfter caps how long a remote's Retry-After may hold a lane.
	maxRetryAfter = time.Hour
	// maxRounds bounds the requests one lane gets in one pass, so one long lane does not hold
	// the others back.
	maxRounds = 20
)

// Config wires a Pusher.
type Config struct {
	// Endpoint is the remote's base URL (ParseEndpoint), Key its API key (ResolveKey).
	Endpoint string
	Key      string
	Store    Store
	// HTTP is the client; nil: one with DefaultTimeout.
	HTTP *http.Client
	// MaxOps and MaxBytes bound one request (0: the defaults); an operation alone over
	// MaxBytes is still sent, alone.
	MaxOps   int
	MaxBytes int64
	// MinBackoff and MaxBackoff bound the wait after a transient failure (doubling from Min,
	// capped at Max, with jitter); a remote's Retry-After is honoured when longer.
	MinBackoff, MaxBackoff time.Duration
	// Poll is how often Run looks for new operations written by other processes; a write of
	// this process wakes it at once when the store notifies its commits (annals.OutboxNotifier).
	Poll time.Duration
	// Lanes bounds how many lanes a pass pushes at once (0: DefaultLanes).
	Lanes  int
	Logger *slog.Logger
	Now    func() time.Time
	// Jitter returns a number in [0, 1); nil: math/rand.
	Jitter func() float64
}

// Pusher drains a host's outbox to a remote: one request per lane holding its next operations
// in order, acknowledged operations deleted, transient failures retried per lane on a timer,
// permanent refusals quarantining only their lane.
type Pusher struct {
	cfg Config
	c   *client
	mu  sync.Mutex
	// waits holds the lanes in backoff.
	waits map[string]*wait
	// acks commits the acknowledgements of lanes pushed at once together.
	acks ackGroup
}

type wait struct {
	failures int
	until    time.Time
}

// New returns a Pusher.
func New(cfg Config) *Pusher {
	if cfg.HTTP == nil {
		cfg.HTTP = &http.Client{Timeout: DefaultTimeout}
	}
	if cfg.MaxOps <= 0 {
		cfg.MaxOps = DefaultMaxOps
	}
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = DefaultMaxBytes
	}
	if cfg.MinBackoff <= 0 {
		cfg.MinBackoff = DefaultMinBackoff
	}
	if cfg.MaxBackoff < cfg.MinBackoff {
		cfg.MaxBackoff = max(DefaultMaxBackoff, cfg.MinBackoff)
	}
	if cfg.Poll <= 0 {
		cfg.Poll = DefaultPoll
	}
	if cfg.Lanes <= 0 {
		cfg.Lanes = DefaultLanes
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Jitter == nil {
		cfg.Jitter = rand.Float64
	}
	return &Pusher{cfg: cfg, c: &client{endpoint: cfg.Endpoint, key: cfg.Key, http: cfg.HTTP}, waits: map[string]*wait{}}
}

// Report is what one pass did.
type Report struct {
	// Lanes is how many lanes had operations queued; Pushed how many operations the remote
	// acknowledged in this pass.
	Lanes  int `json:"lanes"`
	Pushed int `json:"pushed"`
	// Waiting are the lanes in backoff after a transient failure; Quarantined the lanes left
	// behind a permanent refusal (this pass's and earlier ones).
	Waiting     []string `json:"waiting"`
	Quarantined []string `json:"quarantined"`
}

// Check asks the remote whether it accepts the key, so that a wrong key is one clear error when
// the worker starts (nothing queued is touched).
func (p *Pusher) Check(ctx context.Context) error {
	_, a, err := p.c.heads(ctx, nil, nil)
	if err != nil {
		return annals.Errorf(annals.EUNAVAILABLE, "cannot reach the remote %s: %v", p.cfg.Endpoint, err)
	}
	switch {
	case a.status == http.StatusOK:
		return nil
	case a.status == http.StatusUnauthorized || a.status == http.StatusForbidden:
		return annals.Errorf(annals.EFORBIDDEN, "the remote %s refused the API key %s (%d %s: %s); set %s to an operator key of the remote's tenant; nothing queued is lost",
			p.cfg.Endpoint, Fingerprint(p.cfg.Key), a.status, a.code, a.message, KeyEnv)
	default:
		return annals.Errorf(annals.EUNAVAILABLE, "the remote %s answered %d %s: %s", p.cfg.Endpoint, a.status, a.code, a.message)
	}
}

// hostReady refuses to push from a database whose host id belongs to another place.
func (p *Pusher) hostReady(ctx context.Context) (bool, error) {
	check, err := p.cfg.Store.CheckHost(ctx)
	if annals.ErrorCode(err) == annals.ENOTFOUND {
		return false, nil // the outbox was never on: nothing to push
	}
	if err != nil {
		return false, err
	}
	if check.Moved {
		return false, annals.Errorf(annals.ECONFLICT, "refusing to push: %s; if this is a copy, run 'annals replicate new-host-id' on it (the original keeps its id)", check.Reason)
	}
	return true, nil
}

// PushOnce makes one pass over the lanes with queued operations: each lane not quarantined
// and not waiting out a backoff is pushed until it is empty, refused, or has had its share of
// requests. Up to Config.Lanes lanes are pushed at once (each lane's requests stay in order);
// an error of the host's own store stops the pass from starting more.
func (p *Pusher) PushOnce(ctx context.Context) (*Report, error) {
	rep := &Report{Waiting: []string{}, Quarantined: []string{}}
	ok, err := p.hostReady(ctx)
	if err != nil || !ok {
		return rep, err
	}
	quarantined, err := p.cfg.Store.Quarantined(ctx)
	if err != nil {
		return rep, err
	}
	held := map[string]bool{}
	for _, q := range quarantined {
		held[q.ChatID] = true
	}
	lanes, err := p.cfg.Store.OutboxLanes(ctx, true)
	if err != nil {
		return rep, err
	}
	rep.Lanes = len(lanes)
	var (
		mu       sync.Mutex
		firstErr error
		wg       sync.WaitGroup
	)
	slots := make(chan struct{}, p.cfg.Lanes)
	for _, l := range lanes {
		if held[l.ChatID] || p.waiting(l.ChatID) {
			mu.Lock()
			if held[l.ChatID] {
				rep.Quarantined = append(rep.Quarantined, l.ChatID)
			} else {
				rep.Waiting = append(rep.Waiting, l.ChatID)
			}
			mu.Unlock()
			continue
		}
		slots <- struct{}{} // wait for a free slot
		mu.Lock()
		stop := firstErr != nil || ctx.Err() != nil
		mu.Unlock()
		if stop {
			<-slots
			break
		}
		wg.Add(1)
		go func(chatID string) {
			defer wg.Done()
			defer func() { <-slots }()
			n, state, err := p.pushLane(ctx, chatID)
			mu.Lock()
			defer mu.Unlock()
			rep.Pushed += n
			if err != nil && firstErr == nil {
				firstErr = err
			}
			switch state {
			case laneWaiting:
				rep.Waiting = append(rep.Waiting, chatID)
			case laneQuarantined:
				rep.Quarantined = append(rep.Quarantined, chatID)
			}
		}(l.ChatID)
	}
	wg.Wait()
	slices.Sort(rep.Waiting)
	slices.Sort(rep.Quarantined)
	if firstErr == nil {
		firstErr = ctx.Err()
	}
	return rep, firstErr
}

func (p *Pusher) waiting(chatID string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	w := p.waits[chatID]
	return w != nil && p.cfg.Now().Before(w.until)
}

type laneState int

const (
	laneFlowing laneState = iota
	laneWaiting
	laneQuarantined
)

// pushLane sends a lane's queued operations in order. An error is the host's own (its store);
// the remote's answers become the lane's state.
func (p *Pusher) pushLane(ctx context.Context, chatID string) (int, laneState, error) {
	pushed := 0
	for range maxRounds {
		ops, err := p.cfg.Store.PendingOps(ctx, annals.OutboxRead{ChatID: chatID, MaxOps: p.cfg.MaxOps, MaxBytes: p.cfg.MaxBytes})
		if err != nil {
			return pushed, laneFlowing, err
		}
		if len(ops) == 0 {
			p.clearWait(chatID)
			return pushed, laneFlowing, nil
		}
		if ops[0].Host == "" {
			// Written while the host id belonged to another place: new-host-id names them.
			return pushed, laneWaiting, nil
		}
		a, err := p.c.replicate(ctx, ops)
		if err != nil {
			if ctx.Err() != nil {
				return pushed, laneWaiting, ctx.Err()
			}
			p.backoff(chatID, 0, "network", err.Error())
			return pushed, laneWaiting, nil
		}
		if a.result != nil && len(a.result.Acked) > 0 {
			n, err := p.ack(ctx, a.result.Acked)
			pushed += n
			if err != nil {
				return pushed, laneFlowing, err
			}
		}
		switch {
		case a.status == http.StatusOK && a.result != nil && a.result.Error == nil:
			p.clearWait(chatID)
		case a.permanent():
			return pushed, laneQuarantined, p.quarantine(ctx, chatID, ops, a)
		case a.result != nil && a.result.Error != nil && a.result.Error.Code == annals.EOUTOFORDER:
			if next, _ := p.cfg.Store.PendingOps(ctx, annals.OutboxRead{ChatID: chatID, MaxOps: 1}); len(next) > 0 && next[0].LaneSeq > a.result.Head.Seq+1 {
				lost := *a
				lost.status, lost.result = http.StatusConflict, &annals.ReplicateResult{Head: a.result.Head, Error: &annals.ReplicateRefusal{Code: annals.ECONFLICT, OpID: next[0].ID,
					Message: fmt.Sprintf("the remote's lane is at seq %d and this host's queue starts at seq %d: the remote lost operations this host no longer holds (restored from an older backup?); run 'annals replicate verify'", a.result.Head.Seq, next[0].LaneSeq)}}
				return pushed, laneQuarantined, p.quarantine(ctx, chatID, next, &lost)
			}
			// The next request resends from the remote's head.
		default:
			p.backoff(chatID, a.retryAfter, fmt.Sprint(a.status), a.code)
			return pushed, laneWaiting, nil
		}
	}
	return pushed, laneFlowing, nil
}

// backoff makes a lane wait: doubling from MinBackoff, capped at MaxBackoff, with jitter
// (between half and all of it), or the remote's Retry-After when that is longer.
func (p *Pusher) backoff(chatID string, retryAfter time.Duration, status, code string) {
	p.mu.Lock()
	w := p.waits[chatID]
	if w == nil {
		w = &wait{}
		p.waits[chatID] = w
	}
	w.failures++
	d := p.cfg.MinBackoff
	for i := 1; i < w.failures && d < p.cfg.MaxBackoff; i++ {
		d *= 2
	}
	d = min(d, p.cfg.MaxBackoff)
	d = d/2 + time.Duration(p.cfg.Jitter()*float64(d/2))
	if retryAfter > d {
		d = min(retryAfter, maxRetryAfter)
	}
	w.until = p.cfg.Now().Add(d)
	failures := w.failures
	p.mu.Unlock()
	p.cfg.Logger.Warn("replication: push failed, retrying", "chat_id", chatID, "status", status, "code", code, "failures", failures, "retry_in", d.String())
}

func (p *Pusher) clearWait(chatID string) {
	p.mu.Lock()
	delete(p.waits, chatID)
	p.mu.Unlock()
}

// quarantine stops a lane on a permanent refusal, keeping one diagnostic.
func (p *Pusher) quarantine(ctx context.Context, chatID string, ops []*annals.ReplicationOp, a *answer) error {
	q := &annals.LaneQuarantine{ChatID: chatID, OpID: ops[0].ID, Status: a.status, Code: a.code, Message: a.message, At: p.cfg.Now().UTC()}
	if a.result != nil && a.result.Error != nil {
		q.OpID, q.Code, q.Message = a.result.Error.OpID, a.result.Error.Code, a.result.Error.Message
	}
	p.clearWait(chatID)
	p.cfg.Logger.Error("replication: lane quarantined", "chat_id", chatID, "op_id", q.OpID, "status", q.Status, "code", q.Code, "message", q.Message)
	return p.cfg.Store.QuarantineLane(ctx, q)
}

// nextWake is how long Run sleeps: until the first lane's backoff ends, at most Poll.
func (p *Pusher) nextWake() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	d := p.cfg.Poll
	now := p.cfg.Now()
	for _, w := range p.waits {
		if left := w.until.Sub(now); left < d {
			d = left
		}
	}
	return max(d, 10*time.Millisecond)
}

// Run pushes until ctx ends: a pass, then a sleep until this process commits new operations
// (when the store notifies them), Poll passes (operations written by other processes), or a
// lane's backoff ends, whichever is first; a failed pass is logged (once per message in a row)
// and retried the same way. Retries never wait for a new local write.
func (p *Pusher) Run(ctx context.Context) {
	var wake <-chan struct{} // nil: only the timer
	if n, ok := p.cfg.Store.(annals.OutboxNotifier); ok {
		c, stop := n.NotifyOutbox()
		defer stop()
		wake = c
	}
	last := ""
	for ctx.Err() == nil {
		_, err := p.PushOnce(ctx)
		msg := annals.ErrorMessage(err)
		if err != nil && msg != last && ctx.Err() == nil {
			p.cfg.Logger.Error("replication: push pass failed", "err", annals.ErrorDetail(err))
		}
		last = msg
		t := time.NewTimer(p.nextWake())
		select {
		case <-ctx.Done():
		case <-t.C:
		case <-wake:
		}
		t.Stop()
	}
}
