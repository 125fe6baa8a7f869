# tierbench: `snakemake --cores all` on the default host profile (auto).
#   --config host=NAME_OR_PATH               choose a host profile (hosts/NAME.yaml)
#   --configfile workflows/config/paper.yaml full sweeps
# Everything is validated before any job starts (workflows/rules/common.smk). The core rules
# run every family's points, figures and tables; a family may add rules of its own
# (families/<name>/rules.smk, included below).
from snakemake.utils import min_version

min_version("9.0")


configfile: "workflows/config/quick.yaml"


report: "workflows/report/workflow.rst"


include: "workflows/rules/common.smk"
include: "workflows/rules/build.smk"
include: "workflows/rules/host.smk"
include: "workflows/rules/points.smk"
include: "workflows/rules/report.smk"
include: "workflows/rules/fidelity.smk"


for family_rules in FAMILY_RULES:

    include: family_rules


rule all:
    input:
        all_targets(),
    default_target: True
