#!/bin/sh
# table.sh RESULTS.json - the tables of one kernel's benchmark: every
# figure against a peer measured in the same boot, and the target.
f=$1
jq -r '
def r(x): (x * 100 | round) / 100;
.results as $r |
"== \(.kernel) (\(.machine), medians of \([.results[].runs] | unique | map(tostring) | join(" or ")) runs, as each figure in the file says)",
"B1 decode: events per CPU-second of each tool on one trace.dat, written by nopctl record or a trace-cmd release (its default layout), against the report of the release that wrote it (trace-cmd 3.1.6 for nopctl files); on a compressed file, \"decompression alone\" is the share of libzstd or zlib in nopctl report --stats (perf) as events per CPU-second: no reader of that file goes faster",
( $r | map(select(.bench == "B1")) | group_by(.file // "nopctl")[] |
  (map(select(.tool | startswith("trace-cmd")))[0].events_per_cpu_s) as $tc |
  "  file by \(.[0].file // "nopctl") (\(.[0].events) events\(if .[0].bytes then ", \(.[0].bytes / 1048576 | . * 10 | round / 10) MB" else "" end))",
  ( .[] | "    \(.tool | . + " " * (26 - length)) \(.events_per_cpu_s) ev/CPU-s  \(if $tc then "x\(r(.events_per_cpu_s / $tc)) trace-cmd" else "" end)" ) ),
"  targets: text x20, JSON x10, stats x50 on the files of trace-cmd 3.1.6 and 3.3, each against its own report",
"B2 live streaming (function_graph, root do_sys_openat2): do_sys_openat2 trees delivered / calls the opener made; events delivered / expected, lost as each tool counts it, reader CPU-s per million events",
( $r[] | select(.bench == "B2" and .tool == "kernel alone") |
  "  rate \(if .rate == 0 then "max " else (.rate | tostring) + "/s" end) kernel alone: \(.kernel_us_per_event) us of the workload'"'"'s CPU per event written (traced with no reader, against untraced); a reader'"'"'s cpu/M over 1e6 is its own us per event" ),
( $r[] | select(.bench == "B2" and .tool != "kernel alone") |
  "  rate \(if .rate == 0 then "max " else (.rate | tostring) + "/s" end) \(.tool | . + " " * (10 - length)) trees \(.roots // "-")/\(.calls // "-")  events \(.delivered)/\(.expected_opener)  lost \(.lost) (\(if (.lost + .delivered) > 0 then r(100 * .lost / (.lost + .delivered)) else 0 end) %)  cpu/M \(.cpu_s_per_million)  (workload \(r(.workload_s)) s)" ),
"  targets: no loss where trace-cmd stream loses none, fewest lost at max, CPU per event <= 1/3 of trace-cmd stream",
"B3 start / stop latency, seconds (median)",
( $r[] | select(.bench == "B3") |
  "  \(.pattern) (\(.functions) functions) \(.tool | . + " " * (10 - length)) start \(r(.median_start_s))  stop \(r(.median_stop_s))" ),
"  target: each at most half of the faster peer",
"B6'"'"' start / stop with N user functions probed, seconds (median): from the tracer'"'"'s launch to the program'"'"'s main, from its end to the tracer'"'"'s exit",
( $r[] | select(.bench == "B6p") |
  "  \(.functions) functions \(.tool | . + " " * (13 - length)) \(if .failed then "failed: \(.failed)" else "start \(r(.median_start_s))  stop \(r(.median_stop_s))" end)" ),
"  target: start + stop of 10,000 functions <= 5 s",
"B4 peak RSS",
( $r[] | select(.bench == "B4") | "  \(.tool) \(.events_millions)M events: \(.maxrss_kb) KB (exit \(.exit))" ),
"  target: under 16 MB, 1M and 10M within 10 %",
"B5 workload wall time, seconds (median); kernel: traced with no reader (the cost of the kernel alone per event, the floor a reader adds to)",
( ($r | map(select(.bench == "B5")) | map({(.tool): .median_wall_s}) | add) as $w |
  $r[] | select(.bench == "B5") |
  "  \(.tool | . + " " * (18 - length)) \(r(.median_wall_s))\(if .events and $w.untraced and .tool != "untraced" then "  \((.median_wall_s - $w.untraced) * 1e6 / .events | . * 1000 | round / 1000) us/event over untraced\(if $w.kernel and .tool != "kernel" then ", \((.median_wall_s - $w.kernel) * 1e6 / .events | . * 1000 | round / 1000) over the kernel alone" else "" end)" else "" end)" ),
"  target: nopctl record no worse than the record of any trace-cmd release",
"B6 user-space function (bench_fn in libubench.so): loop ns per call, the cost a traced call adds, x the untraced loop, tracer CPU us per call, events delivered / calls (perf-return: entry and return events, two per call)",
( $r[] | select(.bench == "B6" and .rate == null) |
  "  \(.tool | . + " " * (14 - length)) \(.ns_per_call) ns/call  +\(.overhead_ns_per_call) ns  x\(.ratio_untraced)  cpu \(.reader_cpu_us_per_event // "-") us/call  \(.delivered // "-")/\(.calls)" ),
( $r[] | select(.bench == "B6" and .rate != null) |
  "  at \(.rate)/s asked (\(.achieved_per_s)/s reached): \(.delivered)/\(.calls) delivered, exit \(.exit)" ),
( ($r | map(select(.bench == "B6" and .rate == null)) | map({(.tool): .}) | add) as $b |
  if $b and $b["nopctl-entry"] and $b["perf-entry"] then
  "  nopctl/perf cost per call: entry x\(r($b["nopctl-entry"].overhead_ns_per_call / $b["perf-entry"].overhead_ns_per_call)), entry+return x\(r($b["nopctl-return"].overhead_ns_per_call / $b["perf-return"].overhead_ns_per_call)); tracer CPU per call: entry x\(r($b["nopctl-entry"].reader_cpu_us_per_event / $b["perf-entry"].reader_cpu_us_per_event)) (trace, printing each) x\(r($b["nopctl-record"].reader_cpu_us_per_event / $b["perf-entry"].reader_cpu_us_per_event)) (record), entry+return x\(r($b["nopctl-return"].reader_cpu_us_per_event / $b["perf-return"].reader_cpu_us_per_event)) perf"
  else empty end ),
"  targets: cost per call within 1.5x of perf, tracer CPU <= 1/3 of perf, no loss at 100k calls/s",
"B7 reading alone (trace_marker events, records walked): reader CPU ns per event, read() of trace_pipe_raw against the mapped ring buffer (6.10+)",
( $r[] | select(.bench == "B7") | "  \(.tool | . + " " * (6 - length)) \(if .supported == false then "not offered by this kernel" else "\(.median_ns_per_event) ns/event (\(.read | min) to \(.read | max) of \(.events) read)" end)" ),
"B8 catch while nothing is caught (opens that succeed, root do_sys_openat2): workload wall time (median) and over the kernel alone; nopctl'"'"'s own CPU per root call (us); catch latency; peak RSS",
( ($r | map(select(.bench == "B8" and .median_wall_s)) | map({(.tool): .}) | add) as $b |
  $r[] | select(.bench == "B8" and .median_wall_s) |
  "  \(.tool | . + " " * (18 - length)) wall \(r(.median_wall_s)) s\(if $b.kernel and .tool != "kernel" and .tool != "untraced" then " (x\(r(.median_wall_s / $b.kernel.median_wall_s)) the kernel alone)" else "" end)\(if .reader_us_per_root then "  reader \(.reader_us_per_root) us/root\(if $b.graph and .tool != "graph" then " (\(r(100 * .reader_us_per_root / $b.graph.reader_us_per_root)) % of graph)" else "" end)" else "" end)" ),
( $r[] | select(.bench == "B8" and .median_latency_s) | "  \(.tool): a catch \(.median_latency_s) s after the root call returned (\(.latency_s | min) to \(.latency_s | max))" ),
( $r[] | select(.bench == "B8" and .maxrss_kb) | "  \(.tool) \(.roots) root calls: \(.maxrss_kb) KB (exit \(.exit))" ),
"  targets: reader CPU per root <= 1/10 of graph, wall within 10 % of the kernel alone, a catch within 1 s, RSS flat (1 MB)"
' "$f"
