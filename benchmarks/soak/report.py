"""Figures and a plot from the soak driver's samples (soak.cpp): RSS first, after warm-up, max and
last, the growth after warm-up, and the least-squares slope over the inferences after warm-up.

    python3 report.py SAMPLES.csv [--warmup N] [--plot OUT.png] [--title TEXT]

A flat memory shows as a growth of a few hundred KiB at most (the allocator's pages coming and going)
and a slope near 0; a leak shows as a slope of its bytes per inference.
"""
import argparse
import csv
import sys


def read_samples(path):
    with open(path) as f:
        rows = [(int(r["inferences"]), float(r["seconds"]), int(r["rss_kib"])) for r in csv.DictReader(f)]
    if len(rows) < 3:
        sys.exit("report.py: %s has %d samples; the soak stopped early" % (path, len(rows)))
    return rows


def slope_kib_per_10k(points):
    """Least-squares slope of RSS over inferences, in KiB per 10,000 inferences."""
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    var = sum((x - mx) ** 2 for x, _ in points)
    return 0.0 if var == 0 else 1e4 * sum((x - mx) * (y - my) for x, y in points) / var


def figures(rows, warmup):
    after = [(n, rss) for n, _, rss in rows if n >= warmup]
    if len(after) < 2:
        sys.exit("report.py: fewer than 2 samples after the warm-up of %d inferences" % warmup)
    at_warmup = after[0][1]
    total, seconds = rows[-1][0], rows[-1][1]
    return {
        "inferences": total,
        "seconds": seconds,
        "inferences_per_second": total / seconds if seconds else 0.0,
        "rss_first_kib": rows[0][2],
        "rss_after_warmup_kib": at_warmup,
        "rss_max_kib": max(rss for _, _, rss in rows),
        "rss_last_kib": rows[-1][2],
        "growth_after_warmup_max_kib": max(rss for _, rss in after) - at_warmup,
        "growth_after_warmup_last_kib": rows[-1][2] - at_warmup,
        "slope_kib_per_10k": slope_kib_per_10k(after),
        "warmup": after[0][0],
    }


def plot(rows, f, path, title):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        return "plot skipped: matplotlib is not importable by %s (%s); scripts/install_python_tools.sh installs it" % (
            sys.executable, e)
    fig, ax = plt.subplots(figsize=(8, 4.5))
    ax.plot([n / 1000 for n, _, _ in rows], [rss / 1024 for _, _, rss in rows], marker=".", markersize=3, linewidth=1)
    ax.axvspan(0, f["warmup"] / 1000, color="0.9", label="warm-up")
    ax.axhline(f["rss_after_warmup_kib"] / 1024, color="0.5", linestyle="--", linewidth=0.8, label="RSS after warm-up")
    top = max(f["rss_max_kib"] / 1024 * 1.05, f["rss_after_warmup_kib"] / 1024 + 8)
    ax.set_ylim(0, top)  # from zero, so that a flat line looks flat and a leak looks like one
    ax.set_xlabel("inferences (thousands)")
    ax.set_ylabel("RSS (MiB)")
    ax.set_title(title)
    ax.legend(loc="lower right")
    ax.text(0.01, 0.02, "growth after warm-up: max %+d KiB, last %+d KiB; slope %+.1f KiB / 10k inferences"
            % (f["growth_after_warmup_max_kib"], f["growth_after_warmup_last_kib"], f["slope_kib_per_10k"]),
            transform=ax.transAxes, fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return "plot: " + path


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("samples")
    p.add_argument("--warmup", type=int, default=10000, help="inferences before the baseline (default 10000)")
    p.add_argument("--plot")
    p.add_argument("--title", default="RSS over a soak")
    a = p.parse_args()
    rows = read_samples(a.samples)
    f = figures(rows, a.warmup)
    print("inferences: %d in %.1f s (%.0f inferences/s)" % (f["inferences"], f["seconds"], f["inferences_per_second"]))
    print("RSS first: %d KiB (after compiling, before the first inference)" % f["rss_first_kib"])
    print("RSS after warm-up (%d inferences): %d KiB" % (f["warmup"], f["rss_after_warmup_kib"]))
    print("RSS max: %d KiB, last: %d KiB" % (f["rss_max_kib"], f["rss_last_kib"]))
    print("growth after warm-up: max %+d KiB, last %+d KiB; slope %+.1f KiB per 10,000 inferences"
          % (f["growth_after_warmup_max_kib"], f["growth_after_warmup_last_kib"], f["slope_kib_per_10k"]))
    if a.plot:
        print(plot(rows, f, a.plot, a.title))


if __name__ == "__main__":
    main()
