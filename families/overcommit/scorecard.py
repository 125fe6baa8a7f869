"""The overcommit family's published numbers in the scorecard (analysis/scorecard.py): listed, not scored."""

NOT_SCORED = {
    "cxl-hybrid-pool": "not scored: the overcommit family measures these on this host's own swap device and inputs "
                       "(the seed's testbed, SSD and inputs differ); drawn as reference marks in overcommit_performance / "
                       "overcommit_cost",
}
