// The protobuf compiler .ci/protogen runs: protocompile (the compiler buf is built on) in a
// module of its own, so the annals module does not depend on it.
module github.com/annals-dev/annals/ci/protoc

go 1.26.8

require (
	github.com/bufbuild/protocompile v0.14.1
	google.golang.org/protobuf v1.36.12
)

require golang.org/x/sync v0.24.0 // indirect
