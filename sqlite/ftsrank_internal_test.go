package sqlite

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"
	"path/filepath"
	"testing"
)

func TestRankFunctionScoresAsBM25GivenTheCounts(t *testing.T) {
	registerRankHook()
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, `CREATE VIRTUAL TABLE f USING fts5(a, b, c)`); err != nil {
		t.Fatal(err)
	}
	words := []string{"the", "test", "fails", "timeout", "cache", "of", "retry"}
	for i := 0; i < 300; i++ {
		var a, b string
		for j := 0; j < 1+i%9; j++ {
			a += words[(i*7+j*3)%len(words)] + " "
			b += words[(i*5+j)%len(words)] + " "
		}
		if _, err := db.ExecContext(ctx, `INSERT INTO f (a, b, c) VALUES (?, ?, ?)`, a, b, fmt.Sprint("x", i%4)); err != nil {
			t.Fatal(err)
		}
	}
	phrases := []string{`"the test"`, `timeout`, `cache`}
	var blob []byte
	for _, p := range phrases {
		var n int64
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM f WHERE f MATCH ?`, p).Scan(&n); err != nil {
			t.Fatal(err)
		}
		blob = binary.LittleEndian.AppendUint64(blob, math.Float64bits(float64(n)))
	}
	rows, err := db.QueryContext(ctx, `SELECT rowid, bm25(f, 1.0, 0.5, 0), annals_bm25(f, ?, 1.0, 0.5, 0) FROM f WHERE f MATCH '"the test" OR timeout OR cache'`, blob)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var id int64
		var want, got float64
		if err := rows.Scan(&id, &want, &got); err != nil {
			t.Fatal(err)
		}
		if math.Abs(want-got) > 1e-9*math.Abs(want) {
			t.Errorf("row %d: bm25 %v, annals_bm25 %v", id, want, got)
		}
		n++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 100 {
		t.Fatalf("only %d rows matched", n)
	}
}
