# Host facts: what was detected on this machine (or reported by a guest host).


rule host_facts:
    output:
        "results/{host}/host_facts.json",
    conda:
        "../../environment.yml"
    log:
        "results/{host}/logs/host_facts.log",
    params:
        host=config["host"],
    shell:
        "python -m workflows.harness.cli facts --host {params.host:q} > {output} 2> {log}"
