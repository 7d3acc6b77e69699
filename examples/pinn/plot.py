#!/usr/bin/python3
"""Plots the PINN's solution, the exact one and the error from DIR/solution.csv into DIR/pinn.png.

   examples/pinn/plot.py DIR
"""
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: plot.py DIR (holding solution.csv, written by pinn --out DIR)")
    folder = sys.argv[1]
    try:
        data = np.loadtxt(f"{folder}/solution.csv", delimiter=",", skiprows=1)
    except (OSError, ValueError) as e:
        sys.exit(f"plot.py: error: cannot read {folder}/solution.csv: {e}")
    n = int(round(np.sqrt(len(data))))
    if n * n != len(data) or data.shape[1] != 4:
        sys.exit(f"plot.py: error: {folder}/solution.csv is not an n x n grid of x,y,u,exact")
    x, y, u, exact = (data[:, k].reshape(n, n) for k in range(4))
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.2))
    for ax, field, title in zip(axes, (u, exact, np.abs(u - exact)),
                                ("network u", "exact sin(πx) sin(πy)", "|u - exact|")):
        image = ax.pcolormesh(x, y, field, shading="auto", cmap="viridis")
        ax.set_title(title)
        ax.set_aspect("equal")
        fig.colorbar(image, ax=ax)
    error = np.sqrt(np.sum((u - exact) ** 2) / np.sum(exact ** 2))
    fig.suptitle(f"PINN for -Δu = 2π² sin(πx) sin(πy): relative L2 error {error:.2e}")
    fig.savefig(f"{folder}/pinn.png", dpi=90, bbox_inches="tight")
    print(f"wrote {folder}/pinn.png")


if __name__ == "__main__":
    main()
