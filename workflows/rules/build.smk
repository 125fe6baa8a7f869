# Build each C binary into build/bin/ with its component's Makefile (incremental: make does the
# work). The recipes come from the workload and family tool modules (BUILD; workflows/harness/
# tools.py). One job per binary, so a failure in one component stops only the points that need it.


rule build_tool:
    input:
        lambda wc: tools.sources(BUILD[wc.tool]),
    output:
        "build/bin/{tool}",
    conda:
        "../../environment.yml"
    log:
        "build/logs/{tool}.log",
    wildcard_constraints:
        tool="|".join(BUILD),
    params:
        dirs=lambda wc: " ".join(BUILD[wc.tool]["make"]),
    shell:
        "for d in {params.dirs}; do make --no-print-directory -C $d; done > {log} 2>&1"
