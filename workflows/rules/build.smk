# Build each C binary into build/bin/ with its component's Makefile (incremental: make does the
# work). The recipes come from the workload and family tool modules (BUILD; workflows/harness/
# tools.py). The shared libraries (lib/, colloid/) are jobs of their own, inputs of the tool jobs,
# so parallel tool builds never race on them. One job per binary, so a failure in one component
# stops only the points that need it.


# Builds run where snakemake runs, on the host whose binaries they are (also under a cluster executor).
localrules:
    build_libtbutil,
    build_libcolloid,
    build_tool,
    source_archive,


rule build_libtbutil:
    input:
        tools.sources(tools.LIBRARIES["lib"]["sources"]),
    output:
        tools.LIBRARIES["lib"]["outputs"],
    conda:
        "../../environment.yml"
    log:
        "build/logs/lib.log",
    priority: BUILD_PRIORITY
    shell:
        "sh workflows/harness/yield_cpu.sh $$; make --no-print-directory -C lib > {log} 2>&1"


rule build_libcolloid:
    input:
        tools.sources(tools.LIBRARIES["colloid"]["sources"]),
    output:
        tools.LIBRARIES["colloid"]["outputs"],
    conda:
        "../../environment.yml"
    log:
        "build/logs/colloid.log",
    priority: BUILD_PRIORITY
    shell:
        "sh workflows/harness/yield_cpu.sh $$; make --no-print-directory -C colloid > {log} 2>&1"


rule build_tool:
    input:
        lambda wc: tools.inputs(BUILD[wc.tool]),
    output:
        "build/bin/{tool}",
    conda:
        "../../environment.yml"
    log:
        "build/logs/{tool}.log",
    wildcard_constraints:
        tool="|".join(re.escape(t) for t in BUILD),
    params:
        command=lambda wc: tools.command(wc.tool, BUILD[wc.tool]),
    priority: BUILD_PRIORITY
    shell:
        "sh workflows/harness/yield_cpu.sh $$; ( {params.command} ) > {log} 2>&1"


rule source_archive:
    """A pinned upstream archive, from the sources directory (config `sources`) or GitHub, verified
    by its SHA-256 (workloads/upstream.py)."""
    output:
        "build/src/archives/{archive}",
    conda:
        "../../environment.yml"
    log:
        "build/logs/archive-{archive}.log",
    wildcard_constraints:
        archive="|".join(re.escape(a) for a in PINS),
    priority: BUILD_PRIORITY
    shell:
        "sh workflows/harness/yield_cpu.sh $$; python -m workloads.upstream fetch {wildcards.archive:q} --out {output:q} > {log} 2>&1"
