package annals

// APIVersion is the version of the annals API: the HTTP routes and the op envelope
// (docs/HTTP.md, docs/OPERATIONS.md), the Connect/gRPC service (proto/annals/v1) and the
// clients' packages (clients/), which carry the same number. The server names it in the
// Annals-Api-Version header of every answer; a client that finds an operation missing on a
// server names both versions in its error (docs/CLIENTS.md). It changes with the API: the
// minor number when an operation or a field is added, the major one when one changes or goes.
const APIVersion = "1.0"

// APIVersionHeader is the HTTP header a server names its APIVersion in.
const APIVersionHeader = "Annals-Api-Version"

// MissingOnServer is the error of a client whose server lacks what it asked for (an operation,
// a route, a call): it names the server's API version (serverVersion, "" when the server named
// none: older than versioning) and the client's, and keeps cause for logs.
func MissingOnServer(serverVersion, what string, cause error) *Error {
	server := "an API version older than " + APIVersion + " (it names none)"
	if serverVersion != "" {
		server = "API version " + serverVersion
	}
	return &Error{Code: ENOTIMPLEMENTED, Err: cause, Message: "the annals server speaks " + server + " and has no " + what +
		", which this client (API version " + APIVersion + ") needs: upgrade the server, or use a client of the server's API version"}
}
