"""The tensor GPT-2's loss and gradient (tensor_grad: nn::gpt2_loss with its pullbacks called
in reverse order) against PyTorch autograd in float64, on the tiny random GPT-2s of
tests/pytorch/cases.py, with that folder's tolerances (loss |a-b|/|b| < LOSS_TOL; every
parameter tensor max|a-b| / max|b| < GRAD_TOL)."""
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "pytorch"))
import gpt2_reference as ref  # noqa: E402
import cases  # noqa: E402
import harness  # noqa: E402
import torch  # noqa: E402


def check_bad_input(tensor_grad, workdir):
    """A missing model file: one-line error, non-zero exit, no output file."""
    out = workdir / "never.bin"
    result = subprocess.run([tensor_grad, workdir / "missing.bin", workdir / "missing.tokens", "1", "1", out],
                            capture_output=True, text=True)
    lines = result.stderr.strip().splitlines()
    if result.returncode == 0 or len(lines) != 1 or not lines[0].startswith("error:") or out.exists():
        return [f"missing model: exit {result.returncode}, stderr {result.stderr!r}, output written: {out.exists()}"]
    return []


def main():
    if len(sys.argv) != 2:
        sys.exit(f"usage: {sys.argv[0]} PATH/TO/tensor_grad")
    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        failures = check_bad_input(sys.argv[1], workdir)
        for case in cases.GRAD_CASES:
            params, tokens, model, token_file = harness.write_case_files(
                workdir, case.cfg, case.seed, case.B * case.T + 1)
            loss, grads = ref.loss_and_grads(case.cfg, params, tokens, case.B, case.T)
            out = workdir / "grad.bin"
            result = subprocess.run([sys.argv[1], model, token_file, str(case.B), str(case.T), out],
                                    capture_output=True, text=True, check=True)
            _, tensor_grads = ref.read_model(out)
            errors = harness.gpt2_errors(float(result.stdout.split()[1]), tensor_grads, loss, grads)
            print(f"{case.name}: " + ", ".join(f"{k} {v:.1e}" for k, v in errors.items()))
            failures += harness.out_of_tolerance(case.name, errors, harness.gpt2_tolerance)
    if not failures:
        print(f"all {len(cases.GRAD_CASES)} cases agree with PyTorch")
    return harness.exit_status(failures)


if __name__ == "__main__":
    sys.exit(main())
