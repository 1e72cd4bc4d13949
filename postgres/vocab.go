package postgres

import (
	"context"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/storecore"
)

// The vocabulary of migration 0018 (chat_vocab, per tenant, and the deltas the writers append):
// what a prefix term is expanded from (storecore.ExpandPrefixes).

// foldEvery is how many write transactions of this store pass between two folds of the
// vocabulary's deltas. The deltas have no index (indexing them doubled a document refresh), so
// a reader scans them all: folding often keeps that scan short (one row per new word of a part
// or a title; a bulk ingest's 1,000-record transactions write tens of thousands), and a fold
// moves what it finds grouped by word, so its cost does not grow with how often it runs.
const foldEvery = 8

// foldLock is the advisory lock of a fold, per schema, taken with try: a writer finding another
// fold running leaves the deltas to it.
const foldLock = `hashtextextended('annals.vocab.' || coalesce(current_schema(), ''), 0)`

// vocabWords reads the words starting with prefix of the owner's tenant (every tenant's, summed,
// for a global search), in byte order, at most limit: the folded counts and the deltas not
// folded yet, summed per word.
func (db *DB) vocabWords(ctx context.Context, owner annals.Owner, prefix string, limit int) ([]storecore.VocabWord, error) {
	q, args := vocabQuery(owner, prefix, limit)
	rows, err := db.tracedQuery(ctx, q, args...)
	if err != nil {
		return nil, db.storeErr("expand prefix", err)
	}
	defer rows.Close()
	var words []storecore.VocabWord
	for rows.Next() {
		var w storecore.VocabWord
		if err := rows.Scan(&w.Word, &w.Docs); err != nil {
			return nil, db.storeErr("expand prefix", err)
		}
		words = append(words, w)
	}
	if err := rows.Err(); err != nil {
		return nil, db.storeErr("expand prefix", err)
	}
	return words, nil
}

// vocabQuery is vocabWords's statement: an index range scan of the prefix's folded words (the
// tenant's, or across tenants) and a scan of the few deltas not folded yet, grouped by word. U+10FFFF sorts after every continuation
// of the prefix in byte order (COLLATE "C").
func vocabQuery(owner annals.Owner, prefix string, limit int) (string, []any) {
	cond, args := "word >= ? AND word <= ?", []any{prefix, prefix + "\U0010FFFF"}
	if !owner.AllTenants {
		cond, args = "tenant_id = ? AND "+cond, append([]any{owner.TenantID}, args...)
	}
	q := `SELECT word, sum(docs)::bigint FROM (
			SELECT word, docs FROM chat_vocab WHERE ` + cond + `
			UNION ALL SELECT word, docs FROM chat_vocab_delta WHERE ` + cond + `) v
		GROUP BY word HAVING sum(docs)::bigint > 0 ORDER BY word LIMIT ?`
	return q, append(append(args, args...), limit)
}

// expandSearch replaces the prefix terms of f's text that stand for more than
// storecore.MaxPrefixWords words in the caller's tenant with their most frequent words, and
// returns the ORs the expansion made, each with its prefix: each is searched as one term (one index scan of the OR of
// its words), as the prefix was. A prefix of fewer words stays a tsquery prefix ('con':*),
// which finds exactly its words and which GIN answers as one merged posting stream, where an OR
// of the same words walks one stream per word (twice the time of the prefix at 100k entries).
func (db *DB) expandSearch(ctx context.Context, f *annals.SearchFilter) (map[*annals.TextExpr]*annals.TextExpr, error) {
	if f.Text == nil {
		return nil, nil
	}
	done := map[*annals.TextExpr]*annals.TextExpr{}
	owner := f.Chat.Owner
	text, err := storecore.ExpandCappedPrefixes(ctx, func(ctx context.Context, prefix string, limit int) ([]storecore.VocabWord, error) {
		return db.vocabWords(ctx, owner, prefix, limit)
	}, f.Text, done)
	if err != nil {
		return nil, err
	}
	f.Text = text
	made := map[*annals.TextExpr]*annals.TextExpr{}
	for prefix, x := range done {
		if x.Op == annals.TextOr {
			made[x] = prefix
		}
	}
	return made, nil
}

// noteWrite counts a committed write transaction and folds the vocabulary's deltas every
// foldEvery of them. A fold that fails or finds another running changes nothing a search
// reads (it sums the deltas), so its error is the next fold's to retry, not the writer's.
func (db *DB) noteWrite(ctx context.Context) {
	if db.writes.Add(1)%foldEvery != 0 {
		return
	}
	_, _ = db.foldVocab(context.WithoutCancel(ctx))
}

// foldVocab moves the vocabulary's deltas into its counts, unless another fold is running, and
// returns how many delta rows it moved.
func (db *DB) foldVocab(ctx context.Context) (int64, error) {
	if db.readOnly {
		return 0, errReadOnly()
	}
	tx, err := db.pool.Begin(ctx)
	if err != nil {
		return 0, db.storeErr("fold vocabulary", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	var locked bool
	if err := tx.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock(`+foldLock+`)`).Scan(&locked); err != nil {
		return 0, db.storeErr("fold vocabulary", err)
	}
	if !locked {
		return 0, nil
	}
	var n int64
	if err := tx.QueryRow(ctx, `SELECT annals_fold_vocab()`).Scan(&n); err != nil {
		return 0, db.storeErr("fold vocabulary", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return 0, db.storeErr("fold vocabulary", err)
	}
	return n, nil
}
