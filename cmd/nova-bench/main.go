// Command nova-bench generates LDBC-SNB-like data and load-tests a
// novagraph cluster the way nebula-bench does; see bench/ldbc.
//
//	nova-bench gen   --sf 1 --out data/sf1          LDBC CsvComposite Person/knows
//	nova-bench run   --addr 127.0.0.1:9669 ...      GO/FETCH/INSERT scenarios, concurrency sweep
//	nova-bench floor --data data/sf1 ...            the same k-hop on an in-process RocksDB
//	nova-bench seed  --space slashdot ...           Q1–Q9 seed workload on a SNAP graph
//	nova-bench verify --space ldbc --data data/sf1  an imported space against its files
package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/novagraph/novagraph/internal/buildinfo"
)

func main() {
	root := &cobra.Command{
		Use:           "nova-bench",
		Short:         "LDBC-SNB-like data generator and load driver for novagraph",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       buildinfo.Read().String("nova-bench"),
	}
	root.SetVersionTemplate("{{.Version}}\n")
	root.AddCommand(newGenCmd(), newRunCmd(), newFloorCmd(), newSeedCmd(), newVerifyCmd())
	if err := root.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "nova-bench:", err)
		os.Exit(1)
	}
}
