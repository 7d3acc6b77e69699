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
import shutil
import subprocess
import sys
import tempfile

import numpy as np

from harness import ADJOINT, ENV, GPT2_HEADER, LLAMA_HEADER, MPIRUN, TIMEOUT, TRAINING_KEYS, compare_models, floats, \
    identical, relative, report, skip, skip_without_mpi, train, write_tokens


def compare_states(workdir, one, two):
    """GPT-2 state.bin: the header (config and progress) identical; parameters, m and v each within
    1e-6 relative in norm."""
    failures = []
    with open(f"{workdir}/{one}/state.bin", "rb") as a, open(f"{workdir}/{two}/state.bin", "rb") as b:
        h1, h2 = a.read(GPT2_HEADER), b.read(GPT2_HEADER)
    if h1 != h2:
        failures.append(f"{one} vs {two} state.bin: headers (progress) differ")
    s1, s2 = floats(f"{workdir}/{one}/state.bin"), floats(f"{workdir}/{two}/state.bin")
    for name, a, b in zip(("parameters", "m", "v"), np.split(s1, 3), np.split(s2, 3)):
        worst = relative(a, b)
        print(f"{one} vs {two} state {name}: |a - b| / |a| = {worst:.2e}")
        if worst > 1e-6:
            failures.append(f"{one} vs {two} state {name} differ: {worst:.2e} > 1e-6")
    return failures


def main():
    if MPIRUN is None:
        skip("mpirun not found (apt-get install openmpi-bin)")
    failures = []
    with tempfile.TemporaryDirectory() as workdir:
        write_tokens(f"{workdir}/train.bin", 8000, 1)
        write_tokens(f"{workdir}/val.bin", 1200, 2)
        skip_without_mpi(train(workdir, "zero1-2", 2, extra=["--zero", "1"]))
        parameters = floats(f"{workdir}/zero1-2/model.bin").size
        run = [json.loads(line)["run"] for line in open(f"{workdir}/zero1-2/log.jsonl") if '"run"' in line][0]
        # ZeRO-1's moments per process: 2 floats for each of the shard's ceil(P / N) parameters.
        print(f"d1: {parameters} parameters; zero 1 over 2 processes keeps {run['adamw_moment_bytes_per_process']} "
              f"bytes of moments per process")
        if parameters % 3 == 0 or run["adamw_moment_bytes_per_process"] != 8 * -(-parameters // 2):
            failures.append(f"d1 has {parameters} parameters (a multiple of 3) or the run record says {run}")

        # --zero 1 against --zero 0, 2 and 3 processes (padding), and against 1 process.
        train(workdir, "zero0-2", 2)
        train(workdir, "one", 1, accum=4)
        failures += compare_models(workdir, "zero0-2", "zero1-2")
        failures += compare_models(workdir, "one", "zero1-2", TRAINING_KEYS)
        train(workdir, "zero1-3", 3, extra=["--zero", "1"])
        train(workdir, "one-6", 1, accum=6)
        failures += compare_models(workdir, "one-6", "zero1-3", TRAINING_KEYS)

        # Resume with --zero 1 under mpirun: bit-identical.
        train(workdir, "split", 2, extra=["--zero", "1", "--stop-at", "4"])
        shutil.copytree(f"{workdir}/split", f"{workdir}/at-4", symlinks=False)
        train(workdir, "split", 2, extra=["--zero", "1", "--resume", f"{workdir}/split/state.bin"])
        failures += identical(workdir, "zero1-2", "split")

        # Another process count and stage: 2 processes' checkpoint resumed by 1 process and back.
        train(workdir, "to-one", 1, accum=4, extra=["--resume", f"{workdir}/at-4/state.bin"])
        failures += compare_models(workdir, "one", "to-one") + compare_states(workdir, "one", "to-one")
        train(workdir, "one-split", 1, accum=4, extra=["--stop-at", "4"])
        train(workdir, "to-two", 2, extra=["--zero", "1", "--resume", f"{workdir}/one-split/state.bin"])
        failures += compare_models(workdir, "zero1-2", "to-two") + compare_states(workdir, "zero1-2", "to-two")

        # Llama: 2 x B=2 against 1 x B=4, both backward passes.
        # With the generated backward the 2 processes shard the moments.
        for backward, zero in (("manual", "0"), ("generated", "1")):
            train(workdir, f"llama-two-{backward}", 2, extra=["--backward", backward, "--zero", zero], model="llama-d1")
            train(workdir, f"llama-one-{backward}", 1, B=4, extra=["--backward", backward], model="llama-d1")
            failures += compare_models(workdir, f"llama-one-{backward}", f"llama-two-{backward}",
                                       header=LLAMA_HEADER)

        # Overlapped reduction during the manual backward: the same pieces summed in the same order
        # (2 layers, so that pieces start between layers).
        for model, zero in (("d2", "0"), ("d2", "1"), ("llama-d2", "0")):
            extra = ["--backward", "manual", "--zero", zero]
            train(workdir, f"{model}-{zero}", 2, extra=extra, model=model)
            train(workdir, f"{model}-{zero}-overlap", 2, extra=[*extra, "--overlap"], model=model)
            failures += identical(workdir, f"{model}-{zero}", f"{model}-{zero}-overlap")

        # --zero other than 0 or 1: the flags' one line.
        done = subprocess.run([ADJOINT, "train", "--zero", "2", "--train-tokens", f"{workdir}/train.bin"], env=ENV,
                              capture_output=True, text=True, timeout=TIMEOUT)
        lines = done.stderr.strip().splitlines()
        print(f"--zero 2: exit {done.returncode}, {lines}")
        if done.returncode == 0 or len(lines) != 1 or "--zero" not in lines[0] or "[0, 1]" not in lines[0]:
            failures.append(f"--zero 2: exit {done.returncode}, stderr:\n{done.stderr}")

    return report(failures)


if __name__ == "__main__":
    sys.exit(main())
