# Aggregation, figures, tables and the report. `snakemake --report
# results/{host}/report.html` (make run does it) collects the figures below with
# their captions from workflows/report/.

rule measurements:
    input:
        points=point_results(),
        code=ANALYSIS_SOURCES,
    output:
        f"results/{HOST}/measurements.csv",
    conda:
        "../../environment.yml"
    log:
        f"results/{HOST}/logs/measurements.log",
    shell:
        "python -m analysis.collect --out {output} {input.points} > {log} 2>&1"


rule figure:
    input:
        csv=f"results/{HOST}/measurements.csv",
        ref="analysis/reference/published_numbers.csv",
        code=ANALYSIS_SOURCES,
    output:
        png=report(
            f"results/{HOST}/figures/{{figure}}.png",
            caption="../report/figure.rst",
            category="Figures",
            labels=lambda wc: {"figure": wc.figure},
        ),
        pdf=f"results/{HOST}/figures/{{figure}}.pdf",
    conda:
        "../../environment.yml"
    log:
        f"results/{HOST}/logs/figure_{{figure}}.log",
    params:
        functional="--functional" if PROFILE.get("functional") else "",
        profile=MODEL_PROFILE["name"] if MODEL_PROFILE else PROFILE["name"],
        stem=lambda wc, output: output.png[: -len(".png")],
    shell:
        "python -m analysis.render --figure {wildcards.figure} --measurements {input.csv} "
        "--reference {input.ref} --profile {params.profile} {params.functional} "
        "--out {params.stem} > {log} 2>&1"


rule tables:
    input:
        csv=f"results/{HOST}/measurements.csv",
        metas=lambda wc: [str(Path(p).parent / "meta.json") for p in point_results()],
        code=ANALYSIS_SOURCES,
    output:
        summary=report(f"results/{HOST}/tables/summary.md", caption="../report/summary.rst", category="Tables"),
        counters=report(f"results/{HOST}/tables/counters.md", caption="../report/counters.rst", category="Tables"),
    conda:
        "../../environment.yml"
    log:
        f"results/{HOST}/logs/tables.log",
    params:
        absent=json.dumps(CH_PLAN["absent"]),
    shell:
        "python -m analysis.tables --measurements {input.csv} --summary {output.summary} "
        "--counters {output.counters} --absent {params.absent:q} {input.metas} > {log} 2>&1"
