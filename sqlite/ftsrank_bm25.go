package sqlite

import (
	"encoding/binary"
	"math"
	"unsafe"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// rankBM25 is rankFunc: FTS5's bm25 (the same formula and constants, so the same scores) with
// each phrase's document count given by the caller instead of counted. bm25 counts the
// documents of every phrase of the MATCH with a pass over the phrase's whole doclist, once per
// statement: for a common word over a million entries, a phrase of common words, or the facet
// and owner tokens a filtered search narrows by, that pass costs more than the rows the
// search keeps. The counts come from ftsrank_counts.go's cache, and a phrase that cannot add to
// a score (held to columns of weight 0) is given a negative count and not scored at all.
//
// SQL: annals_bm25(fts_table, counts, w0, w1, ...): counts is a blob of one little-endian
// float64 per phrase of the MATCH, in FTS5's numbering; the weights are bm25's, per column,
// 1.0 for a column without one.
func rankBM25(tls *libc.TLS, pApi, pFts, pCtx uintptr, nVal int32, apVal uintptr) {
	const k1, b = 1.2, 0.75
	api := (*sqlite3.TFts5ExtensionApi)(cptr(pApi))
	nPhrase := int(fts5Int(api.FxPhraseCount)(tls, pFts))
	if nVal < 1 {
		rankError(tls, pCtx, "annals_bm25: the document counts of the phrases are missing")
		return
	}
	arg := func(i int32) uintptr { return *(*uintptr)(cptr(apVal + uintptr(i)*unsafe.Sizeof(uintptr(0)))) }
	counts := sqlite3.Xsqlite3_value_blob(tls, arg(0))
	if int(sqlite3.Xsqlite3_value_bytes(tls, arg(0))) != 8*nPhrase {
		rankError(tls, pCtx, "annals_bm25: the document counts do not match the MATCH's phrases")
		return
	}
	out := tls.Alloc(24) // nInst, iPhrase, iCol, iOff (int32 each), then an int64
	defer tls.Free(24)
	var freq [64]float64 // a MATCH of more phrases (a prefix's expansion) allocates
	var fr []float64
	if nPhrase > len(freq) {
		fr = make([]float64, nPhrase)
	} else {
		fr = freq[:nPhrase]
	}
	rc := fts5IntOut(api.FxInstCount)(tls, pFts, out)
	nInst := *(*int32)(cptr(out))
	for i := int32(0); rc == sqlite3.SQLITE_OK && i < nInst; i++ {
		rc = fts5Inst(api.FxInst)(tls, pFts, i, out+4, out+8, out+12)
		if rc != sqlite3.SQLITE_OK {
			break
		}
		ip, ic := *(*int32)(cptr(out + 4)), *(*int32)(cptr(out + 8))
		w := 1.0
		if nVal > 1+ic {
			w = sqlite3.Xsqlite3_value_double(tls, arg(1+ic))
		}
		fr[ip] += w
	}
	var D float64
	if rc == sqlite3.SQLITE_OK {
		rc = fts5ColumnOut(api.FxColumnSize)(tls, pFts, -1, out)
		D = float64(*(*int32)(cptr(out)))
	}
	var totals uintptr
	if rc == sqlite3.SQLITE_OK {
		totals, rc = indexTotals(tls, api, pFts, out+16)
	}
	if rc != sqlite3.SQLITE_OK {
		sqlite3.Xsqlite3_result_error_code(tls, pCtx, rc)
		return
	}
	nRow, avgdl := *(*float64)(cptr(totals)), *(*float64)(cptr(totals + 8))
	score := 0.0
	cb := unsafe.Slice((*byte)(cptr(counts)), 8*nPhrase)
	for i, f := range fr {
		nHit := math.Float64frombits(binary.LittleEndian.Uint64(cb[8*i:]))
		if nHit < 0 || f == 0 {
			continue
		}
		// A count kept from before a delete may exceed the rows left: held to them, as the
		// log of a negative number is NaN (which the floor below would not catch).
		nHit = min(nHit, nRow)
		idf := math.Log((nRow - nHit + 0.5) / (nHit + 0.5))
		if !(idf > 0) {
			idf = 1e-6
		}
		score += idf * ((f * (k1 + 1)) / (f + k1*(1-b+b*D/avgdl))) // bm25's grouping, for the same rounding
	}
	sqlite3.Xsqlite3_result_double(tls, pCtx, -score)
}

// indexTotals is the index's row count (at least 1) and average row length in tokens, as two
// float64 in memory the cursor keeps (xSetAuxdata), read once per statement as bm25 does:
// reading them for every row costs a read of the index's averages record each time. out is 8
// bytes of scratch.
func indexTotals(tls *libc.TLS, api *sqlite3.TFts5ExtensionApi, pFts, out uintptr) (uintptr, int32) {
	if p := fts5GetAux(api.FxGetAuxdata)(tls, pFts, 0); p != 0 {
		return p, sqlite3.SQLITE_OK
	}
	rc := fts5IntOut(api.FxRowCount)(tls, pFts, out)
	nRow := max(float64(*(*int64)(cptr(out))), 1)
	if rc != sqlite3.SQLITE_OK {
		return 0, rc
	}
	if rc = fts5ColumnOut(api.FxColumnTotalSize)(tls, pFts, -1, out); rc != sqlite3.SQLITE_OK {
		return 0, rc
	}
	nTok := float64(*(*int64)(cptr(out)))
	p := sqlite3.Xsqlite3_malloc(tls, 16)
	if p == 0 {
		return 0, sqlite3.SQLITE_NOMEM
	}
	*(*float64)(cptr(p)), *(*float64)(cptr(p + 8)) = nRow, nTok/nRow
	// On failure xSetAuxdata frees p itself (through the destructor).
	if rc = fts5SetAux(api.FxSetAuxdata)(tls, pFts, p, cFuncPointer(sqlite3.Xsqlite3_free)); rc != sqlite3.SQLITE_OK {
		return 0, rc
	}
	return p, sqlite3.SQLITE_OK
}

// fts5GetAux is Fts5ExtensionApi.xGetAuxdata: the cursor's kept pointer (0: none).
func fts5GetAux(fp uintptr) func(*libc.TLS, uintptr, int32) uintptr {
	return *(*func(*libc.TLS, uintptr, int32) uintptr)(unsafe.Pointer(&struct{ uintptr }{fp}))
}

// fts5SetAux is Fts5ExtensionApi.xSetAuxdata: keep a pointer with its destructor.
func fts5SetAux(fp uintptr) func(*libc.TLS, uintptr, uintptr, uintptr) int32 {
	return *(*func(*libc.TLS, uintptr, uintptr, uintptr) int32)(unsafe.Pointer(&struct{ uintptr }{fp}))
}

// fts5Int is an Fts5ExtensionApi function of the context alone returning an int.
func fts5Int(fp uintptr) func(*libc.TLS, uintptr) int32 {
	return *(*func(*libc.TLS, uintptr) int32)(unsafe.Pointer(&struct{ uintptr }{fp}))
}

// fts5IntOut is an Fts5ExtensionApi function of the context writing one result through a
// pointer and returning a result code.
func fts5IntOut(fp uintptr) func(*libc.TLS, uintptr, uintptr) int32 {
	return *(*func(*libc.TLS, uintptr, uintptr) int32)(unsafe.Pointer(&struct{ uintptr }{fp}))
}

// fts5Inst is Fts5ExtensionApi.xInst: the phrase, column and offset of one instance.
func fts5Inst(fp uintptr) func(*libc.TLS, uintptr, int32, uintptr, uintptr, uintptr) int32 {
	return *(*func(*libc.TLS, uintptr, int32, uintptr, uintptr, uintptr) int32)(unsafe.Pointer(&struct{ uintptr }{fp}))
}

// fts5ColumnOut is an Fts5ExtensionApi function of a column (-1: every column) writing one
// result through a pointer (xColumnSize, xColumnTotalSize).
func fts5ColumnOut(fp uintptr) func(*libc.TLS, uintptr, int32, uintptr) int32 {
	return *(*func(*libc.TLS, uintptr, int32, uintptr) int32)(unsafe.Pointer(&struct{ uintptr }{fp}))
}

// rankError makes the call fail with msg.
func rankError(tls *libc.TLS, pCtx uintptr, msg string) {
	z := cString(tls, msg)
	defer sqlite3.Xsqlite3_free(tls, z)
	sqlite3.Xsqlite3_result_error(tls, pCtx, z, -1)
}
