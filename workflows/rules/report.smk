# Aggregation, figures, tables and the report. `snakemake --report results/{host}/report.html`
# (make run does it) collects the figures with their captions (each figure module's CAPTION).


# Small analysis jobs: seconds each, never worth a cluster job's overhead.
localrules:
    family_measurements,
    measurements,
    figures,
    figure,
    tables,
    fidelity_report,
    counter_table,
    scorecard,
    fleet_comparison,


rule family_measurements:
    """One family's long-form rows (its figures read only these)."""
    input:
        points=lambda wc: point_results(wc.host, wc.family),
        code=ANALYSIS_SOURCES,
    output:
        "results/{host}/{family}/measurements.csv",
    conda:
        "../../environment.yml"
    log:
        "results/{host}/logs/measurements_{family}.log",
    priority: ANALYSIS_INPUT_PRIORITY
    shell:
        "sh workflows/harness/yield_cpu.sh $$; python -m analysis.collect --out {output} {input.points} > {log} 2>&1"


rule measurements:
    """Every family's rows in one file."""
    input:
        families=lambda wc: expand("results/{host}/{family}/measurements.csv", host=wc.host, family=HOSTS[wc.host].active),
        code=ANALYSIS_SOURCES,
    output:
        "results/{host}/measurements.csv",
    conda:
        "../../environment.yml"
    log:
        "results/{host}/logs/measurements.log",
    shell:
        "sh workflows/harness/yield_cpu.sh $$; python -m analysis.collect --out {output} {input.families} > {log} 2>&1"


rule figures:
    """A family's figures in one job (issue 27: one Python start and one load of the family's rows,
    not one per figure; the quick run's 27 figures took 71 s of CPU as 27 processes, 40 s in 6), into
    a scratch directory that rule figure takes each figure from (and Snakemake removes after). The
    job draws them in a process per CPU it may run on (analysis/render.py): the tiering family's,
    the quick run's last job, took 16.5 s alone and 9.5 s in two here; beside measured points it
    runs under SCHED_IDLE like every job that measures nothing."""
    input:
        csv="results/{host}/{family}/measurements.csv",
        ref="analysis/reference/published_numbers.csv",
        fidelity=lambda wc: family_fidelity(wc.host, wc.family),
        code=lambda wc: figure_code(wc.family),
    output:
        temp(directory("results/{host}/figures/{family}.render")),
    conda:
        "../../environment.yml"
    log:
        "results/{host}/logs/figures_{family}.log",
    wildcard_constraints:
        family="|".join(families.FAMILIES),
    priority: figures_priority
    params:
        figures=lambda wc: " ".join(f"--figure {n}" for n in family_figures(wc.host, wc.family)),
        profile=lambda wc: family_info(wc.host, wc.family, "profile", wc.host),
        functional=lambda wc: functional(wc.host),
        labels=lambda wc: figure_labels(wc.host, wc.family),
        fidelity=lambda wc: " ".join(f"--fidelity {p}" for p in family_fidelity(wc.host, wc.family)),
    shell:
        "sh workflows/harness/yield_cpu.sh $$; python -m analysis.render {params.figures} --measurements {input.csv} "
        "--reference {input.ref} --profile {params.profile} {params.functional} {params.labels} {params.fidelity} "
        "--out-dir {output} > {log} 2>&1"


rule figure:
    """One figure, from its family's figures job (a copy: cheap, in Snakemake's own process)."""
    input:
        lambda wc: f"results/{wc.host}/figures/{HOSTS[wc.host].figures[wc.figure]}.render",
    output:
        png=report(
            "results/{host}/figures/{figure}.png",
            caption="../report/figure.rst",
            category="Figures",
            labels=lambda wc: {"figure": wc.figure, "family": HOSTS[wc.host].figures[wc.figure]},
        ),
        pdf="results/{host}/figures/{figure}.pdf",
    log:
        "results/{host}/logs/figure_{figure}.log",
    wildcard_constraints:
        # (no figure at all: a pattern that matches nothing, not "", which would claim every name)
        figure="|".join(sorted({n for h in HOSTS.values() for n in h.figures})) or r"(?!)",
    params:
        caption=lambda wc: FIGURE_INFO[wc.figure].caption,
    run:
        place_figure(input[0], [output.png, output.pdf], log[0])


rule counter_table:
    """Every point's counters (its meta.json's counter status and the counters.csv beside it, which
    the point writes only where a source counted) in one table, which the counters table and the
    families' own tables read (analysis/counters.py)."""
    input:
        metas=lambda wc: point_metas(wc.host),
        code=ANALYSIS_SOURCES,
    output:
        "results/{host}/counters.csv",
    conda:
        "../../environment.yml"
    log:
        "results/{host}/logs/counter_table.log",
    shell:
        "sh workflows/harness/yield_cpu.sh $$; python -m analysis.counters --out {output} {input.metas} > {log} 2>&1"


