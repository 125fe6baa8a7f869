# The characterize family: memchar (and Intel MLC where the profile names it) per
# (CPU node, memory node) pair. One job per point; points never overlap on a host
# (resource "measure" and the host lock in workflows.harness.measure).
rule memchar_latency:
    input:
        bin="build/bin/memchar",
        facts=f"results/{HOST}/host_facts.json",
    output:
        result=f"results/{HOST}/characterize/idle_latency/{{pair}}/result.csv",
        meta=f"results/{HOST}/characterize/idle_latency/{{pair}}/meta.json",
    conda:
        "../../environment.yml"
    log:
        f"results/{HOST}/characterize/idle_latency/{{pair}}/log",
    benchmark:
        f"results/{HOST}/benchmarks/characterize/idle_latency/{{pair}}.tsv"
    resources:
        measure=1,
    params:
        spec=lambda wc, output: memchar_spec(wc, output, "latency"),
    shell:
        "printf '%s' {params.spec:q} | python -m workflows.harness.measure - > {log} 2>&1"


rule memchar_bandwidth:
    input:
        bin="build/bin/memchar",
        facts=f"results/{HOST}/host_facts.json",
    output:
        result=f"results/{HOST}/characterize/bandwidth/{{pair}}/{{op}}/result.csv",
        meta=f"results/{HOST}/characterize/bandwidth/{{pair}}/{{op}}/meta.json",
    conda:
        "../../environment.yml"
    log:
        f"results/{HOST}/characterize/bandwidth/{{pair}}/{{op}}/log",
    benchmark:
        f"results/{HOST}/benchmarks/characterize/bandwidth/{{pair}}/{{op}}.tsv"
    resources:
        measure=1,
    params:
        spec=lambda wc, output: memchar_spec(wc, output, "bandwidth"),
    shell:
        "printf '%s' {params.spec:q} | python -m workflows.harness.measure - > {log} 2>&1"


rule memchar_loaded:
    input:
        bin="build/bin/memchar",
        facts=f"results/{HOST}/host_facts.json",
    output:
        result=f"results/{HOST}/characterize/loaded_latency/{{pair}}/{{op}}/result.csv",
        meta=f"results/{HOST}/characterize/loaded_latency/{{pair}}/{{op}}/meta.json",
    conda:
        "../../environment.yml"
    log:
        f"results/{HOST}/characterize/loaded_latency/{{pair}}/{{op}}/log",
    benchmark:
        f"results/{HOST}/benchmarks/characterize/loaded_latency/{{pair}}/{{op}}.tsv"
    resources:
        measure=1,
    params:
        spec=lambda wc, output: memchar_spec(wc, output, "loaded"),
    shell:
        "printf '%s' {params.spec:q} | python -m workflows.harness.measure - > {log} 2>&1"


rule memchar_objsize:
    input:
        bin="build/bin/memchar",
        facts=f"results/{HOST}/host_facts.json",
    output:
        result=f"results/{HOST}/characterize/object_latency/{{pair}}/{{op}}/result.csv",
        meta=f"results/{HOST}/characterize/object_latency/{{pair}}/{{op}}/meta.json",
    conda:
        "../../environment.yml"
    log:
        f"results/{HOST}/characterize/object_latency/{{pair}}/{{op}}/log",
    benchmark:
        f"results/{HOST}/benchmarks/characterize/object_latency/{{pair}}/{{op}}.tsv"
    resources:
        measure=1,
    params:
        spec=lambda wc, output: memchar_spec(wc, output, "objsize"),
    shell:
        "printf '%s' {params.spec:q} | python -m workflows.harness.measure - > {log} 2>&1"


rule mlc:
    input:
        facts=f"results/{HOST}/host_facts.json",
    output:
        result=f"results/{HOST}/characterize/mlc/{{mode}}/result.csv",
        meta=f"results/{HOST}/characterize/mlc/{{mode}}/meta.json",
    conda:
        "../../environment.yml"
    log:
        f"results/{HOST}/characterize/mlc/{{mode}}/log",
    benchmark:
        f"results/{HOST}/benchmarks/characterize/mlc/{{mode}}.tsv"
    wildcard_constraints:
        mode="latency_matrix|bandwidth_matrix|loaded_latency",
    resources:
        measure=1,
    params:
        spec=mlc_spec,
    shell:
        "printf '%s' {params.spec:q} | python -m workflows.harness.measure - > {log} 2>&1"


rule tier_curves:
    input:
        lambda wc: [
            f"results/{HOST}/characterize/loaded_latency/{pid}/{plans.OP_SLUG[o]}/result.csv"
            for pid in CH_PLAN["injectors"]
            for o in CH["loaded"]["ops"]
        ],
    output:
        directory(f"results/{HOST}/curves"),
    conda:
        "../../environment.yml"
    log:
        f"results/{HOST}/logs/tier_curves.log",
    shell:
        "python -m analysis.curves --out {output} {input} > {log} 2>&1"
