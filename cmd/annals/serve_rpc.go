package main

import (
	"github.com/annals-dev/annals/connect"
	"github.com/annals-dev/annals/httpapi"
)

// rpcHandler is the Connect API `annals serve` mounts on its HTTP port: Connect, gRPC and
// gRPC-Web from one handler, behind the same keys and door as the HTTP routes
// (docs/CONNECT.md).
func rpcHandler() httpapi.RPC { return connect.NewHandler() }
