"""Data-parallel training under mpirun equals one process with the whole batch.

2 processes x B=2 against 1 process x B=4 (with gradient accumulation, validation and clipping) over
10 AdamW steps, with the arrays engine (adjc's backward where built) and the tensor engine: losses within 1e-6 relative and parameters within 1e-6 relative in norm, the only difference being the order in
which the rows' gradients are added. Also: a resumed 2-process run is bit-identical to an
uninterrupted one, processes started with different settings stop with a one-line error, and a
process killed with -9 or stopped (never answering) ends the job with a one-line error on the other
within the timeout (ADJOINT_MPI_TIMEOUT).

Usage: test_data_parallel.py ADJOINT_BIN   (skips loudly, exit 0, without mpirun or MPI)"""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time

import numpy as np

ADJOINT = sys.argv[1]
MPIRUN = shutil.which("mpirun")
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1", OMP_NUM_THREADS="1")
TIMEOUT = 300


def skip(why):
    print(f"SKIPPED LOUDLY: {why}")
    sys.exit(0)


def write_tokens(path, count, seed):
    rng = np.random.default_rng(seed)
    header = np.zeros(256, dtype=np.int32)
    header[:3] = [20240520, 1, count]
    with open(path, "wb") as f:
        f.write(header.tobytes())
        f.write(rng.integers(0, 67, count, dtype=np.uint16).tobytes())


def run(args, processes=1):
    command = ([MPIRUN, "-np", str(processes), "-x", "OMP_NUM_THREADS"] if processes > 1 else []) + args
    done = subprocess.run(command, env=ENV, capture_output=True, text=True, timeout=TIMEOUT)
    return done.returncode, done.stdout + done.stderr


def train(workdir, out, B, processes, extra=()):
    args = [ADJOINT, "train", "--model", "d1", "--train-tokens", f"{workdir}/train.bin",
            "--val-tokens", f"{workdir}/val.bin", "-B", str(B), "-T", "16", "--steps", "10",
            "--warmup", "2", "--lr", "1e-3", "--grad-accum", "2", "--grad-clip", "1.0",
            "--val-every", "5", "--val-steps", "2", "--sample-tokens", "4", "--seed", "5",
            "--out", f"{workdir}/{out}", *extra]
    code, output = run(args, processes)
    if code != 0:
        sys.exit(f"FAIL: {' '.join(args)} ({processes} processes) exited {code}:\n{output}")
    return output


def records(workdir, out, key):
    with open(f"{workdir}/{out}/log.jsonl") as log:
        return [(r["step"], r[key]) for r in map(json.loads, log) if key in r]


def parameters(path):
    with open(path, "rb") as f:
        data = f.read()
    return np.frombuffer(data[256 * 4:], dtype=np.float32)


def rank_pid(parent, rank):
    """The pid of the process mpirun (parent) started as `rank`."""
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{pid}/environ", "rb") as f:
                environ = f.read().split(b"\0")
        except OSError:
            continue
        if ppid == parent and f"OMPI_COMM_WORLD_RANK={rank}".encode() in environ:
            return int(pid)
    return None


def check_faults(workdir):
    """A process killed with -9, or stopped so that it never answers: the other ends within the
    timeout with its one line, and mpirun exits non-zero."""
    failures = []
    for signal_name, signal_number, timeout in (("kill -9", 9, None), ("SIGSTOP", 19, "3")):
        env = dict(ENV, ADJOINT_MPI_TIMEOUT=timeout) if timeout else ENV
        out = f"{workdir}/fault"
        shutil.rmtree(out, ignore_errors=True)
        command = [MPIRUN, "-np", "2", "-x", "OMP_NUM_THREADS", *(["-x", "ADJOINT_MPI_TIMEOUT"] if timeout else []),
                   ADJOINT, "train", "--model", "d1", "--train-tokens", f"{workdir}/train.bin", "-B", "2", "-T", "16",
                   "--steps", "100000", "--checkpoint-every", "5", "--out", out]
        job = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 120
        while time.time() < deadline and not os.path.exists(f"{out}/state.bin"):
            time.sleep(0.2)
        victim = rank_pid(job.pid, 1)
        if victim is None:
            job.kill()
            failures.append(f"{signal_name}: rank 1 not found")
            continue
        start = time.time()
        os.kill(victim, signal_number)
        try:
            _, stderr = job.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            job.kill()
            os.kill(victim, 9)
            failures.append(f"{signal_name}: the job still ran 60 s later")
            continue
        errors = [line for line in stderr.splitlines() if line.startswith("adjoint: error: rank 0:")]
        print(f"{signal_name} on rank 1: exit {job.returncode} after {time.time() - start:.1f} s; {errors}")
        if job.returncode == 0 or len(errors) != 1:
            failures.append(f"{signal_name}: exit {job.returncode}, stderr:\n{stderr}")
    return failures


