"""ZeRO-1 (`--zero 1`) and Llama under mpirun.

- `--zero 1` equals `--zero 0` over 10 AdamW steps (clipping, validation, gradient accumulation):
  losses, gradient norms and parameters within 1e-6 relative, with 2 processes and with 3, so the
  parameter count (d1's) is padded to a multiple of 3 (asserted below).
- Resumed under mpirun with `--zero 1`: model.bin and state.bin bit-identical to the
  uninterrupted run's.
- A checkpoint of 2 processes with `--zero 1` resumed by 1 process with `--zero 0` (global batch
  kept by --grad-accum), and one of 1 process resumed by 2 with `--zero 1`: the progress in
  state.bin identical, parameters and both AdamW moments within 1e-6 relative in norm of the
  uninterrupted run's.
- `--overlap` (each layer's gradients summed during the manual backward): bit-identical to the
  blocking sum on 2 processes, with `--zero 0` and `--zero 1`, GPT-2 and Llama.
- `--zero 2` is refused with the one-line flag error.
- Llama (llama-d1): 2 processes x B=2 equal 1 process x B=4, manual backward (--zero 0) and
  generated (--zero 1).

Usage: test_zero.py ADJOINT_BIN   (skips loudly, exit 0, without mpirun or MPI)"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

ADJOINT = sys.argv[1]
MPIRUN = shutil.which("mpirun")
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1", OMP_NUM_THREADS="1")
TIMEOUT = 300
GPT2_HEADER = 256 * 4  # model and state files: 256 int32
LLAMA_HEADER = 512 * 4  # 256 int32 and 256 float32


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


def train(workdir, out, processes, accum, extra=(), B=2, model="d1"):
    """10 steps; the global batch is processes x B x accum rows of 16 tokens."""
    args = [ADJOINT, "train", "--model", model, "--train-tokens", f"{workdir}/train.bin",
            "--val-tokens", f"{workdir}/val.bin", "-B", str(B), "-T", "16", "--steps", "10",
            "--warmup", "2", "--lr", "1e-3", "--grad-accum", str(accum), "--grad-clip", "1.0",
            "--val-every", "5", "--val-steps", "2", "--sample-tokens", "4", "--seed", "5",
            "--out", f"{workdir}/{out}", *extra]
    command = ([MPIRUN, "-np", str(processes), "-x", "OMP_NUM_THREADS"] if processes > 1 else []) + args
    done = subprocess.run(command, env=ENV, capture_output=True, text=True, timeout=TIMEOUT)
    if done.returncode != 0:
        sys.exit(f"FAIL: {' '.join(command)} exited {done.returncode}:\n{done.stdout}{done.stderr}")
    return done.stdout + done.stderr


def records(workdir, out, key):
    with open(f"{workdir}/{out}/log.jsonl") as log:
        return [(r["step"], r[key]) for r in map(json.loads, log) if key in r]


def floats(path, header):
    with open(path, "rb") as f:
        return np.frombuffer(f.read()[header:], dtype=np.float32)


def relative(a, b):
    return np.linalg.norm(a - b) / np.linalg.norm(a) if a.shape == b.shape else np.inf


ALL_KEYS = ("loss", "val_loss", "grad_norm")
# Validation reads N x B rows a batch: runs with another N x B validate on other rows.
TRAINING_KEYS = ("loss", "grad_norm")


def compare_logs(workdir, one, two, keys):
    """The logs' keys within 1e-6 relative, at the steps two logged (a resumed run logs from where
    it resumed)."""
    failures = []
    for key in keys:
        b = records(workdir, two, key)
        a = [(s, x) for s, x in records(workdir, one, key) if s >= (b[0][0] if b else 0)]
        if [s for s, _ in a] != [s for s, _ in b] or not a:
            failures.append(f"{two} {key}: steps differ: {a} vs {b}")
            continue
        worst = max(abs(x - y) / abs(x) for (_, x), (_, y) in zip(a, b))
        print(f"{one} vs {two} {key}: {len(a)} records, largest relative difference {worst:.2e}")
        if worst > 1e-6:
            failures.append(f"{one} vs {two} {key}: relative difference {worst:.2e} > 1e-6")
    return failures


def compare_models(workdir, one, two, keys=ALL_KEYS, header=GPT2_HEADER):
    """compare_logs, and the parameters within 1e-6 relative in norm."""
    failures = compare_logs(workdir, one, two, keys)
    p1, p2 = floats(f"{workdir}/{one}/model.bin", header), floats(f"{workdir}/{two}/model.bin", header)
    worst = relative(p1, p2)
    print(f"{one} vs {two} parameters: {p1.size}, |a - b| / |a| = {worst:.2e}")
    if worst > 1e-6:
        failures.append(f"{one} vs {two} parameters differ: {worst:.2e} > 1e-6")
    return failures


def compare_states(workdir, one, two):
    """GPT-2 state.bin: the header (config and progress) identical; parameters, m and v each within
    1e-6 relative in norm."""
    failures = []
    with open(f"{workdir}/{one}/state.bin", "rb") as a, open(f"{workdir}/{two}/state.bin", "rb") as b:
        h1, h2 = a.read(GPT2_HEADER), b.read(GPT2_HEADER)
    if h1 != h2:
        failures.append(f"{one} vs {two} state.bin: headers (progress) differ")
    s1, s2 = floats(f"{workdir}/{one}/state.bin", GPT2_HEADER), floats(f"{workdir}/{two}/state.bin", GPT2_HEADER)
    for name, a, b in zip(("parameters", "m", "v"), np.split(s1, 3), np.split(s2, 3)):
        worst = relative(a, b)
        print(f"{one} vs {two} state {name}: |a - b| / |a| = {worst:.2e}")
        if worst > 1e-6:
            failures.append(f"{one} vs {two} state {name} differ: {worst:.2e} > 1e-6")
    return failures


def identical(workdir, one, two):
    failures = []
    for name in ("model.bin", "state.bin"):
        with open(f"{workdir}/{one}/{name}", "rb") as a, open(f"{workdir}/{two}/{name}", "rb") as b:
            if a.read() != b.read():
                failures.append(f"{two}: {name} differs from {one}'s")
    print(f"{one} vs {two}: model.bin and state.bin compared byte for byte")
    return failures


def main():
    if MPIRUN is None:
        skip("mpirun not found (apt-get install openmpi-bin)")
    failures = []
    with tempfile.TemporaryDirectory() as workdir:
        write_tokens(f"{workdir}/train.bin", 8000, 1)
        write_tokens(f"{workdir}/val.bin", 1200, 2)
        output = train(workdir, "zero1-2", 2, 2, ["--zero", "1"])
        if "data-parallel over 2 processes" not in output:
            skip("this adjoint was built without MPI (no 'data-parallel over 2 processes' in its output)")
        parameters = floats(f"{workdir}/zero1-2/model.bin", GPT2_HEADER).size
        run = [json.loads(line)["run"] for line in open(f"{workdir}/zero1-2/log.jsonl") if '"run"' in line][0]
        # ZeRO-1's moments per process: 2 floats for each of the shard's ceil(P / N) parameters.
        print(f"d1: {parameters} parameters; zero 1 over 2 processes keeps {run['adamw_moment_bytes_per_process']} "
              f"bytes of moments per process")
        if parameters % 3 == 0 or run["adamw_moment_bytes_per_process"] != 8 * -(-parameters // 2):
            failures.append(f"d1 has {parameters} parameters (a multiple of 3) or the run record says {run}")

        # --zero 1 against --zero 0, 2 and 3 processes (padding), and against 1 process.
        train(workdir, "zero0-2", 2, 2)
        train(workdir, "one", 1, 4)
        failures += compare_models(workdir, "zero0-2", "zero1-2")
        failures += compare_models(workdir, "one", "zero1-2", TRAINING_KEYS)
        train(workdir, "zero1-3", 3, 2, ["--zero", "1"])
        train(workdir, "one-6", 1, 6)
        failures += compare_models(workdir, "one-6", "zero1-3", TRAINING_KEYS)

        # Resume with --zero 1 under mpirun: bit-identical.
        train(workdir, "split", 2, 2, ["--zero", "1", "--stop-at", "4"])
        shutil.copytree(f"{workdir}/split", f"{workdir}/at-4", symlinks=False)
        train(workdir, "split", 2, 2, ["--zero", "1", "--resume", f"{workdir}/split/state.bin"])
        failures += identical(workdir, "zero1-2", "split")

        # Another process count and stage: 2 processes' checkpoint resumed by 1 process and back.
        train(workdir, "to-one", 1, 4, ["--resume", f"{workdir}/at-4/state.bin"])
        failures += compare_models(workdir, "one", "to-one") + compare_states(workdir, "one", "to-one")
        train(workdir, "one-split", 1, 4, ["--stop-at", "4"])
        train(workdir, "to-two", 2, 2, ["--zero", "1", "--resume", f"{workdir}/one-split/state.bin"])
        failures += compare_models(workdir, "zero1-2", "to-two") + compare_states(workdir, "zero1-2", "to-two")

        # Llama: 2 x B=2 against 1 x B=4, both backward passes.
        # With the generated backward the 2 processes shard the moments.
        for backward, zero in (("manual", "0"), ("generated", "1")):
            train(workdir, f"llama-two-{backward}", 2, 2, ["--backward", backward, "--zero", zero], model="llama-d1")
            train(workdir, f"llama-one-{backward}", 1, 2, ["--backward", backward], B=4, model="llama-d1")
            failures += compare_models(workdir, f"llama-one-{backward}", f"llama-two-{backward}",
                                       header=LLAMA_HEADER)

        # Overlapped reduction during the manual backward: the same pieces summed in the same order
        # (2 layers, so that pieces start between layers).
        for model, zero in (("d2", "0"), ("d2", "1"), ("llama-d2", "0")):
            extra = ["--backward", "manual", "--zero", zero]
            train(workdir, f"{model}-{zero}", 2, 2, extra, model=model)
            train(workdir, f"{model}-{zero}-overlap", 2, 2, [*extra, "--overlap"], model=model)
            failures += identical(workdir, f"{model}-{zero}", f"{model}-{zero}-overlap")

        # --zero other than 0 or 1: the flags' one line.
        done = subprocess.run([ADJOINT, "train", "--zero", "2", "--train-tokens", f"{workdir}/train.bin"], env=ENV,
                              capture_output=True, text=True, timeout=TIMEOUT)
        lines = done.stderr.strip().splitlines()
        print(f"--zero 2: exit {done.returncode}, {lines}")
        if done.returncode == 0 or len(lines) != 1 or "--zero" not in lines[0] or "[0, 1]" not in lines[0]:
            failures.append(f"--zero 2: exit {done.returncode}, stderr:\n{done.stderr}")

    for failure in failures:
        print(f"FAIL: {failure}")
    print(f"{0 if failures else 1} passed, {1 if failures else 0} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
