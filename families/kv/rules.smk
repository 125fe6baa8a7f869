# The kv family's own rule: its tables (families/kv/tables.py) from its measurements: YCSB
# throughput, the bottleneck table, and seed 002's published numbers as a separate, labelled table.


localrules:
    kv_tables,


rule kv_tables:
    input:
        csv="results/{host}/kv/measurements.csv",
        ref="analysis/reference/published_numbers.csv",
        code=["families/kv/tables.py"],
    output:
        "results/{host}/tables/kv_throughput.md",
        "results/{host}/tables/kv_bottleneck.md",
        "results/{host}/tables/kv_reference.md",
    conda:
        "../../environment.yml"
    log:
        "results/{host}/logs/kv_tables.log",
    shell:
        "python -m families.kv.tables --measurements {input.csv} --reference {input.ref} "
        "--out results/{wildcards.host}/tables > {log} 2>&1"
