//go:build !unix

package main

func fdWidth(uintptr) int { return 0 }
