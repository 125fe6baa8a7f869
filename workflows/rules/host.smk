# Host facts: what the planning process detected on this machine (or a guest host reported, or a
# fleet host's node reported) and validated the profile against, with the resolved profile.
# Written from the plan, never detected again in a job: on a cluster a job may land on any node.


localrules:
    host_facts,


rule host_facts:
    output:
        "results/{host}/host_facts.json",
    log:
        "results/{host}/logs/host_facts.log",
    # every point reads it: before anything else that could hold the cores (above any measured
    # point's priority: measure_order() in common.smk counts down from the number of them), and
    # with every core while it runs, so that nothing has started when the first point measured
    # alone (config measure_alone), which needs every core free, can start
    priority: 10**9
    threads: lambda wc: all_cores() if ALONE_FIRST else 1
    run:
        write_host_facts(wildcards.host, output[0])
