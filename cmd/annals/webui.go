package main

import (
	"log/slog"
	"net/http"

	"github.com/annals-dev/annals/web"
)

// newWebUI is the browser UI annals serve mounts at / (docs/WEB.md).
func newWebUI(logger *slog.Logger) (http.Handler, error) {
	return web.New(web.Config{Logger: logger})
}