rule tables:
    input:
        csv=lambda wc: expand("results/{host}/{family}/measurements.csv", host=wc.host, family=HOSTS[wc.host].active),
        counters="results/{host}/counters.csv",
        fidelity=lambda wc: fidelity_csv(wc.host),
        code=ANALYSIS_SOURCES + SUMMARY_SOURCES,
    output:
        summary=report("results/{host}/tables/summary.md", caption="../report/summary.rst", category="Tables"),
        counters=report("results/{host}/tables/counters.md", caption="../report/counters.rst", category="Tables"),
    conda:
        "../../environment.yml"
    log:
        "results/{host}/logs/tables.log",
    params:
        absent=lambda wc: json.dumps({k: v for fp in HOSTS[wc.host].plan.families.values() for k, v in sorted(fp.absent.items())}),
        fidelity=lambda wc: fidelity_args(wc.host),
    shell:
        "sh workflows/harness/yield_cpu.sh $$; python -m analysis.tables --measurements {input.csv} --summary {output.summary} "
        "--counters {output.counters} --absent {params.absent:q} {params.fidelity} --counter-table {input.counters} > {log} 2>&1"


rule fidelity_report:
    """The model's error on this host (analysis/fidelity.py): tables/fidelity.md and the
    predicted-vs-measured figure, from results/{host}/fidelity.csv (rule fidelity) where the host
    has a score, else both say "not scored" and why."""
    input:
        fidelity=lambda wc: fidelity_csv(wc.host),
        code=ANALYSIS_SOURCES,
    output:
        md=report("results/{host}/tables/fidelity.md", caption="../report/fidelity.rst", category="Model fidelity"),
        png=report("results/{host}/figures/fidelity.png", caption="../report/fidelity_figure.rst", category="Model fidelity"),
        pdf="results/{host}/figures/fidelity.pdf",
    conda:
        "../../environment.yml"
    log:
        "results/{host}/logs/fidelity_report.log",
    params:
        fidelity=lambda wc: fidelity_args(wc.host),
    shell:
        "sh workflows/harness/yield_cpu.sh $$; python -m analysis.fidelity --host {wildcards.host} {params.fidelity} --md {output.md} "
        "--figure results/{wildcards.host}/figures/fidelity > {log} 2>&1"


rule scorecard:
    input:
        csv=lambda wc: expand("results/{host}/{family}/measurements.csv", host=wc.host, family=HOSTS[wc.host].scored),
        ref="analysis/reference/published_numbers.csv",
        fidelity=lambda wc: fidelity_csv(wc.host),
        code=ANALYSIS_SOURCES + [p for ps in SCORECARD_SOURCES.values() for p in ps],
    output:
        md=report("results/{host}/scorecard.md", caption="../report/scorecard.rst", category="Scorecard"),
        csv="results/{host}/scorecard.csv",
    conda:
        "../../environment.yml"
    log:
        "results/{host}/logs/scorecard.log",
    params:
        profile=lambda wc: scored_info(wc.host, "profile", wc.host),
        functional=lambda wc: functional(wc.host),
        calibration=lambda wc: json.dumps(scored_info(wc.host, "calibrated_on", [])),
        labels=lambda wc: scorecard_labels(wc.host),
        fidelity=lambda wc: fidelity_args(wc.host),
    shell:
        "sh workflows/harness/yield_cpu.sh $$; python -m analysis.score --measurements {input.csv} --reference {input.ref} "
        "--profile {params.profile} {params.functional} --calibration {params.calibration:q} {params.labels} "
        "{params.fidelity} --md {output.md} --csv {output.csv} > {log} 2>&1"


rule fleet_comparison:
    """Every host of a fleet run (config `hosts`) side by side: tiers, measured latency and
    bandwidth, curves, the model's error on each host, Colloid's gain per host (analysis/fleet.py)."""
    input:
        facts=lambda wc: [f"results/{h}/host_facts.json" for h in HOSTS],
        csv=lambda wc: [f"results/{h}/measurements.csv" for h in HOSTS],
        fidelity=lambda wc: [p for h in HOSTS for p in fidelity_csv(h)],
        curves=lambda wc: [o for h in HOSTS.values() for fp in h.plan.families.values() for o in fp.outputs],
        code=ANALYSIS_SOURCES + FLEET_SOURCES,
    output:
        md=report("results/fleet/{fleet}/comparison.md", caption="../report/fleet.rst", category="Fleet"),
        png=report(multiext("results/fleet/{fleet}/", "tier_curves.png", *[f"{n}.png" for n in FLEET_FIGURES]),
                   category="Fleet"),
    conda:
        "../../environment.yml"
    log:
        "results/fleet/{fleet}/comparison.log",
    wildcard_constraints:
        fleet=re.escape(FLEET or "-"),
    params:
        hosts=lambda wc: " ".join(f"--host {shlex.quote(h)}=results/{shlex.quote(h)}" for h in HOSTS),
        not_scored=lambda wc: " ".join(f"--not-scored {shlex.quote(f'{h}={why}')}" for h in HOSTS
                                       if (why := fidelity_not_scored(h))),
    shell:
        "sh workflows/harness/yield_cpu.sh $$; python -m analysis.fleet {params.hosts} {params.not_scored} --out results/fleet/{wildcards.fleet} > {log} 2>&1"
