"""What the distributed tests share: running `adjoint train` with or without mpirun on random
tokens, reading its logs and files, and comparing two runs.

The tests import it as `harness` (their folder is on sys.path) and pass the adjoint binary as
their first argument."""
import json
import os
import shutil
import subprocess
import sys

import numpy as np

ADJOINT = sys.argv[1]
MPIRUN = shutil.which("mpirun")
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1", OMP_NUM_THREADS="1")
TIMEOUT = 300
GPT2_HEADER = 256 * 4  # model and state files: 256 int32
LLAMA_HEADER = 512 * 4  # 256 int32 and 256 float32
ALL_KEYS = ("loss", "val_loss", "grad_norm")
# Validation reads N x B rows a batch: runs with another N x B validate on other rows.
TRAINING_KEYS = ("loss", "grad_norm")


def skip(why):
    print(f"SKIPPED LOUDLY: {why}")
    sys.exit(0)


def skip_without_mpi(output):
    """Call with the output of a 2-process run: skips when adjoint was built without MPI."""
    if "data-parallel over 2 processes" not in output:
        skip("this adjoint was built without MPI (no 'data-parallel over 2 processes' in its output)")


def write_tokens(path, count, seed):
    """A GPT-2 token file of count random tokens below 67 (d1's vocabulary and Llama's alike)."""
    rng = np.random.default_rng(seed)
    header = np.zeros(256, dtype=np.int32)
    header[:3] = [20240520, 1, count]
    with open(path, "wb") as f:
        f.write(header.tobytes())
        f.write(rng.integers(0, 67, count, dtype=np.uint16).tobytes())


def mpirun(processes, *more):
    """The mpirun command line for `processes` processes of 1 thread (more: mpirun's own flags)."""
    return [MPIRUN, "-np", str(processes), "-x", "OMP_NUM_THREADS", *more]


def train(workdir, out, processes, B=2, accum=2, extra=(), model="d1"):
    """10 AdamW steps (clipping, validation, samples) on workdir's train.bin and val.bin into
    workdir/out; the global batch is processes x B x accum rows of 16 tokens. Exits with FAIL when
    the run fails; returns its output."""
    args = [ADJOINT, "train", "--model", model, "--train-tokens", f"{workdir}/train.bin",
            "--val-tokens", f"{workdir}/val.bin", "-B", str(B), "-T", "16", "--steps", "10",
            "--warmup", "2", "--lr", "1e-3", "--grad-accum", str(accum), "--grad-clip", "1.0",
            "--val-every", "5", "--val-steps", "2", "--sample-tokens", "4", "--seed", "5",
            "--out", f"{workdir}/{out}", *extra]
    command = (mpirun(processes) if processes > 1 else []) + args
    done = subprocess.run(command, env=ENV, capture_output=True, text=True, timeout=TIMEOUT)
    if done.returncode != 0:
        sys.exit(f"FAIL: {' '.join(command)} exited {done.returncode}:\n{done.stdout}{done.stderr}")
    return done.stdout + done.stderr


def records(workdir, out, key):
    with open(f"{workdir}/{out}/log.jsonl") as log:
        return [(r["step"], r[key]) for r in map(json.loads, log) if key in r]


def floats(path, header=GPT2_HEADER):
    with open(path, "rb") as f:
        return np.frombuffer(f.read()[header:], dtype=np.float32)


def relative(a, b):
    """|a - b| / |a|: relative in norm, since AdamW divides by sqrt(v), so a parameter whose
    gradient nearly cancels moves by a rounding-sized step that differs between two runs in every
    digit."""
    return np.linalg.norm(a - b) / np.linalg.norm(a) if a.shape == b.shape else np.inf


def compare_logs(workdir, one, two, keys, tolerance=1e-6):
    """The logs' keys within tolerance relative, at the steps two logged (a resumed run logs from
    where it resumed)."""
    failures = []
    for key in keys:
        b = records(workdir, two, key)
        a = [(s, x) for s, x in records(workdir, one, key) if s >= (b[0][0] if b else 0)]
        if [s for s, _ in a] != [s for s, _ in b] or not a:
            failures.append(f"{two} {key}: steps differ: {a} vs {b}")
            continue
        worst = max(abs(x - y) / abs(x) for (_, x), (_, y) in zip(a, b))
        print(f"{one} vs {two} {key}: {len(a)} records, largest relative difference {worst:.2e}")
        if worst > tolerance:
            failures.append(f"{one} vs {two} {key}: relative difference {worst:.2e} > {tolerance}")
    return failures


def compare_models(workdir, one, two, keys=ALL_KEYS, header=GPT2_HEADER, tolerance=1e-6):
    """compare_logs, and the parameters in model.bin within tolerance relative in norm."""
    failures = compare_logs(workdir, one, two, keys, tolerance)
    p1, p2 = floats(f"{workdir}/{one}/model.bin", header), floats(f"{workdir}/{two}/model.bin", header)
    worst = relative(p1, p2)
    print(f"{one} vs {two} parameters: {p1.size}, |a - b| / |a| = {worst:.2e}")
    if worst > tolerance:
        failures.append(f"{one} vs {two} parameters differ: {worst:.2e} > {tolerance}")
    return failures


def identical(workdir, one, two):
    """model.bin and state.bin of two runs byte for byte."""
    failures = []
    for name in ("model.bin", "state.bin"):
        with open(f"{workdir}/{one}/{name}", "rb") as a, open(f"{workdir}/{two}/{name}", "rb") as b:
            if a.read() != b.read():
                failures.append(f"{two}: {name} differs from {one}'s")
    print(f"{one} vs {two}: model.bin and state.bin compared byte for byte")
    return failures


def report(failures):
    """Prints the failures and the count line; returns the exit status."""
    for failure in failures:
        print(f"FAIL: {failure}")
    print(f"{0 if failures else 1} passed, {1 if failures else 0} failed")
    return 1 if failures else 0
