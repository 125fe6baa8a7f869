# The apps family's own rules: the inputs its applications read, each made once into build/.


# Inputs of measured points, made on the host that measures them.
localrules:
    gapbs_graph,
    cachebench_config,


rule gapbs_graph:
    """A Kronecker graph for PageRank, made with GAPBS's converter (the graph parameter kron:SCALE
    of workloads/gapbs/workload.py)."""
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
    # never beside a measured point: SCHED_IDLE keeps its CPU time away, not its memory traffic (in
    # one quick run Silo's 0x reference ran beside it and measured slower than Silo beside the
    # antagonist: docs/fidelity.md); and so before the next measured point once it can run
    resources:
        measure=1,
    priority: MEASURED_INPUT_PRIORITY
    shell:
        "sh workflows/harness/yield_cpu.sh $$; build/bin/gapbs-converter -g {wildcards.scale} -k 16 -b {output} > {log} 2>&1"


rule cachebench_config:
    """CacheBench's HeMemKV test config for a size, length and thread count
    (workloads/cachebench/workload.py)."""
    input:
        "workloads/cachebench/workload.py",
    output:
        "build/cachebench/hememkv-keys{nkeys}-ops{ops}-threads{threads}.json",
    conda:
        "../../environment.yml"
    log:
        "build/logs/cachebench-config-keys{nkeys}-ops{ops}-threads{threads}.log",
    wildcard_constraints:
        nkeys=r"\d+",
        ops=r"\d+",
        threads=r"\d+",
    priority: BUILD_PRIORITY
    shell:
        "sh workflows/harness/yield_cpu.sh $$; python -m workloads.cachebench.workload config --keys {wildcards.nkeys} --ops-per-thread {wildcards.ops}"
        " --threads {wildcards.threads} > {output} 2> {log}"
