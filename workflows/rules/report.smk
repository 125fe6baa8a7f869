# Aggregation, figures, tables and the report. `snakemake --report results/{host}/report.html`
# (make run does it) collects the figures with their captions (each figure module's CAPTION).


rule family_measurements:
    """One family's long-form rows (its figures read only these)."""
    input:
        points=lambda wc: point_results(wc.family),
        code=ANALYSIS_SOURCES,
    output:
        "results/{host}/{family}/measurements.csv",
    conda:
        "../../environment.yml"
    log:
        "results/{host}/logs/measurements_{family}.log",
    shell:
        "python -m analysis.collect --out {output} {input.points} > {log} 2>&1"


rule measurements:
    """Every family's rows in one file."""
    input:
        families=expand("results/{{host}}/{family}/measurements.csv", family=ACTIVE),
        code=ANALYSIS_SOURCES,
    output:
        "results/{host}/measurements.csv",
    conda:
        "../../environment.yml"
    log:
        "results/{host}/logs/measurements.log",
    shell:
        "python -m analysis.collect --out {output} {input.families} > {log} 2>&1"


rule figure:
    input:
        csv=lambda wc: f"results/{wc.host}/{FIGURES[wc.figure]}/measurements.csv",
        ref="analysis/reference/published_numbers.csv",
        code=lambda wc: figure_code(wc.figure),
    output:
        png=report(
            "results/{host}/figures/{figure}.png",
            caption="../report/figure.rst",
            category="Figures",
            labels=lambda wc: {"figure": wc.figure, "family": FIGURES[wc.figure]},
        ),
        pdf="results/{host}/figures/{figure}.pdf",
    conda:
        "../../environment.yml"
    log:
        "results/{host}/logs/figure_{figure}.log",
    wildcard_constraints:
        figure="|".join(FIGURES),
    params:
        caption=lambda wc: FIGURE_INFO[wc.figure].caption,
        profile=lambda wc: family_info(FIGURES[wc.figure], "profile", HOST),
        functional="--functional" if PROFILE.get("functional") else "",
        labels=lambda wc: figure_labels(FIGURES[wc.figure]),
    shell:
        "python -m analysis.render --figure {wildcards.figure} --measurements {input.csv} "
        "--reference {input.ref} --profile {params.profile} {params.functional} {params.labels} "
        "--out results/{wildcards.host}/figures/{wildcards.figure} > {log} 2>&1"


rule tables:
    input:
        csv=expand("results/{{host}}/{family}/measurements.csv", family=ACTIVE),
        metas=point_metas(),
        code=ANALYSIS_SOURCES,
    output:
        summary=report("results/{host}/tables/summary.md", caption="../report/summary.rst", category="Tables"),
        counters=report("results/{host}/tables/counters.md", caption="../report/counters.rst", category="Tables"),
    conda:
        "../../environment.yml"
    log:
        "results/{host}/logs/tables.log",
    params:
        absent=json.dumps({k: v for fp in PLAN.families.values() for k, v in sorted(fp.absent.items())}),
    shell:
        "python -m analysis.tables --measurements {input.csv} --summary {output.summary} "
        "--counters {output.counters} --absent {params.absent:q} {input.metas} > {log} 2>&1"


rule scorecard:
    input:
        csv=expand("results/{{host}}/{family}/measurements.csv", family=SCORED),
        ref="analysis/reference/published_numbers.csv",
        code=ANALYSIS_SOURCES,
    output:
        md=report("results/{host}/scorecard.md", caption="../report/scorecard.rst", category="Scorecard"),
        csv="results/{host}/scorecard.csv",
    conda:
        "../../environment.yml"
    log:
        "results/{host}/logs/scorecard.log",
    params:
        profile=scored_info("profile", HOST),
        functional="--functional" if PROFILE.get("functional") else "",
        calibration=json.dumps(scored_info("calibrated_on", [])),
        labels=scorecard_labels(),
    shell:
        "python -m analysis.score --measurements {input.csv} --reference {input.ref} "
        "--profile {params.profile} {params.functional} --calibration {params.calibration:q} {params.labels} "
        "--md {output.md} --csv {output.csv} > {log} 2>&1"
