# The characterize family's own rule: the measured loaded-latency curves in the tier-model curve
# format (results/{host}/curves/<pair>.csv), ready for a host profile's model tier.


rule tier_curves:
    input:
        lambda wc: [p for p in point_results("characterize") if "/loaded_latency/" in p],
    output:
        directory("results/{host}/curves"),
    conda:
        "../../environment.yml"
    log:
        "results/{host}/logs/tier_curves.log",
    shell:
        "python -m families.characterize.curves --out {output} {input} > {log} 2>&1"
