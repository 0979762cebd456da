"""Golden advantage vectors from Trinity-RFT's published formulas, written independently in numpy.

Run: python3 tests/operators/experience/trinity_vectors.py > tests/operators/experience/fixtures/trinity-vectors.json
Each case: groups of rewards, each rollout's policy-token count, and the expected advantage per
rollout (batch order: group by group). Formulas (Trinity's advantage_fn modules):
  grpo        (r - mean_g) / (std_g + eps), std unbiased (torch.std), eps 1e-6
  rloo        G/(G-1) * (r - mean_g)
  opmd        r - mean_g                        (baseline: mean)
  opmd_lae    r - tau*log(mean_g exp(r/tau))    (baseline: logavgexp, tau)
  asymre      r - (mean_g + shift)
  rec         r - mean_g                        (std_normalize false)
  reinforce   r
  reinforceplusplus: returns = reward on every response token (gamma 1); masked_whiten over all
              response tokens: mean = sum/(N + 1e-8), var = masked mean of squares * N/(N-1),
              A = (r - mean) / sqrt(var + 1e-8)
"""
import json
import numpy as np

CASES = [
    {"name": "two groups, unequal lengths", "groups": [[1, 0, 0, 1], [0.5, 0.2, 0.9]], "lengths": [[3, 10, 1, 7], [4, 4, 12]]},
    {"name": "real rewards", "groups": [[0.3, -0.7, 1.9], [2.5, 2.0], [-1.0, 0.0, 4.0, 1.5]], "lengths": [[5, 2, 9], [1, 30], [6, 6, 2, 8]]},
    {"name": "one long wrong answer", "groups": [[1, 1, 1, 0]], "lengths": [[2, 2, 2, 40]]},
]


def grpo(g, eps=1e-6):
    r = np.array(g, dtype=np.float64)
    return (r - r.mean()) / (r.std(ddof=1) + eps)


def rloo(g):
    r = np.array(g, dtype=np.float64)
    G = len(r)
    return G / (G - 1) * (r - r.mean())


def logavgexp(g, tau):
    r = np.array(g, dtype=np.float64)
    return tau * np.log(np.mean(np.exp(r / tau)))


def reinforceplusplus(groups, lengths):
    r = np.concatenate([np.array(g, dtype=np.float64) for g in groups])
    L = np.concatenate([np.array(l, dtype=np.float64) for l in lengths])
    width = int(L.max())
    mask = (np.arange(width)[None, :] < L[:, None]).astype(np.float64)
    returns = r[:, None] * mask  # gamma = 1: the outcome reward at every response token
    n = mask.sum()
    mean = (returns * mask).sum() / (n + 1e-8)
    var = (((returns - mean) ** 2) * mask).sum() / (n + 1e-8) * n / (n - 1)
    adv = (returns - mean) / np.sqrt(var + 1e-8) * mask
    # Every response token of a rollout carries the same advantage: report the first.
    return adv[:, 0]


def per_group(groups, f):
    return np.concatenate([f(g) for g in groups]).tolist()


out = []
for c in CASES:
    g = c["groups"]
    out.append({
        **c,
        "expected": {
            "grpo": per_group(g, grpo),
            "rloo": per_group(g, rloo),
            "opmd": per_group(g, lambda x: np.array(x) - np.mean(x)),
            "opmd_logavgexp_tau_0.5": per_group(g, lambda x: np.array(x) - logavgexp(x, 0.5)),
            "asymre_shift_-0.1": per_group(g, lambda x: np.array(x) - (np.mean(x) - 0.1)),
            "rec": per_group(g, lambda x: np.array(x) - np.mean(x)),
            "reinforce": per_group(g, lambda x: np.array(x, dtype=np.float64)),
            "reinforceplusplus": reinforceplusplus(g, c["lengths"]).tolist(),
        },
    })
print(json.dumps(out, indent=1))
