package connect

import (
	"errors"
	"fmt"
	"net/http"

	rpc "connectrpc.com/connect"

	"github.com/annals-dev/annals"
	v1 "github.com/annals-dev/annals/connect/annalsv1"
	"github.com/annals-dev/annals/httpapi"
)

// codes maps each annals error code (the root's and the HTTP layer's) to its Connect code,
// which is also its gRPC status code: the one table both directions read.
var codes = []struct {
	annals string
	rpc    rpc.Code
}{
	{annals.EINVALID, rpc.CodeInvalidArgument},
	{annals.ENOTFOUND, rpc.CodeNotFound},
	{annals.EFORBIDDEN, rpc.CodePermissionDenied},
	{annals.ECONFLICT, rpc.CodeAlreadyExists},
	{annals.EUNAVAILABLE, rpc.CodeUnavailable},
	{annals.ENOTIMPLEMENTED, rpc.CodeUnimplemented},
	{annals.EINTERNAL, rpc.CodeInternal},
	{httpapi.CodeUnauthorized, rpc.CodeUnauthenticated},
	{httpapi.CodeTooLarge, rpc.CodeResourceExhausted},
	{httpapi.CodeTooManyRequests, rpc.CodeResourceExhausted},
	{httpapi.CodeMethodNotAllowed, rpc.CodeUnimplemented},
}

// CodeOf is the Connect (and gRPC) code of an annals error code; internal for any other.
func CodeOf(code string) rpc.Code {
	for _, c := range codes {
		if c.annals == code {
			return c.rpc
		}
	}
	return rpc.CodeInternal
}

// annalsCodeOf is the annals code of a Connect code, for an error that carries no ErrorInfo
// (one a proxy or the protocol itself made): the first code of the table that maps to it.
func annalsCodeOf(code rpc.Code) string {
	for _, c := range codes {
		if c.rpc == code {
			return c.annals
		}
	}
	if code == rpc.CodeCanceled || code == rpc.CodeDeadlineExceeded {
		return annals.EUNAVAILABLE
	}
	return annals.EINTERNAL
}

// rpcError is err as the Connect error a caller sees: the code of its annals code, the
// caller-facing message (never an internal cause) and an ErrorInfo detail with the annals code,
// the failed op of a batch and the server's API version.
func rpcError(err error) *rpc.Error {
	code := annals.ErrorCode(err)
	msg := annals.ErrorMessage(err)
	if msg == "" {
		msg = code
	}
	e := rpc.NewError(CodeOf(code), errors.New(msg))
	info := &v1.ErrorInfo{Code: code, ApiVersion: annals.APIVersion}
	if i, ok := annals.BatchIndex(err); ok {
		n := int32(i)
		info.Index = &n
	}
	if d, derr := rpc.NewErrorDetail(info); derr == nil {
		e.AddDetail(d)
	}
	return e
}

// errorInfo is the ErrorInfo detail an annals server put on its error, or nil: an error the
// protocol or a proxy made carries none.
func errorInfo(ce *rpc.Error) *v1.ErrorInfo {
	for _, d := range ce.Details() {
		v, err := d.Value()
		if info, ok := v.(*v1.ErrorInfo); err == nil && ok && info.GetCode() != "" {
			return info
		}
	}
	return nil
}

// annalsError is a Connect error as the *annals.Error (or *annals.BatchError) it carries, with
// the Connect error kept as its cause.
func annalsError(procedure string, err error) error {
	var ce *rpc.Error
	if !errors.As(err, &ce) {
		return &annals.Error{Code: annals.EUNAVAILABLE, Message: fmt.Sprintf("cannot call %s: %v", procedure, err), Err: err}
	}
	if info := errorInfo(ce); info != nil {
		out := &annals.Error{Code: info.GetCode(), Message: ce.Message(), Err: err}
		if info.Index != nil {
			return &annals.BatchError{Index: int(info.GetIndex()), Err: out}
		}
		return out
	}
	if ce.Code() == rpc.CodeUnimplemented || ce.Code() == rpc.CodeNotFound {
		// Not an annals error (every one carries its ErrorInfo): the server has no such
		// procedure, an API older (or newer) than this client's. An annals server from before
		// the Connect API answers the path with its JSON 404, whose "code" reads as not_found.
		return annals.MissingOnServer(ce.Meta().Get(annals.APIVersionHeader), "call "+procedure, err)
	}
	code := annalsCodeOf(ce.Code())
	msg := ce.Message()
	if msg == "" {
		msg = fmt.Sprintf("the server answered %s to %s", ce.Code(), procedure)
	}
	if ce.Code() == rpc.CodeUnavailable {
		msg = fmt.Sprintf("cannot reach the annals server for %s: %s", procedure, msg)
	}
	return &annals.Error{Code: code, Message: msg, Err: err}
}

// WriteError answers err in the request's protocol: what the HTTP server refused before the
// handler ran (no key, a body too large, too many failed authentications).
func (h *Handler) WriteError(w http.ResponseWriter, r *http.Request, err error) {
	if werr := h.errors.Write(w, r, rpcError(err)); werr != nil {
		http.Error(w, annals.ErrorMessage(err), httpapi.StatusOf(annals.ErrorCode(err)))
	}
}
