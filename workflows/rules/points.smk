# Every point of every family, one job each: results/{host}/{family}/{experiment}/{point}/rep{rep}/.
# The job's params are its row (workflows/harness/plan.py) and, for a guest point, where the
# batch is: a changed setting reruns exactly the points whose rows it changes. Measured points
# (executor host) hold the "measure" resource and the host lock: they never overlap; modelled
# points run in parallel on all cores. A guest host's points run in one boot (guest_batch), so a
# change to any of them runs the whole batch again.


# Measured points run on the host they measure: where snakemake runs (local rules, also under a
# cluster executor), like the small bookkeeping jobs (they write a file from the plan), or, for a
# fleet host on a SLURM node, on that node (node_point). Modelled points may go anywhere on a
# cluster: a job each (model_point, grouped by profiles/slurm) or, with config model_batch > 1,
# in batches (model_batch, each point then collected locally by model_collect).
localrules:
    point,
    points_table,
    guest_batch_spec,
    guest_batch,



rule point:
    input:
        unpack(point_inputs),
    output:
        result="results/{host}/{family}/{experiment}/{point}/rep{rep}/result.csv",
        meta="results/{host}/{family}/{experiment}/{point}/rep{rep}/meta.json",
    conda:
        "../../environment.yml"
    log:
        "results/{host}/{family}/{experiment}/{point}/rep{rep}/log",
    benchmark:
        "results/{host}/benchmarks/{family}/{experiment}/{point}/rep{rep}.tsv"
    wildcard_constraints:
        host=LOCAL_POINTS_RE,
        point=r".+",
    threads: point_threads
    resources:
        measure=lambda wc: 1 if row_of(wc)["executor"] == "host" else 0,
    priority: point_priority
    params:
        row=lambda wc: planning.row_json(row_of(wc)),
        batch=lambda wc: f"--batch results/{wc.host}/guest/batch" if row_of(wc)["executor"] == "guest" else "",
    shell:
        # a point that measures nothing here (modelled; a guest point's result is read from its batch)
        # yields the CPU to measured ones (workflows/harness/yield_cpu.sh; common.smk)
        "if [ {resources.measure} = 0 ]; then sh workflows/harness/yield_cpu.sh $$; fi; "
        "printf '%s' {params.row:q} | python -m workflows.harness.point --outdir $(dirname {output.result}) "
        "--results results/{wildcards.host} --facts {input.facts} {params.batch} - > {log} 2>&1"


if MODEL_BATCH == 1:

    use rule point as model_point with:
        wildcard_constraints:
            host=MODEL_POINTS_RE,
            point=r".+",
        resources:
            measure=0,

