# Build each C binary into build/bin/ with its component's Makefile (incremental: make
# does the work). One job per binary, so a failure in one component stops only the
# points that need it.


rule build_tool:
    input:
        lambda wc: tool_sources(wc.tool),
    output:
        "build/bin/{tool}",
    conda:
        "../../environment.yml"
    log:
        "build/logs/{tool}.log",
    wildcard_constraints:
        tool="|".join(TOOL_DIRS),
    params:
        dirs=lambda wc: " ".join(TOOL_DIRS[wc.tool]),
    shell:
        "for d in {params.dirs}; do make --no-print-directory -C $d; done > {log} 2>&1"
