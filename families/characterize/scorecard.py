"""The characterize family's published numbers in the scorecard (analysis/scorecard.py): listed, not scored."""

NOT_SCORED = {
    "pm-numa-io": "not scored: Optane PMem characterization on the source's own server (different hardware); "
                  "drawn as reference marks in bandwidth_threads / object_latency / thread_share",
}
