// Command empty is the floor of bench/startup: a Go program that does
// nothing, built with the same toolchain and flags as paneteam.
package main

func main() {}
