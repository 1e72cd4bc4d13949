package sqlite

import (
	"errors"
	"fmt"
	"reflect"
	"sync"
	"unsafe"

	"modernc.org/libc"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// This file registers rankFunc, an FTS5 auxiliary function, on every connection the driver
// opens. FTS5 registers its own functions (bm25) through fts5_api.xCreateFunction, which the
// driver does not expose: the handle of a connection is an unexported field of its connection,
// and fts5_api is reached through sqlite3_bind_pointer, which database/sql cannot bind. Both
// are reached here through the driver's C library (modernc.org/sqlite/lib, a public package of
// the same module) the way the driver itself calls it. The field is found by name and checked
// by kind, so a driver whose connection changed shape fails every open with a clear error (and
// the tests) rather than misbehaving.

// rankFunc is the FTS5 auxiliary function rank.go builds its scores with.
const rankFunc = "annals_bm25"

// registerRankHook makes the driver register rankFunc on each connection it opens, process-wide
// and once (the driver's connection hooks are process-wide: the same documented exception as
// registerIndexText).
var registerRankHook = sync.OnceFunc(func() {
	sqlite.RegisterConnectionHook(func(c sqlite.ExecQuerierContext, _ string) error {
		return registerRank(c)
	})
})

// registerRank registers rankFunc on one open connection of the driver.
func registerRank(c any) error {
	v := reflect.ValueOf(c)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("register %s: the sqlite driver's connection is a %T, not a struct", rankFunc, c)
	}
	f := v.Elem().FieldByName("db")
	if !f.IsValid() || f.Kind() != reflect.Uintptr || f.Uint() == 0 {
		return fmt.Errorf("register %s: the sqlite driver's connection has no database handle (modernc.org/sqlite changed shape)", rankFunc)
	}
	db := uintptr(f.Uint())
	tls := libc.NewTLS()
	defer tls.Close()
	api, err := fts5API(tls, db)
	if err != nil {
		return fmt.Errorf("register %s: %w", rankFunc, err)
	}
	name := cString(tls, rankFunc)
	defer sqlite3.Xsqlite3_free(tls, name)
	create := *(*func(*libc.TLS, uintptr, uintptr, uintptr, uintptr, uintptr) int32)(unsafe.Pointer(&struct{ uintptr }{(*sqlite3.Tfts5_api)(cptr(api)).FxCreateFunction}))
	if rc := create(tls, api, name, 0, cFuncPointer(rankBM25), 0); rc != sqlite3.SQLITE_OK {
		return fmt.Errorf("register %s: fts5 xCreateFunction returned %d", rankFunc, rc)
	}
	return nil
}

// fts5API is the connection's fts5_api, as FTS5 documents reaching it: SELECT fts5(?1) with a
// pointer of type "fts5_api_ptr" bound to ?1.
func fts5API(tls *libc.TLS, db uintptr) (uintptr, error) {
	sql := cString(tls, "SELECT fts5(?1)")
	defer sqlite3.Xsqlite3_free(tls, sql)
	typ := cString(tls, "fts5_api_ptr")
	defer sqlite3.Xsqlite3_free(tls, typ)
	slots := sqlite3.Xsqlite3_malloc(tls, 16) // the statement, then the api pointer
	if slots == 0 {
		return 0, errors.New("out of memory")
	}
	defer sqlite3.Xsqlite3_free(tls, slots)
	stmtSlot, apiSlot := (*uintptr)(cptr(slots)), (*uintptr)(cptr(slots+8))
	*stmtSlot, *apiSlot = 0, 0
	if rc := sqlite3.Xsqlite3_prepare_v2(tls, db, sql, -1, slots, 0); rc != sqlite3.SQLITE_OK {
		return 0, fmt.Errorf("prepare SELECT fts5(?1): %s", libc.GoString(sqlite3.Xsqlite3_errmsg(tls, db)))
	}
	stmt := *stmtSlot
	defer sqlite3.Xsqlite3_finalize(tls, stmt)
	if rc := sqlite3.Xsqlite3_bind_pointer(tls, stmt, 1, slots+8, typ, 0); rc != sqlite3.SQLITE_OK {
		return 0, fmt.Errorf("bind fts5_api_ptr: %d", rc)
	}
	if rc := sqlite3.Xsqlite3_step(tls, stmt); rc != sqlite3.SQLITE_ROW {
		return 0, fmt.Errorf("SELECT fts5(?1) returned %d", rc)
	}
	if *apiSlot == 0 {
		return 0, errors.New("FTS5 is not compiled into the driver")
	}
	return *apiSlot, nil
}

// cString copies s into SQLite's heap, NUL-terminated; the caller frees it.
func cString(tls *libc.TLS, s string) uintptr {
	p := sqlite3.Xsqlite3_malloc(tls, int32(len(s)+1))
	if p == 0 {
		return 0
	}
	b := unsafe.Slice((*byte)(cptr(p)), len(s)+1)
	copy(b, s)
	b[len(s)] = 0
	return p
}

// cptr is the address of C memory (SQLite's heap, never Go's) as a pointer. It reads the
// number's bits as a pointer instead of converting it, which is the same thing for memory
// the Go collector does not manage.
func cptr(u uintptr) unsafe.Pointer {
	return *(*unsafe.Pointer)(unsafe.Pointer(&u))
}

// cFuncPointer is a function declared at package level as the C function pointer the driver's
// library calls (the representation of https://golang.org/s/go11func, which the driver relies
// on for its own callbacks); undefined for closures.
func cFuncPointer[T any](f T) uintptr {
	return *(*uintptr)(unsafe.Pointer(&struct{ f T }{f}))
}
