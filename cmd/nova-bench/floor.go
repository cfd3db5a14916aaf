package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/novagraph/novagraph/bench/ldbc/driver"
	"github.com/novagraph/novagraph/bench/ldbc/floor"
)

func newFloorCmd() *cobra.Command {
	var (
		data      dataFlags
		load      loadFlags
		fl        floorFlags
		scenarios string
	)
	cmd := &cobra.Command{
		Use:   "floor",
		Short: "Run the k-hop scenarios on an in-process RocksDB holding novagraph's keys (the storage floor)",
		Long: `floor loads the graph into an in-process RocksDB with the keys storaged writes
(out-edges, mirrored in-edges, tag rows, degrees; storaged's RocksDB options)
and runs GO 1/2/3 STEPS as raw prefix scans, with the same concurrency sweep,
sampling and histograms as nova-bench run: a lower bound on the latency and an
upper bound on the throughput any storage-backed GO can reach on this machine.
Scenarios: ` + strings.Join(driver.ScenarioNames(floor.Scenarios()), ", ") + ".",
		Example: `  nova-bench floor --data data/sf1 --partitions 10 --scenarios go1,go2,go3 --concurrency 1,4,16 --out out/floor`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := load.parse(cmd); err != nil {
				return err
			}
			scs, err := driver.FindScenarios(floor.Scenarios(), splitList(scenarios))
			if err != nil {
				return fmt.Errorf("--scenarios: %w", err)
			}
			if fl.partitions < 0 {
				return fmt.Errorf("--partitions %d: want > 0", fl.partitions)
			}
			if fl.partitions == 0 {
				fl.partitions = floor.DefaultPartitions
			}
			g, _, err := data.load(cmd, false, 0)
			if err != nil {
				return err
			}
			ctx, stop := signalContext(cmd)
			defer stop()
			rep := &driver.Report{Tool: "floor", Started: time.Now(), Scenarios: map[string]string{}, Config: map[string]any{
				"data": g.Source, "vertices": len(g.Vertices), "edges": len(g.Edges),
			}}
			for _, sc := range scs {
				rep.Scenarios[sc.Name] = fmt.Sprintf("%d-hop prefix scans (GO %d STEPS ... YIELD dst(edge))", sc.Steps, sc.Steps)
			}
			load.describe(rep.Config)
			runErr := floorSweeps(ctx, cmd, &fl, &load, g, scs, rep)
			return finish(cmd, rep, &load, runErr)
		},
	}
	data.add(cmd)
	load.add(cmd)
	fl.add(cmd, fmt.Sprintf("partition count (the space's partition_num; default %d)", floor.DefaultPartitions))
	cmd.Flags().StringVar(&scenarios, "scenarios", "go1,go2,go3", "comma-separated scenarios: "+strings.Join(driver.ScenarioNames(floor.Scenarios()), ", "))
	return cmd
}
