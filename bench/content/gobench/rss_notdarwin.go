//go:build !darwin

package main

const isDarwin = false
