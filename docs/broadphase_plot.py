#!/usr/bin/env python3
"""Plots the broad-phase benchmarks (criterion medians) as docs/broadphase.png and prints a
Markdown table of them.

Usage: python3 docs/broadphase_plot.py [CRITERION_DIR]   (default: target/criterion)
Run `cargo bench --no-default-features --bench broadphase` first.
"""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

KINDS = ["brute-force", "sweep-and-prune", "grid", "bvh", "octree"]
LAYOUTS = ["uniform", "clustered", "mixed"]
SIZES = [1000, 10000, 100000]


def median_ms(root, mode, layout, kind, n):
    path = os.path.join(root, f"{mode}_{layout}", kind, str(n), "new", "estimates.json")
    try:
        with open(path) as f:
            return json.load(f)["median"]["point_estimate"] / 1e6
    except OSError:
        return None


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join("target", "criterion")
    fig, axes = plt.subplots(2, 3, figsize=(13, 7.5), sharex=True)
    for row, mode in enumerate(["moving", "static"]):
        for col, layout in enumerate(LAYOUTS):
            ax = axes[row][col]
            for kind in KINDS:
                pts = [(n, median_ms(root, mode, layout, kind, n)) for n in SIZES]
                pts = [(n, t) for n, t in pts if t is not None]
                if pts:
                    ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=kind)
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.grid(True, which="both", alpha=0.3)
            ax.set_title(f"{mode}, {layout}")
            if col == 0:
                ax.set_ylabel("ms per step (one thread, CPU time)" if mode == "moving" else "ms to build + pair")
            if row == 1:
                ax.set_xlabel("boxes")
    axes[0][0].legend(fontsize=8)
    fig.suptitle("Collidoscope broad phases (criterion medians)")
    fig.tight_layout()
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "broadphase.png")
    fig.savefig(out, dpi=90)
    print(f"wrote {out}")

    for mode in ["moving", "static"]:
        print(f"\n{mode} (ms, median)\n")
        print("| scene | n | " + " | ".join(KINDS) + " |")
        print("|---|---:|" + "---:|" * len(KINDS))
        for layout in LAYOUTS:
            for n in SIZES:
                cells = []
                for kind in KINDS:
                    t = median_ms(root, mode, layout, kind, n)
                    cells.append("–" if t is None else f"{t:.3g}")
                print(f"| {layout} | {n} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
