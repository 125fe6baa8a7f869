# Build every C binary into build/bin/ (incremental: make does the work).
rule build:
    input:
        C_SOURCES,
    output:
        memchar="build/bin/memchar",
        tiersim="build/bin/tiersim",
        gups="build/bin/gups",
        antagonist="build/bin/antagonist",
    conda:
        "../../environment.yml"
    log:
        "build/logs/build.log",
    shell:
        "make --no-print-directory build > {log} 2>&1"
