# The kv family's own rule: its tables (families/kv/tables.py) from its measurements: YCSB
# throughput, the bottleneck table, and seed 002's published numbers as a separate, labelled table.
# The bottleneck table also reads the host's counters table (every point's counters: the core's
# counter_table rule, analysis/counters.py) and the host facts (each node's sockets).


localrules:
    kv_tables,


rule kv_tables:
    input:
        csv="results/{host}/kv/measurements.csv",
        ref="analysis/reference/published_numbers.csv",
        code=["families/kv/tables.py"],
        # memchar's peak bandwidth per node, where characterize runs on this host
        chars=lambda wc: [f"results/{wc.host}/characterize/measurements.csv"] if "characterize" in HOSTS[wc.host].active else [],
        facts="results/{host}/host_facts.json",
        counters="results/{host}/counters.csv",
    output:
        "results/{host}/tables/kv_throughput.md",
        "results/{host}/tables/kv_bottleneck.md",
        "results/{host}/tables/kv_reference.md",
    conda:
        "../../environment.yml"
    log:
        "results/{host}/logs/kv_tables.log",
    params:
        chars=lambda wc, input: f"--characterize {input.chars[0]}" if input.chars else "",
        dimms=lambda wc: json.dumps({t["node"]: t["dimms"] for t in HOSTS[wc.host].profile["tiers"]
                                     if t.get("kind") == "numa" and t.get("dimms")}),
    shell:
        "sh workflows/harness/yield_cpu.sh $$; python -m families.kv.tables --measurements {input.csv} --reference {input.ref} {params.chars} "
        "--dimms {params.dimms:q} --facts {input.facts} --counter-table {input.counters} "
        "--out results/{wildcards.host}/tables > {log} 2>&1"
