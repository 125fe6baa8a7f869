# The model checked against this host (workflows/harness/fidelity.py, docs/fidelity.md): after the
# measured points of every family with a fidelity hook (families/<name>/fidelity.py) and their own
# further outputs (e.g. measured tier curves), tiersim on the host's own curves predicts each measured point:
# results/{host}/fidelity.csv and model-profile.yaml; a functional host (an emulated guest) or one
# with nothing measured to compare gets results/{host}/fidelity.skipped (one line: why) instead.


localrules:
    fidelity,


rule fidelity:
    input:
        points=lambda wc: fidelity_inputs(wc.host)[0],
        outputs=lambda wc: fidelity_inputs(wc.host)[1],
        facts="results/{host}/host_facts.json",
        tiersim="build/bin/tiersim",
        code=["workflows/harness/fidelity.py"] + [str(p) for p in Path("families").glob("*/fidelity.py")],
    output:
        "results/{host}/fidelity.{kind}",
    wildcard_constraints:
        kind="csv|skipped",
    conda:
        "../../environment.yml"
    log:
        "results/{host}/logs/fidelity_{kind}.log",
    priority: ANALYSIS_INPUT_PRIORITY
    shell:
        "sh workflows/harness/yield_cpu.sh $$; python -m workflows.harness.fidelity --host-dir results/{wildcards.host} --expect {wildcards.kind} "
        "{input.points} > {log} 2>&1"
