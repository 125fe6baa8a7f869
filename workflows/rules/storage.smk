# The storage family: fio 4 KiB (and optionally larger) random reads over a range of
# iodepths on the host profile's storage directory (an SSD or the swap device's
# filesystem). One job per block size; the iodepths run one after another in it.
rule fio_randread:
    input:
        facts=f"results/{HOST}/host_facts.json",
    output:
        result=f"results/{HOST}/storage/fio_randread/bs{{bs}}/result.csv",
        meta=f"results/{HOST}/storage/fio_randread/bs{{bs}}/meta.json",
    conda:
        "../../environment.yml"
    log:
        f"results/{HOST}/storage/fio_randread/bs{{bs}}/log",
    benchmark:
        f"results/{HOST}/benchmarks/storage/fio_randread/bs{{bs}}.tsv"
    wildcard_constraints:
        bs=r"\d+",
    resources:
        measure=1,
    params:
        spec=fio_spec,
        scratch=STORAGE_DIR,
    shell:
        "mkdir -p {params.scratch} && "
        "printf '%s' {params.spec:q} | python -m workflows.harness.measure - > {log} 2>&1; "
        "rc=$?; rm -f {params.scratch}/tierbench-fio.dat; exit $rc"
