# Host facts: what was detected on this machine and the resolved host profile.


rule host_facts:
    output:
        f"results/{HOST}/host_facts.json",
    conda:
        "../../environment.yml"
    log:
        f"results/{HOST}/logs/host_facts.log",
    params:
        host=config["host"],
    shell:
        "python -m workflows.harness.cli facts --host {params.host:q} > {output} 2> {log}"
