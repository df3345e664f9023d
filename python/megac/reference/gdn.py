"""The gated delta rule shared by gdn_core (one token, pool updated in place) and gdn_verify (T tokens).

Per value head h (key head h // (HV / HK)), with the state S seen as [V, K] (K contiguous):
  beta = sigmoid(b); g = -exp(A_log) * softplus(a + dt_bias)
  qn = q / sqrt(sum(q^2) + 1e-6) * 128^-0.5; kn = k / sqrt(sum(k^2) + 1e-6)
  S = S * exp(g); u = beta * (v - S kn); S = S + u kn^T; o = S qn
Computed in float64.
"""
import torch

from .common import randn, uniform

D = 128


def step(S, q, k, v, a, b, A_log, dt_bias):
    """One token. S [N, HV, V, K] f64; q, k [N, HK, D]; v [N, HV, D]; a, b [N, HV]; returns (S, o [N, HV, D])."""
    HV, HK = v.shape[1], q.shape[1]
    rep = HV // HK
    q = q.double().repeat_interleave(rep, dim=1)
    k = k.double().repeat_interleave(rep, dim=1)
    v = v.double()
    beta = torch.sigmoid(b.double())
    g = -torch.exp(A_log.double()) * torch.nn.functional.softplus(a.double() + dt_bias.double())
    qn = q / torch.sqrt((q * q).sum(-1, keepdim=True) + 1e-6) * D ** -0.5
    kn = k / torch.sqrt((k * k).sum(-1, keepdim=True) + 1e-6)
    S = S * torch.exp(g)[..., None, None]
    u = beta[..., None] * (v - torch.einsum("nhvk,nhk->nhv", S, kn))
    S = S + u[..., :, None] * kn[..., None, :]
    o = torch.einsum("nhvk,nhk->nhv", S, qn)
    return S, o


def head_params(HV, g, device):
    """A_log, dt_bias [HV] f32 of model scale (decay rates exp(A_log) between 1 and 16)."""
    A_log = torch.log(uniform((HV,), g, device, 1.0, 16.0))
    return A_log, randn((HV,), g, device, torch.float32, std=0.5)

