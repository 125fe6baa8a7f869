# tierbench: `snakemake --cores all` on the default host profile (auto).
#   --config host=NAME_OR_PATH               choose a host profile (hosts/NAME.yaml)
#   --configfile workflows/config/paper.yaml full sweeps
# Everything is validated before any job starts (workflows/rules/common.smk).
from snakemake.utils import min_version

min_version("9.0")


configfile: "workflows/config/quick.yaml"


report: "workflows/report/workflow.rst"


include: "workflows/rules/common.smk"
include: "workflows/rules/build.smk"
include: "workflows/rules/host.smk"
include: "workflows/rules/characterize.smk"
include: "workflows/rules/storage.smk"
include: "workflows/rules/tiering.smk"
include: "workflows/rules/report.smk"


rule all:
    input:
        all_targets(),
    default_target: True
