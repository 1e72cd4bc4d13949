package connect_test

import (
	"context"

	"google.golang.org/grpc/metadata"
)

// metadataCtx carries key as gRPC's authorization metadata (none when empty).
func metadataCtx(key string) context.Context {
	if key == "" {
		return context.Background()
	}
	return metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+key)
}
