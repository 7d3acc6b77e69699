"""Data-parallel training under mpirun equals one process with the whole batch.

2 processes x B=2 against 1 process x B=4 (with gradient accumulation, validation and clipping) over
10 AdamW steps, with the arrays engine (adjc's backward where built) and the tensor engine: losses
within 1e-6 relative and parameters within 1e-6 relative in norm, the only difference being the
order in which the rows' gradients are added. Also: a resumed 2-process run is bit-identical to an
uninterrupted one, processes started with different settings stop with exactly one line (rank 0's,
naming the setting, the first differing rank and both values) and a non-zero exit, and a process
killed with -9 or stopped (never answering) ends the job with a one-line error on the other
within the timeout (ADJOINT_MPI_TIMEOUT).

Usage: test_data_parallel.py ADJOINT_BIN   (skips loudly, exit 0, without mpirun or MPI)"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

from harness import ADJOINT, ENV, MPIRUN, TIMEOUT, compare_models, identical, mpirun, report, skip, \
    skip_without_mpi, train, write_tokens


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
    # 10 s: long enough that a slow step (under ASan, on a loaded machine) never trips it by itself.
    for signal_name, signal_number, timeout in (("kill -9", 9, None), ("SIGSTOP", 19, "10")):
        env = dict(ENV, ADJOINT_MPI_TIMEOUT=timeout) if timeout else ENV
        out = f"{workdir}/fault"
        shutil.rmtree(out, ignore_errors=True)
        command = [*mpirun(2, *(["-x", "ADJOINT_MPI_TIMEOUT"] if timeout else [])), ADJOINT, "train", "--model", "d1",
                   "--train-tokens", f"{workdir}/train.bin", "-B", "2", "-T", "16",
                   "--steps", "100000", "--checkpoint-every", "5", "--out", out]
        job = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 120
        while time.time() < deadline and job.poll() is None and not os.path.exists(f"{out}/state.bin"):
            time.sleep(0.2)
        victim = rank_pid(job.pid, 1) if job.poll() is None else None
        if victim is None:
            job.kill()
            _, stderr = job.communicate()
            failures.append(f"{signal_name}: rank 1 not found (the job exited {job.returncode}), stderr:\n{stderr}")
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


def main():
    if MPIRUN is None:
        skip("mpirun not found (apt-get install openmpi-bin)")
    failures = []
    with tempfile.TemporaryDirectory() as workdir:
        write_tokens(f"{workdir}/train.bin", 4000, 1)
        write_tokens(f"{workdir}/val.bin", 600, 2)
        two = train(workdir, "two", 2)
        skip_without_mpi(two)
        train(workdir, "one", 1, B=4)
        train(workdir, "two-tensor", 2, extra=["--engine", "tensor"])
        train(workdir, "one-tensor", 1, B=4, extra=["--engine", "tensor"])
        for one, two in (("one", "two"), ("one-tensor", "two-tensor")):
            failures += compare_models(workdir, one, two)

        # Resume under mpirun: bit-identical to the uninterrupted 2-process run.
        train(workdir, "split", 2, extra=["--stop-at", "4"])
        train(workdir, "split", 2, extra=["--resume", f"{workdir}/split/state.bin"])
        failures += identical(workdir, "two", "split")

        # Processes started with different settings stop at start: rank 0 says so in one line.
        base = [ADJOINT, "train", "--model", "d1", "--train-tokens", f"{workdir}/train.bin", "-T", "16",
                "--steps", "2", "--out", f"{workdir}/mismatch"]
        command = [*mpirun(1), *base, "-B", "2", ":", *mpirun(1)[1:], *base, "-B", "3"]
        done = subprocess.run(command, env=ENV, capture_output=True, text=True, timeout=TIMEOUT)
        errors = [line for line in done.stderr.splitlines() if line.startswith("adjoint: error:")]
        print(f"mismatched settings: exit {done.returncode}, {errors}")
        expected = ("adjoint: error: -B is 3 on rank 1 but 2 on rank 0; every process must be started with the same "
                    "settings and data")
        if done.returncode == 0 or errors != [expected]:
            failures.append(f"mismatched settings: exit {done.returncode}, stderr:\n{done.stderr}")

        failures += check_faults(workdir)

    return report(failures)


if __name__ == "__main__":
    sys.exit(main())
