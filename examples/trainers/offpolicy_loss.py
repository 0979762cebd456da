"""The per-token policy-gradient term of Winnow's built-in trainer (src/tiny/pg-loss.ts), with its
off-policy correction, for the reference trainers (docs/trainers.md, "Off-policy rows").

ratio = exp(logp - old), old being the stored behaviour log-prob of the token.
  on-policy rows, and replayed rows under mode "clip" (DOTS, RePO):
      pg = -min(ratio * A, clip(ratio, 1 - clip_low, 1 + clip_high) * A)
  replayed rows (off_policy = 1) under mode "shaping" (ExGRPO, arXiv:2510.02245):
      pg = -ratio / (ratio + gamma) * A        (no clip; the gradient survives on unlikely tokens)

Needs torch only, so tests can check it against Winnow's golden vectors without a model.
"""

import torch


def pg_token_loss(logp, old, adv, off_policy, clip_low, clip_high, mode="clip", gamma=0.1):
    """Per-token policy-gradient loss, the ratios, and the mask of clipped tokens (ratio outside the
    clip range; shaped tokens never count).

    logp, old, adv: float tensors of one row's action tokens (or any flat set of tokens);
    off_policy: a bool, or a tensor of 0/1 per token, saying which tokens belong to replayed rows.
    """
    if mode not in ("clip", "shaping"):
        raise ValueError("offPolicy.mode: unknown value %r (clip or shaping)" % (mode,))
    ratio = torch.exp(logp - old)
    clipped_ratio = torch.clamp(ratio, 1 - clip_low, 1 + clip_high)
    pg = -torch.minimum(ratio * adv, clipped_ratio * adv)
    outside = ((ratio.detach() - clipped_ratio.detach()).abs() > 0).float()
    if mode == "shaping":
        off = torch.as_tensor(off_policy, dtype=torch.float32, device=logp.device).expand_as(pg)
        shaped = -(ratio / (ratio + gamma)) * adv
        pg = torch.where(off > 0.5, shaped, pg)
        outside = outside * (1 - off)
    return pg, ratio, outside
