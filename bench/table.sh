#!/bin/sh
# table.sh RESULTS.json - the tables of one kernel's benchmark: every
# figure against a peer measured in the same boot, and the target.
f=$1
jq -r '
def r(x): (x * 100 | round) / 100;
.results as $r |
"== \(.kernel) (\(.machine), median of \(.runs))",
"B1 decode: events per CPU-second on the same trace.dat (\($r | map(select(.bench == "B1")) | .[0].events // 0) events)",
( ($r | map(select(.bench == "B1" and .tool == "trace-cmd report"))[0].events_per_cpu_s) as $tc |
  $r[] | select(.bench == "B1") |
  "  \(.tool | . + " " * (24 - length)) \(.events_per_cpu_s) ev/CPU-s  \(if $tc then "x\(r(.events_per_cpu_s / $tc)) trace-cmd" else "" end)" ),
"  targets: report text x20, stats x50",
"B2 live streaming (function_graph, root do_sys_openat2): do_sys_openat2 trees delivered / calls the opener made; events delivered / expected, lost as each tool counts it, reader CPU-s per million events",
( $r[] | select(.bench == "B2") |
  "  rate \(if .rate == 0 then "max " else (.rate | tostring) + "/s" end) \(.tool | . + " " * (10 - length)) trees \(.roots // "-")/\(.calls // "-")  events \(.delivered)/\(.expected_opener)  lost \(.lost) (\(if (.lost + .delivered) > 0 then r(100 * .lost / (.lost + .delivered)) else 0 end) %)  cpu/M \(.cpu_s_per_million)  (workload \(r(.workload_s)) s)" ),
"  targets: no loss where trace-cmd stream loses none, fewest lost at max, CPU per event <= 1/3 of trace-cmd stream",
"B3 start / stop latency, seconds (median)",
( $r[] | select(.bench == "B3") |
  "  \(.pattern) (\(.functions) functions) \(.tool | . + " " * (10 - length)) start \(r(.median_start_s))  stop \(r(.median_stop_s))" ),
"  target: each at most half of the faster peer",
"B4 peak RSS",
( $r[] | select(.bench == "B4") | "  \(.tool) \(.events_millions)M events: \(.maxrss_kb) KB (exit \(.exit))" ),
"  target: under 16 MB, 1M and 10M within 10 %",
"B5 workload wall time, seconds (median)",
( $r[] | select(.bench == "B5") | "  \(.tool | . + " " * (10 - length)) \(r(.median_wall_s))" ),
"  target: nopctl graph no worse than trace-cmd record",
"B6 user-space function (bench_fn in libubench.so): loop ns per call, the cost a traced call adds, x the untraced loop, tracer CPU us per call, events delivered / calls (perf-return: entry and return events, two per call)",
( $r[] | select(.bench == "B6" and .rate == null) |
  "  \(.tool | . + " " * (14 - length)) \(.ns_per_call) ns/call  +\(.overhead_ns_per_call) ns  x\(.ratio_untraced)  cpu \(.reader_cpu_us_per_event // "-") us/call  \(.delivered // "-")/\(.calls)" ),
( $r[] | select(.bench == "B6" and .rate != null) |
  "  at \(.rate)/s asked (\(.achieved_per_s)/s reached): \(.delivered)/\(.calls) delivered, exit \(.exit)" ),
( ($r | map(select(.bench == "B6" and .rate == null)) | map({(.tool): .}) | add) as $b |
  if $b and $b["nopctl-entry"] and $b["perf-entry"] then
  "  nopctl/perf cost per call: entry x\(r($b["nopctl-entry"].overhead_ns_per_call / $b["perf-entry"].overhead_ns_per_call)), entry+return x\(r($b["nopctl-return"].overhead_ns_per_call / $b["perf-return"].overhead_ns_per_call)); tracer CPU per call: entry x\(r($b["nopctl-entry"].reader_cpu_us_per_event / $b["perf-entry"].reader_cpu_us_per_event)) (trace, printing each) x\(r($b["nopctl-record"].reader_cpu_us_per_event / $b["perf-entry"].reader_cpu_us_per_event)) (record), entry+return x\(r($b["nopctl-return"].reader_cpu_us_per_event / $b["perf-return"].reader_cpu_us_per_event)) perf"
  else empty end ),
"  targets: cost per call within 1.5x of perf, tracer CPU <= 1/3 of perf, no loss at 100k calls/s"
' "$f"
