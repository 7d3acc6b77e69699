"""Draws train and validation loss from an `adjoint train` log.jsonl into a PNG."""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(log_path: str, png_path: str) -> None:
    train, val = [], []
    with open(log_path) as log:
        for line in log:
            record = json.loads(line)
            if "loss" in record:
                train.append((record["step"], record["loss"]))
            if "val_loss" in record:
                val.append((record["step"], record["val_loss"]))
    if not train:
        sys.exit(f"plot_loss: error: {log_path} has no training steps")
    fig, ax = plt.subplots(figsize=(8, 5))
    ax.plot(*zip(*train), label="train", linewidth=1)
    if val:
        ax.plot(*zip(*val), "o-", label="val")
    ax.set_xlabel("step")
    ax.set_ylabel("cross-entropy loss")
    ax.set_title("Adjoint GPT-2 training")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.savefig(png_path, dpi=120, bbox_inches="tight")
    print(f"loss curve: {png_path}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: plot_loss.py LOG.jsonl OUT.png")
    main(sys.argv[1], sys.argv[2])
