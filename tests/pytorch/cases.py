"""The tiny GPT-2s and runs that the PyTorch comparison tests use, and their tolerances."""
import dataclasses

from gpt2_reference import Config, TrainSettings

# Per-tensor gradient tolerance: relative_error(adjoint fp32, PyTorch fp64) < GRAD_TOL, with
# relative_error = max|a-b| / max(max|b|, 1e-12). The loss: |a-b|/|b| < LOSS_TOL.
GRAD_TOL = 1e-4
LOSS_TOL = 1e-5
# Training: each logged loss and lr within TRAIN_LOSS_TOL relative of PyTorch fp64, the logged
# pre-clip gradient norm within TRAIN_NORM_TOL relative.
TRAIN_LOSS_TOL = 1e-5
TRAIN_NORM_TOL = 1e-3


@dataclasses.dataclass(frozen=True)
class GradCase:
    name: str
    cfg: Config
    seed: int
    B: int
    T: int
    masked: bool = False  # a loss mask (instruction data): some targets have no loss


# Odd sizes on purpose: V not a multiple of 128 (and one that is), T=1, T=maxT, one head.
ODD = Config(max_seq_len=16, vocab_size=67, num_layers=2, num_heads=3, channels=48)
DEEPER = Config(max_seq_len=32, vocab_size=200, num_layers=3, num_heads=4, channels=64)
EXACT_VOCAB = Config(max_seq_len=8, vocab_size=128, num_layers=1, num_heads=1, channels=16)

GRAD_CASES = [
    GradCase("odd_T1", ODD, seed=1, B=1, T=1),
    GradCase("odd_Tmax_B3", ODD, seed=2, B=3, T=16),
    GradCase("odd_B2_T5", ODD, seed=3, B=2, T=5),
    GradCase("deeper_B2_T19", DEEPER, seed=4, B=2, T=19),
    GradCase("exact_vocab_B4_T8", EXACT_VOCAB, seed=5, B=4, T=8),
    GradCase("odd_B2_T5_masked", ODD, seed=6, B=2, T=5, masked=True),
    GradCase("deeper_B2_T19_masked", DEEPER, seed=7, B=2, T=19, masked=True),
]


@dataclasses.dataclass(frozen=True)
class TrainCase:
    name: str
    cfg: Config
    seed: int
    num_tokens: int
    settings: TrainSettings


TRAIN_CASES = [
    # Weight decay on the 2-D weights only, clipping active (grad norms are ~4-6).
    TrainCase("adamw_wd_clip", ODD, seed=11, num_tokens=2 * 8 * 5 + 1,
              settings=TrainSettings(B=2, T=8, steps=5, lr=1e-2, weight_decay=0.1,
                                     grad_clip=1.0)),
    # Warmup then cosine to 10%; 40 tokens hold 2 windows of 2*8+1, so the data wraps to 0.
    TrainCase("warmup_cosine_wrap", DEEPER, seed=12, num_tokens=40,
              settings=TrainSettings(B=2, T=8, steps=6, lr=1e-2, warmup=2,
                                     lr_min_fraction=0.1, weight_decay=0.05)),
]
