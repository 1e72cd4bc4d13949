// Command annals keeps, searches and serves the history of AI-agent conversations.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	m := NewMain()
	err := m.Run(ctx, os.Args[1:])
	if cerr := m.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Exit(m.Fail(err))
	}
}
