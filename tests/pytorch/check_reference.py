"""Checks the PyTorch reference itself, without the adjoint program: file round trips, that its
float32 run sits far inside the tolerances the comparison tests use (so a correct fp32 engine
passes them), finite differences, and that the comparisons catch wrong results (a perturbed or
NaN gradient, AdamW variants that are not PyTorch's AdamW)."""
import dataclasses
import math
import sys
import tempfile
from pathlib import Path

# gpt2_reference first: it exits with a clear message when numpy or torch is missing.
import gpt2_reference as ref
import cases
import numpy as np
import torch


failures = []


def check(ok, message):
    print(("ok    " if ok else "FAIL  ") + message)
    if not ok:
        failures.append(message)


def expect_error(action, fragment, message):
    try:
        action()
    except ValueError as error:
        check(fragment in str(error), f"{message}: {error}")
        return
    check(False, f"{message}: no error")


def check_files(workdir):
    cfg = cases.ODD
    params = ref.random_params(cfg, seed=0)
    model = workdir / "model.bin"
    ref.write_model(model, cfg, params)
    read_cfg, read_params = ref.read_model(model)
    check(read_cfg == cfg and all(np.array_equal(params[n], read_params[n])
                                  for n in ref.PARAM_NAMES), "model file round trip")
    tokens = np.random.default_rng(0).integers(0, 65536, 1001)
    ref.write_tokens(workdir / "tokens.bin", tokens)
    check(np.array_equal(ref.read_tokens(workdir / "tokens.bin"), tokens), "token file round trip")

    data = model.read_bytes()
    (workdir / "truncated.bin").write_bytes(data[:-4])
    expect_error(lambda: ref.read_model(workdir / "truncated.bin"), "bytes, expected",
                 "truncated model rejected")
    (workdir / "magic.bin").write_bytes(b"\0\0\0\0" + data[4:])
    expect_error(lambda: ref.read_model(workdir / "magic.bin"), "bad magic",
                 "wrong model magic rejected")


def check_float32_margin():
    """The tolerances must leave room for fp32 rounding: PyTorch's own fp32 gradients have to
    be at least 10x inside them (training losses 4x, check_training)."""
    for case in cases.GRAD_CASES:
        params = ref.random_params(case.cfg, case.seed)
        tokens = ref.random_tokens(case.cfg, case.B * case.T + 1, case.seed)
        loss64, grads64 = ref.loss_and_grads(case.cfg, params, tokens, case.B, case.T)
        loss32, grads32 = ref.loss_and_grads(case.cfg, params, tokens, case.B, case.T,
                                             torch.float32)
        worst = max(ref.relative_error(grads32[n], grads64[n]) for n in ref.PARAM_NAMES)
        loss_error = abs(loss32 - loss64) / abs(loss64)
        check(worst < cases.GRAD_TOL / 10 and loss_error < cases.LOSS_TOL / 10,
              f"{case.name}: torch fp32 vs fp64 worst tensor error {worst:.2e}, "
              f"loss error {loss_error:.2e}")
        padding = grads64["wte"][case.cfg.vocab_size:]
        check(not padding.any(), f"{case.name}: padded wte rows get no gradient")


def check_finite_differences():
    """Central differences in float64 on a few coordinates of every tensor, including a padded
    wte row (whose true derivative is zero)."""
    case = cases.GRAD_CASES[2]
    cfg, step = case.cfg, 1e-6
    params = ref.random_params(cfg, case.seed)
    tokens = ref.random_tokens(cfg, case.B * case.T + 1, case.seed)
    inputs, targets = ref.batch(tokens, 0, case.B, case.T)
    p64 = ref.to_torch(params, torch.float64)
    _, grads = ref.loss_and_grads(cfg, params, tokens, case.B, case.T)
    rng = np.random.default_rng(7)
    worst = 0.0
    for name in ref.PARAM_NAMES:
        coordinates = [tuple(rng.integers(0, s) for s in p64[name].shape) for _ in range(3)]
        if name == "wte":
            coordinates.append((cfg.vocab_size, 0))
        for index in coordinates:
            original = p64[name][index].item()
            values = []
            for sign in (1, -1):
                p64[name][index] = original + sign * step
                values.append(ref.gpt2_loss(cfg, p64, inputs, targets).item())
            p64[name][index] = original
            numeric = (values[0] - values[1]) / (2 * step)
            worst = max(worst, abs(numeric - grads[name][index]) / max(abs(numeric), 1e-3))
    check(worst < 1e-6, f"central differences vs autograd (fp64): worst error {worst:.2e}")


