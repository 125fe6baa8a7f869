"""The kv family's published numbers in the scorecard (analysis/scorecard.py): listed, not scored."""

NOT_SCORED = {
    "disagg-pm-kv": "not scored: other systems (BonsaiKV, Sherman, DINOMO, PACTree) on RDMA + Optane; shown only in "
                    "the kv family's tables/kv_reference.md",
}
