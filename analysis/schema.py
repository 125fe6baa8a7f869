"""The long-form schema of measurements.csv (standard library only, so light
runners can use it without importing pandas)."""

COLUMNS = [
    "host", "backend", "family", "experiment", "workload", "system", "colloid", "intensity", "rep", "t_s",
    "metric", "value", "unit", "tool", "op", "threads", "cpu_node", "mem_node", "target", "size_bytes",
    "delay", "bandwidth_mbps", "iodepth", "block_bytes", "alt_latency_ns", "object_bytes",
    "static_hot_fraction", "point",
]
