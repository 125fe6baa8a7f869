#!/usr/bin/env python3
"""Write the tier curves of the Colloid paper's testbed (modelled tiers).

The curves are the parametric form of docs/tier-model.md,
    L(rho) = L0 + a * rho**k / (1 - rho),   rho = B / B_sat,
tabulated at read ratios 1.0 and 0.5 up to rho = 0.99 (the last point is the
saturation wall).  Every number below is explained in docs/tier-model.md,
section "Calibration".  Rerun after changing a number:

    python3 hosts/curves/make_paper_curves.py hosts/curves
"""
import sys
from pathlib import Path

# queueing shape shared by all tiers (docs/tier-model.md)
A_NS = 20.0
K = 3.0

# name: (unloaded latency ns, {read_ratio: saturation bandwidth MB/s})
DEFAULT = ("paper-default", 71.0, {1.0: 140000.0, 0.5: 120000.0})
ALT_BASE_NS = 135.0
# remote socket over 3 UPI links: ~60 GB/s of reads; at 1:1 the reads' data and the
# write-backs use opposite directions of the full-duplex links (docs/tier-model.md)
ALT_BSAT = {1.0: 60000.0, 0.5: 100000.0}
ALT_LATENCIES = [135.0, 148.0, 168.0, 192.0]

RHOS = [i / 20 for i in range(0, 19)] + [0.92, 0.94, 0.96, 0.97, 0.98, 0.99]


def table(l0: float, bsat: dict[float, float]) -> str:
    rows = ["read_ratio,bandwidth_mbps,latency_ns"]
    for rr in sorted(bsat, reverse=True):
        for rho in RHOS:
            lat = l0 + A_NS * rho**K / (1 - rho)
            rows.append(f"{rr:g},{rho * bsat[rr]:.1f},{lat:.2f}")
    return "\n".join(rows) + "\n"


def main() -> int:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).parent)
    name, l0, bsat = DEFAULT
    (out / f"{name}.csv").write_text(table(l0, bsat))
    for lat in ALT_LATENCIES:
        # a lower uncore clock raises latency and lowers bandwidth in proportion
        scale = ALT_BASE_NS / lat
        b = {rr: v * scale for rr, v in ALT_BSAT.items()}
        (out / f"paper-alternate-{lat:.0f}.csv").write_text(table(lat, b))
    return 0


if __name__ == "__main__":
    sys.exit(main())
