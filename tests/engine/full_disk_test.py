"""`adjoint train` writing into a small file system (a tmpfs in a private mount namespace) that fills up.

1. Not enough space for the next checkpoint: the run stops before writing it, with one line naming
   the folder and the space needed, exit 1; the previous checkpoint stays (latest points to it,
   model.bin and state.bin of its step), no temporaries; resumed once there is space, the run
   ends with the files and log of a run that never stopped.
2. The check passes but the disk fills while the checkpoint is written (tmpfs rounds each file up
   to whole pages, which the estimate does not count): exit 1 naming the file, the half-written
   checkpoint folder is removed, the previous one stays, and the resume ends as in 1.
3. The disk fills while the run writes its log: exit 1 with "cannot write <log>: No space left on
   device", and the log holds whole lines only.
Needs mount rights in a private mount namespace (`unshare -m`, root); exits 77 (ctest: skipped)
with the reason when it has none. Usage: full_disk_test.py ADJOINT"""
import contextlib
import json
import os
import random
import re
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from checkpoint_kill_test import pair_problem, temporaries, train_steps

SKIP = 77
PAGE = 4096
# A GPT-2 whose files tmpfs rounds up to one page more than checkpoint_bytes estimates (scenario 2).
MAX_T, V, L, NH, C, PADDED_V = 33, 67, 2, 2, 64, 128
N = PADDED_V * C + MAX_T * C + L * (12 * C * C + 13 * C) + 2 * C
CHECKPOINT_BYTES = 2 * 1024 + 4 * N * 4  # as checkpoint_bytes in src/llm/checkpoint.cpp
STEPS = 4


