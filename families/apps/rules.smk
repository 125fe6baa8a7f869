# The apps family's own rule: a Kronecker graph for PageRank, made once with GAPBS's converter
# (the graph parameter kron:SCALE of workloads/gapbs/workload.py).


rule gapbs_graph:
    input:
        "build/bin/gapbs-converter",
    output:
        "build/graphs/kron{scale}-k16.sg",
    conda:
        "../../environment.yml"
    log:
        "build/logs/graph-kron{scale}-k16.log",
    wildcard_constraints:
        scale=r"\d+",
    shell:
        "build/bin/gapbs-converter -g {wildcards.scale} -k 16 -b {output} > {log} 2>&1"
