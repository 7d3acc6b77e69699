"""`adjoint train` killed with SIGKILL while it writes checkpoints, then resumed, until it finishes.

Each kill lands while a checkpoint is being written (the script waits for a checkpoint-*.tmp folder
to appear, then kills after a random few milliseconds). After every kill, model.bin and state.bin
must hold the parameters of one step. A run into a folder whose lock is held must be refused. At
the end there must be no temporaries and one checkpoint folder, and model.bin, state.bin and the
log's steps must equal those of a run that was never interrupted.
Usage: checkpoint_kill_test.py ADJOINT [KILLS]"""
import fcntl
import json
import os
import random
import signal
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MAX_T, V, L, NH, C = 32, 67, 2, 2, 64
PADDED_V = 128
STEPS = 30
HEADER_BYTES = 1024


def parameter_count():
    return (PADDED_V * C + MAX_T * C + L * (2 * C + 3 * C * C + 3 * C + C * C + C + 2 * C + 4 * C * C + 4 * C +
                                            4 * C * C + C) + 2 * C)


def write_inputs(folder):
    rng = random.Random(1)
    header = struct.pack("<256i", 20240326, 3, MAX_T, V, L, NH, C, PADDED_V, *([0] * 248))
    values = [rng.gauss(0, 0.02) for _ in range(parameter_count())]
    (folder / "init.bin").write_bytes(header + struct.pack(f"<{len(values)}f", *values))
    tokens = [rng.randrange(V) for _ in range(4000)]
    (folder / "train.bin").write_bytes(struct.pack("<256i", 20240520, 1, len(tokens), *([0] * 253)) +
                                       struct.pack(f"<{len(tokens)}H", *tokens))


def train_command(adjoint, folder, out, resume):
    start = ["--resume", str(out / "state.bin")] if resume else ["--model", str(folder / "init.bin")]
    # An empty --bpe-dir: the tiny vocabulary prints token ids, and no time goes to loading GPT-2's.
    return [adjoint, "train", *start, "--train-tokens", str(folder / "train.bin"), "-B", "2", "-T", "16",
            "--steps", str(STEPS), "--lr", "1e-3", "--checkpoint-every", "1", "--sample-every", "7",
            "--sample-tokens", "3", "--val-every", "0", "--seed", "5", "--bpe-dir", str(folder), "--out", str(out)]


def train_steps(log):
    """The log's records without timings (which differ between runs) and each run's own record of what ran."""
    records = [json.loads(line) for line in log.read_text().splitlines()]
    return [{k: v for k, v in r.items() if k not in ("ms", "tok_per_s", "reduce_ms")} for r in records if "run" not in r]


def temporaries(out):
    """The names of out's "*.tmp" entries (a checkpoint being written)."""
    try:
        return {p.name for p in out.iterdir() if p.name.endswith(".tmp")}
    except FileNotFoundError:
        return set()


def pair_problem(out, parameters=None):
    """None if out's model.bin and state.bin hold the same parameters (parameter_count() of them
    unless given), or neither exists."""
    model, state = out / "model.bin", out / "state.bin"
    if not model.exists() and not state.exists():
        return None
    if not (model.exists() and state.exists()):
        return f"only one of model.bin and state.bin: {sorted(p.name for p in out.iterdir())}"
    params = model.read_bytes()[HEADER_BYTES:]
    if len(params) != 4 * (parameters or parameter_count()):
        return f"model.bin has {len(params)} parameter bytes"
    if state.read_bytes()[HEADER_BYTES:HEADER_BYTES + len(params)] != params:
        return "model.bin and state.bin hold different parameters"
    return None


def busy_folder_problems(adjoint, folder, out):
    """While this script holds out/train.lock as a run would, a run into out must be refused."""
    out.mkdir()
    with open(out / "train.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        lock.write(str(os.getpid()))
        lock.flush()
        second = subprocess.run(train_command(adjoint, folder, out, False), capture_output=True, text=True)
    expected = (f"adjoint: error: {out} is in use by another `adjoint train` (pid {os.getpid()}); wait for it to "
                "finish or choose another --out\n")
    # (The line before it says that the empty --bpe-dir has no tokenizer.)
    if second.returncode == 0 or not second.stderr.endswith(expected):
        return [f"a run into a busy folder: exit {second.returncode}, stderr {second.stderr!r}"]
    return []


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(f"usage: {sys.argv[0]} ADJOINT [KILLS]")
    adjoint = str(Path(sys.argv[1]).resolve())
    kills = int(sys.argv[2]) if len(sys.argv) == 3 else 8
    rng = random.Random(int(os.environ.get("ADJOINT_KILL_SEED", "7")))
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        write_inputs(folder)
        full, out = folder / "full", folder / "killed"
        subprocess.run(train_command(adjoint, folder, full, False), check=True, capture_output=True)

        failures += busy_folder_problems(adjoint, folder, out)
        for kill in range(kills):
            left_by_kill = temporaries(out)
            process = subprocess.Popen(train_command(adjoint, folder, out, (out / "state.bin").exists()),
                                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            # The run removes what the last kill left, then writes a checkpoint of its own.
            deadline = time.monotonic() + 60
            while process.poll() is None and time.monotonic() < deadline and left_by_kill & temporaries(out):
                time.sleep(0.0005)
            while process.poll() is None and time.monotonic() < deadline and not temporaries(out):
                time.sleep(0.0005)
            if process.poll() is not None:
                failures.append(f"kill {kill}: the run ended before a checkpoint was being written "
                                f"(exit {process.returncode}): {process.stderr.read()!r}")
                break
            time.sleep(rng.uniform(0, 0.01))
            process.send_signal(signal.SIGKILL)
            process.wait()
            process.stderr.close()
            problem = pair_problem(out)
            if problem:
                failures.append(f"after kill {kill}: {problem}")
        finished = subprocess.run(train_command(adjoint, folder, out, (out / "state.bin").exists()),
                                  capture_output=True, text=True)
        if finished.returncode != 0:
            failures.append(f"the last resume failed: {finished.stderr!r}")
        left = sorted(p.name for p in out.iterdir())
        if [n for n in left if n.endswith(".tmp")] or sum(n.startswith("checkpoint-") for n in left) != 1:
            failures.append(f"left in the folder: {left}")
        for name in ("model.bin", "state.bin"):
            if (full / name).read_bytes() != (out / name).read_bytes():
                failures.append(f"{name} differs from the uninterrupted run's")
        if train_steps(full / "log.jsonl") != train_steps(out / "log.jsonl"):
            failures.append("log.jsonl differs from the uninterrupted run's (timings aside)")
    for failure in failures:
        print("FAIL", failure, file=sys.stderr)
    print(f"{kills} kills during checkpoints, then a resume: {'FAILED' if failures else 'all checks passed'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
