package main

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"

	"github.com/annals-dev/annals"
)

// portFile is the lanius discovery file: where a running server listens.
type portFile struct {
	Port int    `json:"port"`
	Bind string `json:"bind"`
	PID  int    `json:"pid"`
}

// writePortFile writes the port file atomically (a reader never sees half a file), mode 0600.
func writePortFile(path string, addr net.Addr) error {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return annals.Internal("port file", err)
	}
	n, _ := strconv.Atoi(port)
	b, _ := json.Marshal(portFile{Port: n, Bind: host, PID: os.Getpid()})
	tmp, err := os.CreateTemp(filepath.Dir(path), ".annals-port-*")
	if err != nil {
		return fmt.Errorf("cannot write the port file %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err == nil {
		_, err = tmp.Write(append(b, '\n'))
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(tmp.Name(), path)
		}
		if err == nil {
			return nil
		}
	}
	tmp.Close()
	return fmt.Errorf("cannot write the port file %s: %w", path, err)
}

// removePortFile removes the port file on a clean stop, unless another process has rewritten it.
func removePortFile(path string) {
	b, err := os.ReadFile(path)
	if err != nil {
		return
	}
	var pf portFile
	if json.Unmarshal(b, &pf) == nil && pf.PID == os.Getpid() {
		os.Remove(path)
	}
}