# One thread (the tiny model gains nothing from more on a loaded machine), and OpenBLAS's own
# kernel choice (a user's OPENBLAS_CORETYPE would add a warning line to stderr).
ENVIRONMENT = {**{k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"}, "OMP_NUM_THREADS": "1"}


def pages(size):
    return -(-size // PAGE)


CHECKPOINT_PAGES = pages(1024 + 4 * N) + pages(1024 + 12 * N)  # model.bin and state.bin on tmpfs
assert CHECKPOINT_PAGES * PAGE > pages(CHECKPOINT_BYTES) * PAGE, "the shape must leave scenario 2 its gap"


def format_bytes(size, round_up):
    """As check_free_space's message in src/llm/file_io.cpp."""
    units, unit, scale = ["bytes", "KB", "MB", "GB", "TB"], 0, 1
    while unit < 4 and size // (scale * 1024) >= 10:
        unit, scale = unit + 1, scale * 1024
    return f"{-(-size // scale) if round_up else size // scale} {units[unit]}"


def write_inputs(folder):
    rng = random.Random(1)
    header = struct.pack("<256i", 20240326, 3, MAX_T, V, L, NH, C, PADDED_V, *([0] * 248))
    (folder / "init.bin").write_bytes(header + struct.pack(f"<{N}f", *[rng.gauss(0, 0.02) for _ in range(N)]))
    tokens = [rng.randrange(V) for _ in range(4000)]
    (folder / "train.bin").write_bytes(struct.pack("<256i", 20240520, 1, len(tokens), *([0] * 253)) +
                                       struct.pack(f"<{len(tokens)}H", *tokens))


def train_command(adjoint, folder, out, resume, steps=STEPS, checkpoint_every=1):
    start = ["--resume", str(out / "state.bin")] if resume else ["--model", str(folder / "init.bin")]
    # An empty --bpe-dir: the tiny vocabulary prints token ids, and no time goes to loading GPT-2's.
    return [adjoint, "train", *start, "--train-tokens", str(folder / "train.bin"), "-B", "2", "-T", "16",
            "--steps", str(steps), "--lr", "1e-3", "--checkpoint-every", str(checkpoint_every), "--val-every", "0",
            "--seed", "5", "--bpe-dir", str(folder), "--out", str(out)]


def error_lines(stderr):
    """stderr without the warning that the empty --bpe-dir has no tokenizer."""
    return [line for line in stderr.splitlines() if not line.startswith("train: no tokenizer")]


def whole_json_lines(text):
    try:
        return text.endswith("\n") and all(isinstance(json.loads(line), dict) for line in text.splitlines())
    except ValueError:
        return False


def mount_tmpfs(disk, size, remount=False):
    options = ("remount," if remount else "") + f"size={size}"
    subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(disk)], check=True)


@contextlib.contextmanager
def small_disk(disk, size):
    """A tmpfs of size bytes (whole pages) mounted on disk while the block runs."""
    mount_tmpfs(disk, size)
    try:
        yield
    finally:
        subprocess.run(["umount", "--lazy", str(disk)], check=True)


def kept_checkpoint_problems(out, step):
    """What is wrong with out's checkpoint, which must be the one of `step`, alone and whole."""
    problems = []
    latest = os.readlink(out / "latest") if (out / "latest").is_symlink() else None
    if latest != f"checkpoint-{step:08d}":
        problems.append(f"latest points to {latest}")
    if pair_problem(out, N):
        problems.append(pair_problem(out, N))
    elif struct.unpack_from("<q", (out / "state.bin").read_bytes(), 32)[0] != step:
        problems.append(f"state.bin is not from step {step}")
    left = sorted(p.name for p in out.iterdir())
    if temporaries(out) or sum(name.startswith("checkpoint-") for name in left) != 1:
        problems.append(f"left in the folder: {left}")
    return problems


def resume_problems(adjoint, folder, disk, out, full):
    """Given room, a resume from the kept checkpoint ends where the uninterrupted run did."""
    mount_tmpfs(disk, 16 * CHECKPOINT_PAGES * PAGE, remount=True)
    resumed = subprocess.run(train_command(adjoint, folder, out, True), capture_output=True, text=True,
                             env=ENVIRONMENT)
    if resumed.returncode != 0:
        return [f"the resume failed: {resumed.stderr!r}"]
    problems = [f"{name} differs from the uninterrupted run's" for name in ("model.bin", "state.bin")
                if (full / name).read_bytes() != (out / name).read_bytes()]
    if train_steps(full / "log.jsonl") != train_steps(out / "log.jsonl"):
        problems.append("log.jsonl differs from the uninterrupted run's (timings aside)")
    return problems


def checkpoint_scenario(adjoint, folder, disk, full, free_pages_at_step_2, expected):
    """A run with a checkpoint every step on a disk with free_pages_at_step_2 pages free when the
    checkpoint of step 2 is due (the lock file and the log take a page each)."""
    with small_disk(disk, (2 + CHECKPOINT_PAGES + free_pages_at_step_2) * PAGE):
        out = disk / "run"
        run = subprocess.run(train_command(adjoint, folder, out, False), capture_output=True, text=True,
                             env=ENVIRONMENT)
        problems = []
        if run.returncode != 1 or not re.fullmatch(expected(out), "\n".join(error_lines(run.stderr))):
            problems.append(f"exit {run.returncode}, stderr {run.stderr!r}, expected {expected(out)!r}")
        problems += kept_checkpoint_problems(out, 1)
        return problems + resume_problems(adjoint, folder, disk, out, full)


def log_scenario(adjoint, folder, disk):
    """The disk fills (a file written by this script) while the run logs its steps."""
    with small_disk(disk, (4 + CHECKPOINT_PAGES) * PAGE):
        return log_problems(adjoint, folder, disk, disk / "run")


def log_problems(adjoint, folder, disk, out):
    process = subprocess.Popen(train_command(adjoint, folder, out, False, steps=100000, checkpoint_every=0),
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=ENVIRONMENT)
    log = out / "log.jsonl"
    deadline = time.monotonic() + 60
    while process.poll() is None and time.monotonic() < deadline and (not log.exists() or log.stat().st_size < 500):
        time.sleep(0.01)
    with open(disk / "filler", "wb", buffering=0) as filler:
        try:
            while filler.write(b"\0" * PAGE):
                pass
        except OSError:
            pass
    try:
        stderr = process.communicate(timeout=60)[1]
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        return [f"the run did not stop within 60 s of the disk filling up; the log has {log.stat().st_size} bytes"]
    problems = []
    expected = f"adjoint: error: cannot write {log}: No space left on device"
    if process.returncode != 1 or error_lines(stderr) != [expected]:
        problems.append(f"exit {process.returncode}, stderr {stderr!r}, expected {expected!r}")
    text = log.read_text()
    if not whole_json_lines(text):
        problems.append(f"the log does not hold whole JSON lines only; it ends {text[-200:]!r}")
    return problems


def main():
    if len(sys.argv) != 2:
        sys.exit(f"usage: {sys.argv[0]} ADJOINT")
    adjoint = str(Path(sys.argv[1]).resolve())
    if os.environ.get("ADJOINT_FULL_DISK_NAMESPACE") != "1":
        # Run again in a private mount namespace, where mounts vanish with the process.
        probe = subprocess.run(["unshare", "--mount", "--propagation", "private", "true"], capture_output=True,
                               text=True)
        if probe.returncode != 0:
            print(f"SKIPPED: no private mount namespace (unshare -m: {probe.stderr.strip()})")
            return SKIP
        env = dict(os.environ, ADJOINT_FULL_DISK_NAMESPACE="1")
        return subprocess.run(["unshare", "--mount", "--propagation", "private", sys.executable, *sys.argv],
                              env=env).returncode
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        disk = folder / "disk"
        disk.mkdir()
        try:
            with small_disk(disk, 64 * 1024):
                pass
        except subprocess.CalledProcessError as e:
            print(f"SKIPPED: cannot mount a tmpfs ({e})")
            return SKIP
        write_inputs(folder)
        full = folder / "full"
        subprocess.run(train_command(adjoint, folder, full, False), check=True, capture_output=True, env=ENVIRONMENT)

        failures = []
        free = (pages(CHECKPOINT_BYTES) - 100) * PAGE  # well short of a checkpoint
        failures += [f"no room for a checkpoint: {p}" for p in checkpoint_scenario(
            adjoint, folder, disk, full, pages(CHECKPOINT_BYTES) - 100,
            lambda out: re.escape(f"adjoint: error: not enough free space in {out} for the checkpoint of step 2: "
                                  f"it needs {format_bytes(CHECKPOINT_BYTES, True)}, {format_bytes(free, False)} "
                                  f"are free; stopped without saving (the checkpoint in {out} is from step 1)"))]
        failures += [f"the disk filling during a checkpoint: {p}" for p in checkpoint_scenario(
            adjoint, folder, disk, full, pages(CHECKPOINT_BYTES),
            lambda out: re.escape(f"adjoint: error: cannot write {out}/checkpoint-00000002.tmp/state.bin: "
                                  "No space left on device"))]
        failures += [f"the disk filling during logging: {p}" for p in log_scenario(adjoint, folder, disk)]
    for failure in failures:
        print("FAIL", failure)
    print(f"full disk: {'FAILED' if failures else 'all checks passed'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
