# The characterize family's own rule: the measured loaded-latency curves in the tier-model curve
# format (results/{host}/curves/<pair>.csv), ready for a host profile's model tier.


localrules:
    tier_curves,


rule tier_curves:
    input:
        lambda wc: [p for p in point_results(wc.host, "characterize") if "/loaded_latency/" in p],
    output:
        directory("results/{host}/curves"),
    conda:
        "../../environment.yml"
    log:
        "results/{host}/logs/tier_curves.log",
    # what the model's score and the tiering figures read: before figures (at 0 it ran behind
    # every family's figures, just before the last points measured alone)
    priority: ANALYSIS_INPUT_PRIORITY
    shell:
        "sh workflows/harness/yield_cpu.sh $$; python -m families.characterize.curves --out {output} {input} > {log} 2>&1"