def compare_runs(workdir, one, two):
    """Losses within 1e-6 relative, parameters within 1e-6 relative in norm."""
    failures = []
    for key in ("loss", "val_loss", "grad_norm"):
        a, b = records(workdir, one, key), records(workdir, two, key)
        if [s for s, _ in a] != [s for s, _ in b] or not a:
            failures.append(f"{two} {key}: steps differ: {a} vs {b}")
            continue
        worst = max(abs(x - y) / abs(x) for (_, x), (_, y) in zip(a, b))
        print(f"{two} {key}: {len(a)} records, largest relative difference {worst:.2e}")
        if worst > 1e-6:
            failures.append(f"{two} {key}: relative difference {worst:.2e} > 1e-6")
    p1 = parameters(f"{workdir}/{one}/model.bin")
    p2 = parameters(f"{workdir}/{two}/model.bin")
    # Relative in norm: AdamW divides by sqrt(v), so a parameter whose gradient nearly cancels
    # moves by a rounding-sized step that differs between the two runs in every digit.
    worst = np.linalg.norm(p1 - p2) / np.linalg.norm(p1)
    print(f"{two} parameters: {p1.size}, |one - two| / |one| = {worst:.2e}")
    if p1.shape != p2.shape or worst > 1e-6:
        failures.append(f"{two} parameters differ: {worst:.2e} > 1e-6")
    return failures


def main():
    if MPIRUN is None:
        skip("mpirun not found (apt-get install openmpi-bin)")
    failures = []
    with tempfile.TemporaryDirectory() as workdir:
        write_tokens(f"{workdir}/train.bin", 4000, 1)
        write_tokens(f"{workdir}/val.bin", 600, 2)
        two = train(workdir, "two", 2, 2)
        if "data-parallel over 2 processes" not in two:
            skip("this adjoint was built without MPI (no 'data-parallel over 2 processes' in its output)")
        train(workdir, "one", 4, 1)
        train(workdir, "two-tensor", 2, 2, ["--engine", "tensor"])
        train(workdir, "one-tensor", 4, 1, ["--engine", "tensor"])
        for one, two in (("one", "two"), ("one-tensor", "two-tensor")):
            failures += compare_runs(workdir, one, two)

        # Resume under mpirun: bit-identical to the uninterrupted 2-process run.
        train(workdir, "split", 2, 2, ["--stop-at", "4"])
        train(workdir, "split", 2, 2, ["--resume", f"{workdir}/split/state.bin"])
        for name in ("model.bin", "state.bin"):
            with open(f"{workdir}/two/{name}", "rb") as a, open(f"{workdir}/split/{name}", "rb") as b:
                if a.read() != b.read():
                    failures.append(f"resumed 2-process run: {name} differs from the uninterrupted run's")
        print("resume under mpirun: model.bin and state.bin compared")

        # Processes started with different settings stop at start, each with one line.
        base = [ADJOINT, "train", "--model", "d1", "--train-tokens", f"{workdir}/train.bin", "-T", "16",
                "--steps", "2", "--out", f"{workdir}/mismatch"]
        command = [MPIRUN, "-np", "1", "-x", "OMP_NUM_THREADS", *base, "-B", "2", ":",
                   "-np", "1", "-x", "OMP_NUM_THREADS", *base, "-B", "3"]
        done = subprocess.run(command, env=ENV, capture_output=True, text=True, timeout=TIMEOUT)
        errors = [line for line in done.stderr.splitlines() if line.startswith("adjoint: error:")]
        print(f"mismatched settings: exit {done.returncode}, {errors}")
        if done.returncode == 0 or len(errors) != 2 or not all("-B is" in e and "same settings" in e for e in errors):
            failures.append(f"mismatched settings: exit {done.returncode}, stderr:\n{done.stderr}")

        failures += check_faults(workdir)

    for failure in failures:
        print(f"FAIL: {failure}")
    print(f"{0 if failures else 1} passed, {1 if failures else 0} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
