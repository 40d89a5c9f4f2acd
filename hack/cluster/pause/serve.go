package main

import (
	"net/http"
	"time"
)

// serve answers 200 "ok" on every path: a container for an httpGet probe.
func serve(addr string) error {
	server := &http.Server{
		Addr:              addr,
		ReadHeaderTimeout: 5 * time.Second,
		Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			_, _ = w.Write([]byte("ok\n"))
		}),
	}
	return server.ListenAndServe()
}
