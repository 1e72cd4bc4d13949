package annals

import "context"

// Statement is one SQL statement a store is about to run, with its bound arguments in order.
type Statement struct {
	SQL  string
	Args []any
}

type statementTraceKey struct{}

// NewContextWithStatementTrace returns a copy of ctx under which a store reports the SQL
// statements of its search methods (SearchChats, SearchEntries; the PostgreSQL store also those
// of FindChats and FindEmbeddings) to fn, just before running each one. It exists so that the benchmark harness (package bench) can replay exactly the SQL a
// store ran in the database's native client (the sqlite3 command-line tool, psql) and report
// the library's overhead as a ratio, and for debugging a slow query. fn runs on the calling goroutine, must
// not keep Args past the call unless it copies them, and must be safe for concurrent use when
// the context is shared.
func NewContextWithStatementTrace(ctx context.Context, fn func(Statement)) context.Context {
	return context.WithValue(ctx, statementTraceKey{}, fn)
}

// TraceStatement reports a statement to the trace carried by ctx, if any. Stores call it right
// before they run a traced statement; without a trace it costs one context lookup.
func TraceStatement(ctx context.Context, sql string, args []any) {
	if fn, ok := ctx.Value(statementTraceKey{}).(func(Statement)); ok && fn != nil {
		fn(Statement{SQL: sql, Args: append([]any(nil), args...)})
	}
}