else:

    localrules:
        model_collect,
        model_batch_spec,

    rule model_batch_spec:
        """The rows of one batch of a host's modelled points, for model_batch."""
        output:
            "results/{host}/model/batch{chunk}.json",
        log:
            "results/{host}/logs/model_batch{chunk}_spec.log",
        wildcard_constraints:
            chunk=r"\d+",
        # its batch's: at 0 the spec waited behind figures, and its batch with it (a quick run made
        # each spec just before its batch, and two families' figures ran before the last twelve)
        priority: MODEL_BATCH_PRIORITY
        params:
            spec=lambda wc: json.dumps({"points": model_batch_rows(wc.host, wc.chunk)}, sort_keys=True),
        run:
            Path(output[0]).write_text(params.spec)

    rule model_batch:
        """model_batch modelled points in one job, {threads} at a time (the only rule that leaves
        the machine under profiles/slurm)."""
        input:
            spec="results/{host}/model/batch{chunk}.json",
            tools=model_batch_inputs,
        output:
            directory("results/{host}/model/batch{chunk}"),
        conda:
            "../../environment.yml"
        log:
            "results/{host}/logs/model_batch{chunk}.log",
        benchmark:
            "results/{host}/benchmarks/model_batch{chunk}.tsv"
        wildcard_constraints:
            chunk=r"\d+",
        threads: model_batch_threads()  # profiles/slurm: set-threads
        priority: MODEL_BATCH_PRIORITY
        shell:
            "sh workflows/harness/yield_cpu.sh $$; python -m workflows.harness.modelbatch --jobs {threads} --out {output} {input.spec} > {log} 2>&1"

    rule model_collect:
        """A modelled point, collected from its batch (a local rule: under profiles/slurm the
        profile's model_point group does not apply to it)."""
        input:
            batch=model_batch_of,
        output:
            result="results/{host}/{family}/{experiment}/{point}/rep{rep}/result.csv",
            meta="results/{host}/{family}/{experiment}/{point}/rep{rep}/meta.json",
        conda:
            "../../environment.yml"
        log:
            # the point's log as a single-point job writes it: the batch's log of the point, copied
            # with its files (what this job says itself, a missing result, is appended)
            "results/{host}/{family}/{experiment}/{point}/rep{rep}/log",
        wildcard_constraints:
            host=MODEL_POINTS_RE,
            point=r".+",
        # its batch's second half: at 0 the last batches' points were collected behind other
        # families' figures, and their family's measurements and figures waited for them
        priority: MODEL_BATCH_PRIORITY
        params:
            src=lambda wc, input: f"{input.batch}/{wc.family}/{wc.experiment}/{wc.point}/rep{wc.rep}",
            dst=lambda wc: f"results/{wc.host}/{wc.family}/{wc.experiment}/{wc.point}/rep{wc.rep}",
        shell:  # (not a run: block: with --workflow-profile none, that would start a Snakemake per point)
            "sh workflows/harness/yield_cpu.sh $$; {{ test -f {params.src:q}/result.csv || {{ echo 'tierbench: error: the batch has no result for {params.src}' >&2; "
            "exit 1; }}; cp -p {params.src:q}/* {params.dst:q}; }} 2>>{log:q}"


use rule point as node_point with:
    # a measured point of a fleet host on its SLURM node (host profile cluster/slurm_extra); the
    # host's lock (results/{host}/.measure.lock) keeps its points from overlapping there
    wildcard_constraints:
        host=NODE_POINTS_RE,
        point=r".+",
    resources:
        measure=0,
        slurm_extra=lambda wc: HOSTS[wc.host].slurm_extra,


rule guest_batch_spec:
    """The guest host's points (their rows) and its runner, for guest_batch."""
    output:
        "results/{host}/guest/batch.json",
    log:
        "results/{host}/logs/guest_batch_spec.log",
    params:
        spec=lambda wc: json.dumps({"runner": HOSTS[wc.host].runner, "points": guest_rows(wc.host)}, sort_keys=True),
    run:
        Path(output[0]).write_text(params.spec)


rule guest_batch:
    """Every guest point of a guest host (profile with `runner`) in one boot of the guest; the
    point jobs then collect each point from this directory."""
    input:
        spec="results/{host}/guest/batch.json",
        facts="results/{host}/host_facts.json",
        initramfs="build/qemu/initramfs.cpio.gz",
        shipped=guest_batch_inputs,
    output:
        directory("results/{host}/guest/batch"),
    conda:
        "../../environment.yml"
    log:
        "results/{host}/logs/guest_batch.log",
    benchmark:
        "results/{host}/benchmarks/guest_batch.tsv"
    resources:
        measure=1,
    shell:
        "python -m workflows.harness.guestrun --out {output} --results results/{wildcards.host} {input.spec} > {log} 2>&1"


rule points_table:
    """What will run, as a table a user can read: one line per point of a family."""
    output:
        "results/{host}/{family}/points.tsv",
    log:
        "results/{host}/logs/points_{family}.log",
    params:
        rows=lambda wc: [r for r in HOSTS[wc.host].plan.points.values() if r["family"] == wc.family],
    run:
        Path(output[0]).write_text(planning.table(params.rows))
