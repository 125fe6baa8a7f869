# The kv family's own rule: its tables (families/kv/tables.py) from its measurements: YCSB
# throughput, the bottleneck table, and seed 002's published numbers as a separate, labelled table.
# The bottleneck table also reads each point's meta.json (and the counters.csv beside it, which the
# point writes only where a counter source counted) and the host facts (each node's sockets).


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
        metas=lambda wc: [str(Path(p).parent / "meta.json") for p in point_results(wc.host, "kv")],
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
        "python -m families.kv.tables --measurements {input.csv} --reference {input.ref} {params.chars} "
        "--dimms {params.dimms:q} --facts {input.facts} --out results/{wildcards.host}/tables {input.metas} > {log} 2>&1"
