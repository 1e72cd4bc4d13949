package query_test

import (
	"database/sql"
	"fmt"
	"reflect"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/annals-dev/annals/query"
)

func TestTokenizeSplitsLikeUnicode61(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"  ...  ", nil},
		{"Hello World", []string{"hello", "world"}},
		{"emag.ro", []string{"emag", "ro"}},
		{"foo_bar", []string{"foo", "bar"}},
		{"snake-case", []string{"snake", "case"}},
		{"file.go:123", []string{"file", "go", "123"}},
		{"c++", []string{"c"}},
		{"192.168.0.1", []string{"192", "168", "0", "1"}},
		{"http://example.com/a?b=c", []string{"http", "example", "com", "a", "b", "c"}},
		{"don't", []string{"don", "t"}},
		{"index out of range [3]", []string{"index", "out", "of", "range", "3"}},
		{"ÉCOLE Ştefan", []string{"école", "ştefan"}},
		{"e\u0301te\u0301", []string{"e\u0301te\u0301"}},                  // combining accents continue a token
		{"\u0301x", []string{"x"}},                                        // but never start one
		{"x\u20dby", []string{"x", "y"}},                                  // a mark unicode61 does not know separates
		{"你好世界", []string{"你好世界"}},                                        // no word breaking for CJK, as in unicode61
		{"٣ ½ Ⅻ", []string{"٣", "½", "ⅻ"}},                                // numbers of every kind
		{"\ue000x", []string{"\ue000x"}},                                  // private use
		{"a\u00a0b\u2003c", []string{"a", "b", "c"}},                      // other spaces
		{"👍good", []string{"good"}},                                       // an emoji older than SQLite's tables separates
		{"₿100", []string{"₿100"}},                                        // one newer than them does not, in SQLite too
		{"a\xffb", []string{"a", "b"}},                                    // invalid UTF-8 separates
		{"ΣΊΣΥΦΟΣ", []string{"σίσυφοσ"}},                                  // simple case mapping, rune by rune
		{"İstanbul", []string{"istanbul"}},                                // dotted capital I lower-cases to plain i
		{"x\ufffey", []string{"x", "y"}},                                  // noncharacters SQLite reads as U+FFFD
		{"\U000E0000z", []string{"\U000E0000z"}},                          // unassigned code points are token characters
		{"a\u200db", []string{"a", "b"}},                                  // zero-width joiner separates
		{"a\u0605b", []string{"a\u0605b"}},                                // a format character SQLite reads as a letter
		{"\u19b0x", []string{"x"}},                                        // a letter SQLite reads as a separator
		{"snake_case-and.dots", []string{"snake", "case", "and", "dots"}}, // several separators in one word
	} {
		if got := query.Tokenize(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Tokenize(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestFoldLowercasesAndRemovesDiacritics(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"Café", "cafe"},
		{"CAFÉ", "cafe"},
		{"cafe\u0301", "cafe"},
		{"Ştefan Ţară", "stefan tara"},
		{"Ệ ữ ỹ", "e u y"},
		{"Ångström", "angstrom"},
		{"Łódź", "łodz"},       // ł has no base letter in unicode61
		{"Øresund", "øresund"}, // nor ø
		{"Straße", "straße"},   // ß stays
		{"Ελληνικά ΣΟΦΟΣ", "ελληνικά σοφοσ"}, // Greek accents stay, final sigma folds to σ
		{"ёлка ЙОД", "ёлка йод"},             // Cyrillic letters stay distinct
		{"µ", "μ"},                           // micro sign is mu
		{"emag.ro", "emag.ro"},               // punctuation untouched: Fold is not Tokenize
	} {
		if got := query.Fold(tc.in); got != tc.want {
			t.Errorf("Fold(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// vocabDB returns an in-memory database with an FTS5 table tokenized like annals' indexes and a
// vocabulary table listing every token instance with its row and position.
func vocabDB(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	for _, stmt := range []string{
		`CREATE VIRTUAL TABLE t USING fts5(text, tokenize = 'unicode61 remove_diacritics 2')`,
		`CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// sqliteTokens indexes each text as a row of its own and returns the tokens SQLite stored for
// it, in order.
func sqliteTokens(t *testing.T, db *sql.DB, texts []string) [][]string {
	t.Helper()
	if _, err := db.Exec(`DELETE FROM t`); err != nil {
		t.Fatal(err)
	}
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range texts {
		if _, err := tx.Exec(`INSERT INTO t (rowid, text) VALUES (?, ?)`, i+1, s); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query(`SELECT doc, term FROM v ORDER BY doc, offset`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := make([][]string, len(texts))
	for rows.Next() {
		var doc int
		var term string
		if err := rows.Scan(&doc, &term); err != nil {
			t.Fatal(err)
		}
		out[doc-1] = append(out[doc-1], term)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestTokenizeAgreesWithSQLite checks, code point by code point, that Tokenize splits where
// SQLite's unicode61 splits: each code point is indexed alone (a token or nothing) and between
// two letters ("z<r>z": one token or two). It takes every code point of the planes in use (up to
// U+1FFFF) and samples the rest, which is nearly all unassigned; under the race detector SQLite
// runs about 35 times slower, so the test then samples everywhere.
func TestTokenizeAgreesWithSQLite(t *testing.T) {
	db := vocabDB(t)
	sample := rune(97)
	if raceEnabled {
		sample = 997
	}
	var runes []rune
	for r := rune(0x80); r <= unicode.MaxRune; r++ {
		dense := r <= 0x1FFFF && !raceEnabled && !testing.Short()
		if utf8.ValidRune(r) && (dense || r%sample == 0) {
			runes = append(runes, r)
		}
	}
	const batch = 20000
	mismatches := 0
	for start := 0; start < len(runes); start += batch {
		chunk := runes[start:min(start+batch, len(runes))]
		texts := make([]string, 0, 2*len(chunk))
		for _, r := range chunk {
			texts = append(texts, string(r), "z"+string(r)+"z")
		}
		got := sqliteTokens(t, db, texts)
		for i, r := range chunk {
			for j, text := range texts[2*i : 2*i+2] {
				want, mine := len(got[2*i+j]), len(query.Tokenize(text))
				if want != mine {
					mismatches++
					if mismatches <= 20 {
						t.Errorf("%U in %q: SQLite made %d tokens %q, Tokenize %d %q", r, text, want, got[2*i+j], mine, query.Tokenize(text))
					}
				}
			}
		}
	}
	if mismatches > 20 {
		t.Errorf("... %d mismatches in all", mismatches)
	}
}

// TestFoldAgreesWithSQLite checks that Fold folds every letter of the Latin, Greek and Cyrillic
// blocks to the token SQLite's unicode61 (remove_diacritics 2) stores for it, so that a backend
// folding with Fold matches what SQLite matches.
func TestFoldAgreesWithSQLite(t *testing.T) {
	db := vocabDB(t)
	var runes []rune
	var texts []string
	for _, block := range [][2]rune{{0x80, 0x24F}, {0x370, 0x3FF}, {0x400, 0x52F}, {0x1E00, 0x1EFF}} {
		for r := block[0]; r <= block[1]; r++ {
			runes = append(runes, r)
			texts = append(texts, string(r))
		}
	}
	got := sqliteTokens(t, db, texts)
	for i, r := range runes {
		if len(got[i]) != 1 {
			continue // not a token character
		}
		want := got[i][0]
		// SQLite does not lower-case the few letters encoded after its tables were made; Go does.
		if want == string(r) && unicode.ToLower(r) != r {
			switch r {
			case 0x37F, 0x528, 0x52A, 0x52C, 0x52E:
				continue
			}
		}
		if f := query.Fold(string(r)); f != want {
			t.Errorf("Fold(%q) (%U) = %q, SQLite stores %q", string(r), r, f, want)
		}
	}
}

func ExampleTokenize() {
	fmt.Printf("%q\n", query.Tokenize("See emag.ro, file.go:123 and C++!"))
	// Output: ["see" "emag" "ro" "file" "go" "123" "and" "c"]
}
