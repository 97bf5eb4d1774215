// Command edgetwin is the digital twin of an edge SoC running LLM
// inference. See the README for a tour; `edgetwin help` lists the commands.
package main

import "os"

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
