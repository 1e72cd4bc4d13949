package embed

import (
	"context"
	"sync"

	"github.com/annals-dev/annals"
)

// DefaultCachedTenants is how many tenants' learned models LearnedTenants keeps in memory.
const DefaultCachedTenants = 32

// LearnedTenants is the learned embedder of a database shared by tenants: one Learned per
// tenant, each learning from that tenant's chats alone and saving its state under that tenant,
// so no tenant's words shape another tenant's vectors (docs/SECURITY.md, "One learned model per
// tenant"). It keeps the models of the most recently used tenants in memory (at most
// cachedTenants, each a vocabulary × Dimension table, up to ~16 MB) and loads the others from
// the store when they are asked for. It is safe for concurrent use.
type LearnedTenants struct {
	src   LearnSource
	cfg   LearnedConfig
	limit int

	mu      sync.Mutex
	tenants map[string]*tenantSlot
	clock   uint64 // use counter for the least-recently-used eviction
}

// tenantSlot is one tenant's model, loaded once however many callers ask at the same time.
type tenantSlot struct {
	ready   chan struct{} // closed when l and err are set
	l       *Learned
	err     error
	lastUse uint64 // guarded by LearnedTenants.mu
}

// NewLearnedTenants returns the per-tenant learned embedder over src; cachedTenants <= 0 keeps
// DefaultCachedTenants models in memory. The configuration is checked here, once for all tenants.
func NewLearnedTenants(src LearnSource, cfg LearnedConfig, cachedTenants int) (*LearnedTenants, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	if cachedTenants <= 0 {
		cachedTenants = DefaultCachedTenants
	}
	return &LearnedTenants{src: src, cfg: cfg, limit: cachedTenants, tenants: map[string]*tenantSlot{}}, nil
}

// ForTenant returns tenant's learned embedder, loading its saved model the first time it is
// asked for (or again after it was evicted). Errors: invalid (an empty tenant), unavailable,
// internal.
func (lt *LearnedTenants) ForTenant(ctx context.Context, tenant string) (annals.Embedder, error) {
	return lt.learned(ctx, tenant)
}

// Learn brings tenant's model up to date from tenant's own chats; see Learned.Learn.
func (lt *LearnedTenants) Learn(ctx context.Context, tenant string) (bool, error) {
	l, err := lt.learned(ctx, tenant)
	if err != nil {
		return false, err
	}
	return l.Learn(ctx)
}

func (lt *LearnedTenants) learned(ctx context.Context, tenant string) (*Learned, error) {
	if tenant == "" {
		return nil, errNoTenant()
	}
	lt.mu.Lock()
	lt.clock++
	slot, ok := lt.tenants[tenant]
	if ok {
		slot.lastUse = lt.clock
		lt.mu.Unlock()
		<-slot.ready
		if slot.err == nil {
			return slot.l, nil
		}
		// The load failed (the store was unavailable, the context ended): the next call tries
		// again, this one reports the failure.
		return nil, slot.err
	}
	slot = &tenantSlot{ready: make(chan struct{}), lastUse: lt.clock}
	lt.tenants[tenant] = slot
	lt.evict()
	lt.mu.Unlock()

	slot.l, slot.err = NewLearned(ctx, lt.src, tenant, lt.cfg)
	if slot.err != nil {
		lt.mu.Lock()
		if lt.tenants[tenant] == slot {
			delete(lt.tenants, tenant)
		}
		lt.mu.Unlock()
	}
	close(slot.ready)
	return slot.l, slot.err
}

// evict drops the least recently used models beyond the limit. Callers holding one keep using
// it; the next call for that tenant loads the saved state again. lt.mu is held.
func (lt *LearnedTenants) evict() {
	for len(lt.tenants) > lt.limit {
		var oldest string
		var at uint64
		for t, s := range lt.tenants {
			if oldest == "" || s.lastUse < at {
				oldest, at = t, s.lastUse
			}
		}
		delete(lt.tenants, oldest)
	}
}

var _ annals.TenantEmbedders = (*LearnedTenants)(nil)