def check_detection():
    case = cases.GRAD_CASES[1]
    params = ref.random_params(case.cfg, case.seed)
    tokens = ref.random_tokens(case.cfg, case.B * case.T + 1, case.seed)
    _, grads = ref.loss_and_grads(case.cfg, params, tokens, case.B, case.T)
    for name in ("qkvb", "lnfw"):
        perturbed = grads[name].copy()
        perturbed.flat[perturbed.size // 2] += 1e-3 * np.abs(perturbed).max()
        check(ref.relative_error(perturbed, grads[name]) > cases.GRAD_TOL,
              f"a 1e-3 perturbation of one {name} gradient element is detected")
        perturbed.flat[0] = math.nan
        check(ref.relative_error(perturbed, grads[name]) == math.inf,
              f"a NaN in the {name} gradient is rejected")


def single_group_adamw(p, s):
    return torch.optim.AdamW(list(p.values()), lr=s.lr, betas=(s.beta1, s.beta2), eps=s.eps,
                             weight_decay=s.weight_decay)


def coupled_l2_adam(p, s):
    return torch.optim.Adam([{"params": [p[n] for n in ref.PARAM_NAMES if n in ref.DECAYED],
                              "weight_decay": s.weight_decay},
                             {"params": [p[n] for n in ref.PARAM_NAMES if n not in ref.DECAYED]}],
                            lr=s.lr, betas=(s.beta1, s.beta2), eps=s.eps)


def largest_loss_error(log, reference):
    return max(abs(a["loss"] - b["loss"]) / abs(b["loss"]) for a, b in zip(log, reference))


def check_training():
    for case in cases.TRAIN_CASES:
        s = case.settings
        params = ref.random_params(case.cfg, case.seed)
        tokens = ref.random_tokens(case.cfg, case.num_tokens, case.seed)
        reference = ref.train(case.cfg, params, tokens, s)
        run32 = ref.train(case.cfg, params, tokens, s, torch.float32)
        norm_error = max(abs(a["grad_norm"] - b["grad_norm"]) / b["grad_norm"]
                         for a, b in zip(run32, reference))
        loss_error = largest_loss_error(run32, reference)
        # fp32 rounding grows over the steps; measured ~4e-7 against the 1e-5 tolerance.
        check(loss_error < cases.TRAIN_LOSS_TOL / 4 and norm_error < cases.TRAIN_NORM_TOL / 10,
              f"{case.name}: torch fp32 vs fp64 loss error {loss_error:.2e}, "
              f"grad norm error {norm_error:.2e}")
        if s.grad_clip > 0:
            check(all(r["grad_norm"] > s.grad_clip for r in reference),
                  f"{case.name}: clipping is active on every step")
        if s.warmup > 0:
            check(len(set(ref.batch_starts(case.num_tokens, s.B, s.T, s.steps))) < s.steps,
                  f"{case.name}: the data wraps around")
        # Variants the comparison must tell apart from PyTorch's AdamW.
        variants = {
            "weight decay on every tensor": dict(optimizer_factory=single_group_adamw),
            "coupled L2 (Adam) instead of AdamW": dict(optimizer_factory=coupled_l2_adam),
            "beta2 0.999": dict(s=dataclasses.replace(s, beta2=0.999)),
            "lr x0.9": dict(s=dataclasses.replace(s, lr=0.9 * s.lr)),
        }
        if s.grad_clip > 0:
            variants["clipping off"] = dict(s=dataclasses.replace(s, grad_clip=0.0))
        if s.warmup > 0:
            variants["warmup one step longer"] = dict(s=dataclasses.replace(s, warmup=s.warmup + 1))
            variants["constant lr"] = dict(s=dataclasses.replace(s, warmup=0, lr_min_fraction=1.0))
        for label, change in variants.items():
            settings = change.get("s", s)
            factory = change.get("optimizer_factory", ref.make_adamw)
            log = ref.train(case.cfg, params, tokens, settings, optimizer_factory=factory)
            error = largest_loss_error(log, reference)
            check(error > 10 * cases.TRAIN_LOSS_TOL,
                  f"{case.name}: '{label}' changes a logged loss by {error:.1e} (> 10x tol)")


def main():
    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory() as workdir:
        check_files(Path(workdir))
    check_float32_margin()
    check_finite_differences()
    check_detection()
    check_training()
    if failures:
        print(f"{len(failures)} check(s) failed", file=sys.stderr)
        return 1
    print("all reference checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
