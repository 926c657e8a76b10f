// Command hello is the floor for any Go tool's start-up: a statically linked
// hello-world that bench/run.sh times beside agent-shell.
package main

import "fmt"

func main() { fmt.Println("hello") }
