// Command nova-console is novagraph's nGQL console; see package console.
package main

import (
	"context"
	"os"

	"github.com/novagraph/novagraph/console"
)

func main() {
	os.Exit(console.Run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
