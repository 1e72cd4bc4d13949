package storecore

import (
	"encoding/binary"
	"math"
	"slices"
	"strings"

	"github.com/annals-dev/annals"
)

// The statements of FindEmbeddings in both stores (? placeholders), columns id, model, vector,
// last_activity, and the rule that picks between them.
//
// Most owners hold fewer vectors than the candidate cap, and then every one of them is a
// candidate and their order is only the order of equal scores. So a store first reads them
// unordered (EmbeddingScan: one pass, no sort) and orders that set in Go (SortCandidates); only
// when the scan comes back over the cap does it read the newest cap in order (EmbeddingQuery).

// embeddingWhere is the scope of a candidate read.
func embeddingWhere(f annals.EmbeddingFilter) *Where {
	w := &Where{}
	w.AddOwner("v", f.Owner)
	if f.Model != "" {
		w.Add("v.model = ?", f.Model)
	}
	if f.ExcludeChatID != "" {
		w.Add("c.id <> ?", f.ExcludeChatID)
	}
	if f.ChatID != "" {
		w.Add("c.id = ?", f.ChatID)
	}
	if !f.IncludeArchived {
		w.Add("c.archived_at IS NULL")
	}
	return w
}

// EmbeddingLimit is the candidate cap of f.
func EmbeddingLimit(f annals.EmbeddingFilter) int {
	if f.Limit <= 0 {
		return annals.DefaultCandidateCap
	}
	return f.Limit
}

// EmbeddingScan reads the vectors in scope in no order, at most one over the cap: a store that
// gets no more than the cap back has every candidate, and sorts them with SortCandidates.
func EmbeddingScan(f annals.EmbeddingFilter) (string, []any) {
	w := embeddingWhere(f)
	q := `SELECT c.id, v.model, v.vector, c.last_activity FROM chat_embeddings v JOIN chats c ON c.pk = v.chat_pk
		WHERE ` + w.SQL() + ` LIMIT ?`
	return q, append(w.Args, EmbeddingLimit(f)+1)
}

// EmbeddingQuery reads the newest cap candidates in scope, newest first. The candidates are
// chosen on narrow rows (chat pk, id, activity) and only then joined to their vectors: sorting
// every in-scope row together with its 2 KB vector to keep the newest 2000 was most of related's
// time (issue 16).
func EmbeddingQuery(f annals.EmbeddingFilter) (string, []any) {
	w := embeddingWhere(f)
	q := `WITH pick AS MATERIALIZED (SELECT v.chat_pk AS pk, c.id AS id, c.last_activity AS active
			FROM chat_embeddings v JOIN chats c ON c.pk = v.chat_pk
			WHERE ` + w.SQL() + ` ORDER BY c.last_activity DESC, c.id LIMIT ?)
		SELECT p.id, v.model, v.vector, p.active FROM pick p JOIN chat_embeddings v ON v.chat_pk = p.pk
		ORDER BY p.active DESC, p.id`
	return q, append(w.Args, EmbeddingLimit(f))
}

// SortCandidates puts a scan's vectors in EmbeddingQuery's order: newest activity first, then by
// chat id (byte order, as SQLite's and the C collation compare).
func SortCandidates(vs []annals.ChatVector) {
	slices.SortFunc(vs, func(a, b annals.ChatVector) int {
		if c := b.LastActivity.Compare(a.LastActivity); c != 0 {
			return c
		}
		return strings.Compare(a.ChatID, b.ChatID)
	})
}

// VectorArena hands out float32 slices from shared blocks, so a read of a few thousand vectors
// costs a few allocations rather than one per vector.
type VectorArena struct{ block []float32 }

// Decode returns the little-endian float32s of b in a slice of their own (the caller may keep
// it); ok is false when b is not a whole number of float32s.
func (a *VectorArena) Decode(b []byte) ([]float32, bool) {
	n := len(b) / 4
	if len(b)%4 != 0 {
		return nil, false
	}
	if n > cap(a.block)-len(a.block) {
		a.block = make([]float32, 0, max(n, 1<<16))
	}
	start := len(a.block)
	a.block = a.block[:start+n]
	v := a.block[start : start+n : start+n]
	decodeFloats(v, b[:4*n])
	return v, true
}

// decodeFloats fills v from the little-endian float32s of b (len(b) == 4*len(v)), four at a
// time: the fixed-size subslices let the compiler drop the per-value bounds checks, which were
// most of the decoding time of a related query.
func decodeFloats(v []float32, b []byte) {
	i := 0
	for ; i+4 <= len(v); i += 4 {
		s := b[4*i : 4*i+16 : 4*i+16]
		w := v[i : i+4 : i+4]
		w[0] = math.Float32frombits(binary.LittleEndian.Uint32(s[0:4]))
		w[1] = math.Float32frombits(binary.LittleEndian.Uint32(s[4:8]))
		w[2] = math.Float32frombits(binary.LittleEndian.Uint32(s[8:12]))
		w[3] = math.Float32frombits(binary.LittleEndian.Uint32(s[12:16]))
	}
	for ; i < len(v); i++ {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
}
