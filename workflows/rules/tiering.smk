# The tiering family on modelled tiers: one tiersim job per point, in parallel on
# all cores (model points take no measurement lock). Points and their tiersim
# arguments come from workflows.harness.plans.tiering_points.


rule tiersim_point:
    input:
        bin="build/bin/tiersim",
    output:
        result=f"results/{HOST}/tiering/{{experiment}}/{{point}}/result.csv",
        meta=f"results/{HOST}/tiering/{{experiment}}/{{point}}/meta.json",
    conda:
        "../../environment.yml"
    log:
        f"results/{HOST}/tiering/{{experiment}}/{{point}}/log",
    benchmark:
        f"results/{HOST}/benchmarks/tiering/{{experiment}}/{{point}}.tsv"
    wildcard_constraints:
        experiment="steady_state|best_static|unloaded_latency|object_size|hotset_move|contention_change|migration_frozen",
        point="(?!numa-)[^/]+",
    params:
        spec=tiersim_spec,
    shell:
        "printf '%s' {params.spec:q} | python -m workflows.harness.simpoint - > {log} 2>&1"


rule scorecard:
    input:
        csv=f"results/{HOST}/measurements.csv",
        ref="analysis/reference/published_numbers.csv",
        code=ANALYSIS_SOURCES,
    output:
        md=report(f"results/{HOST}/scorecard.md", caption="../report/scorecard.rst", category="Scorecard"),
        csv=f"results/{HOST}/scorecard.csv",
    conda:
        "../../environment.yml"
    log:
        f"results/{HOST}/logs/scorecard.log",
    params:
        profile=MODEL_PROFILE["name"] if MODEL_PROFILE else PROFILE["name"],
        functional="--functional" if PROFILE.get("functional") else "",
        calibration=json.dumps((MODEL_PROFILE or {}).get("calibrated_on", [])),
    shell:
        "python -m analysis.score --measurements {input.csv} --reference {input.ref} "
        "--profile {params.profile} {params.functional} --calibration {params.calibration:q} "
        "--md {output.md} --csv {output.csv} > {log} 2>&1"


rule contention_point:
    input:
        gups="build/bin/gups",
        antagonist="build/bin/antagonist",
        memchar="build/bin/memchar",
        facts=f"results/{HOST}/host_facts.json",
    output:
        result=f"results/{HOST}/tiering/contention_single_node/{{point}}/result.csv",
        meta=f"results/{HOST}/tiering/contention_single_node/{{point}}/meta.json",
    conda:
        "../../environment.yml"
    log:
        f"results/{HOST}/tiering/contention_single_node/{{point}}/log",
    benchmark:
        f"results/{HOST}/benchmarks/tiering/contention_single_node/{{point}}.tsv"
    resources:
        measure=1,
    params:
        spec=contention_spec,
    shell:
        "printf '%s' {params.spec:q} | python -m workflows.harness.realrun - > {log} 2>&1"


if RUNNER:

    rule guest_tiering_batch:
        input:
            facts=f"results/{HOST}/host_facts.json",
            initramfs="build/qemu/initramfs.cpio.gz",
        output:
            [f"results/{HOST}/tiering/{pt['experiment']}/numa-{pt['id']}/{f}" for pt in REAL_TIERING.values() for f in ("result.csv", "meta.json")],
        conda:
            "../../environment.yml"
        log:
            f"results/{HOST}/logs/guest_tiering_batch.log",
        benchmark:
            f"results/{HOST}/benchmarks/tiering/guest_tiering_batch.tsv"
        resources:
            measure=1,
        params:
            spec=guest_batch_spec,
        shell:
            "printf '%s' {params.spec:q} | python -m workflows.harness.guestrun - > {log} 2>&1"


if not RUNNER:

    rule real_tiering_point:
        input:
            gups="build/bin/gups",
            antagonist="build/bin/antagonist",
            tierd="build/bin/tierd",
            facts=f"results/{HOST}/host_facts.json",
        output:
            result=f"results/{HOST}/tiering/{{experiment}}/numa-{{point}}/result.csv",
            meta=f"results/{HOST}/tiering/{{experiment}}/numa-{{point}}/meta.json",
        conda:
            "../../environment.yml"
        log:
            f"results/{HOST}/tiering/{{experiment}}/numa-{{point}}/log",
        benchmark:
            f"results/{HOST}/benchmarks/tiering/{{experiment}}/numa-{{point}}.tsv"
        wildcard_constraints:
            experiment="steady_state|hotset_move|contention_change",
        resources:
            measure=1,
        params:
            spec=real_tiering_spec,
        shell:
            "printf '%s' {params.spec:q} | python -m workflows.harness.realrun - > {log} 2>&1"
